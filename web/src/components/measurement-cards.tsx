/**
 * The five grounding measurements of the answer, one card each: value, numerator/denominator, the
 * judge that decided support, and Undefined with its reason. Opening a card lists the claims and
 * which source supports each.
 */
import type { ComponentChildren } from 'preact';
import { measurementLabel } from '../format.js';
import type { ContextSectionJson, GroundingJson, MeasurementJson } from '../wire.js';
import type { PanelTarget } from './section-panel.js';

type Key = 'context_relevance' | 'faithfulness' | 'citation_support' | 'citation_precision' | 'completeness';

/** Each card: its name, what it counts (the formula of src/evaluate/grounding.ts), whether a judge decides it. */
const CARDS: readonly { key: Key; name: string; formula: string; judged: boolean }[] = [
  {
    key: 'context_relevance',
    name: 'Context relevance',
    formula: 'relevant sections ÷ sections retrieved',
    judged: false,
  },
  {
    key: 'faithfulness',
    name: 'Faithfulness',
    formula: 'claims supported by any section ÷ claims',
    judged: true,
  },
  {
    key: 'citation_support',
    name: 'Citation support',
    formula: 'claims with a cited section supporting them ÷ claims',
    judged: true,
  },
  {
    key: 'citation_precision',
    name: 'Citation precision',
    formula: 'citations whose section supports the claim ÷ citations',
    judged: true,
  },
  {
    key: 'completeness',
    name: 'Completeness',
    formula: 'required facts in the answer ÷ required facts',
    judged: false,
  },
];

export function MeasurementCards(props: {
  grounding: GroundingJson;
  sections: readonly ContextSectionJson[];
  onCite: (target: PanelTarget, from: HTMLElement) => void;
}) {
  const { grounding: g } = props;
  const judge = g.judge.proxy ? `${g.judge.id} (word overlap, not entailment)` : g.judge.id;
  return (
    <section aria-labelledby="measures-title">
      <h2 id="measures-title" class="section-title">
        Measurements
      </h2>
      <ul class="cards" data-testid="measurements">
        {CARDS.map((c) => (
          <li key={c.key}>
            <Card
              name={c.name}
              formula={c.formula}
              m={g[c.key]}
              judge={
                c.judged
                  ? judge
                  : c.key === 'context_relevance'
                    ? 'none (counted from relevance labels)'
                    : 'none (counted from a reference’s facts)'
              }
            >
              {c.judged ? (
                <ClaimList {...props} />
              ) : (
                <p class="muted small">
                  {c.key === 'context_relevance'
                    ? 'Counted from relevance labels, which an evaluation question set provides (quiver eval).'
                    : 'Counted from the reference answer’s required facts, which an evaluation question set provides (quiver eval).'}
                </p>
              )}
            </Card>
          </li>
        ))}
      </ul>
    </section>
  );
}

function Card(props: {
  name: string;
  formula: string;
  m: MeasurementJson;
  judge: string;
  children: ComponentChildren;
}) {
  const { name, formula, m, judge } = props;
  const undef = m.value === null;
  return (
    <article class={`card measure ${undef ? 'undefined' : ''}`} data-testid="measurement">
      <h3>{name}</h3>
      <p class="value" data-testid="measurement-value">
        {measurementLabel(m)}
      </p>
      <p class="fraction">
        {m.num} / {m.den}
        <span class="muted"> · {formula}</span>
      </p>
      {m.value === null && (
        <p class="reason" data-testid="undefined-reason">
          Undefined: {m.undefined_reason}
        </p>
      )}
      <p class="judge small">Judged by: {judge}</p>
      <details>
        <summary>Claims and sources</summary>
        {props.children}
      </details>
    </article>
  );
}

function ClaimList(props: {
  grounding: GroundingJson;
  sections: readonly ContextSectionJson[];
  onCite: (target: PanelTarget, from: HTMLElement) => void;
}) {
  const { grounding: g, sections, onCite } = props;
  if (g.claims.length === 0) return <p class="muted small">The answer has no claims.</p>;
  const open = (n: number, claim: string, from: HTMLElement): void => {
    const section = sections.find((s) => s.n === n);
    if (section !== undefined) onCite({ kind: 'cite', n, claim, section }, from);
  };
  return (
    <ol class="claims">
      {g.claims.map((c, i) => (
        <li key={i}>
          <p class="claim-text">{c.text}</p>
          <p class="small">
            {c.supported ? <span class="tag ok">supported</span> : <span class="tag bad">unsupported</span>}{' '}
            {c.supported_by.length > 0 ? 'by ' : 'by no section'}
            {c.supported_by.map((n) => (
              <button
                key={n}
                type="button"
                class="cite"
                aria-label={`Source ${n} supports this claim; open it`}
                onClick={(e) => open(n, c.text, e.currentTarget)}
              >
                [{n}]
              </button>
            ))}
          </p>
          <p class="small">
            Cites:{' '}
            {c.citations.length === 0
              ? 'nothing'
              : c.citations.map((x, j) => (
                  <span key={j} class={`tag ${x.valid ? 'ok' : 'bad'}`}>
                    [{x.n}] {x.section_id === null ? 'invalid' : x.valid ? 'supports' : 'does not support'}
                  </span>
                ))}
          </p>
        </li>
      ))}
    </ol>
  );
}
