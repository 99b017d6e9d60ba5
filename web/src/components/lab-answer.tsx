/**
 * "Open my last answer in the lab": the last answer's context sections as switches, its claims and
 * citations as given, support decided by the lexical judge, shown with the Ask view's own cards
 * (the same `groundingJson` the server sends). Switching a section off measures the answer as if it
 * had not been retrieved: faithfulness and citation support move, a citation of it turns invalid.
 * A claim's `[n]` opens the section in the side panel. Give it `key` = the answer, so a new answer
 * starts with every section on.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { AnswerGrounding } from '../../../src/evaluate/answer-grounding.js';
import { measureAnswerWithout } from '../../../src/evaluate/answer-lab.js';
import { createLexicalJudge } from '../../../src/evaluate/judges/lexical.js';
import { groundingJson } from '../../../src/wire/answers.js';
import { toLabAnswer } from '../lab/last-answer.js';
import type { AnswerJson, GroundingJson } from '../wire.js';
import { ErrorNote } from './error-note.js';
import { MeasurementCards } from './measurement-cards.js';
import { SectionPanel, type PanelTarget } from './section-panel.js';

const judge = createLexicalJudge();

export function LabAnswer(props: { answer: AnswerJson; token: string; onClose: () => void }) {
  const { answer, token } = props;
  const [omitted, setOmitted] = useState<ReadonlySet<number>>(new Set());
  const [measured, setMeasured] = useState<{ key: string; g: AnswerGrounding } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [panel, setPanel] = useState<PanelTarget | null>(null);
  const opener = useRef<HTMLElement | null>(null);
  // Opened from a button that goes away: the heading takes the focus.
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const key = [...omitted].sort((a, b) => a - b).join(',');
  useEffect(() => {
    let live = true;
    measureAnswerWithout(toLabAnswer(answer), omitted, judge).then(
      (g) => live && setMeasured({ key, g }),
      (e: unknown) => live && setError(e),
    );
    return () => {
      live = false;
    };
  }, [answer, key]);
  const toggle = (n: number, on: boolean): void =>
    setOmitted((o) => {
      const next = new Set(o);
      if (on) next.delete(n);
      else next.add(n);
      return next;
    });
  const close = (): void => {
    setPanel(null);
    opener.current?.focus();
  };
  const g = measured?.g ?? null;
  return (
    <div class={`split ${panel === null ? '' : 'with-panel'}`}>
      <section class="split-main lab-answer" aria-labelledby="lab-answer-title" data-testid="lab-answer">
        <h2 id="lab-answer-title" ref={heading} tabIndex={-1}>
          Your last answer in the lab
        </h2>
        <p>
          <strong>Question:</strong> {answer.question}
        </p>
        <p class="small muted">
          Switch a section off to measure the answer as if it had not been retrieved. Support is decided by
          the lexical judge (word overlap: a proxy, not entailment), as on the Ask view; context relevance and
          completeness stay Undefined, since a live question has no relevance labels and no reference.
        </p>
        {error !== null && <ErrorNote error={error} />}
        <fieldset class="lab-group">
          <legend>Context sections the answer may rest on</legend>
          {answer.context.map((s) => (
            <label key={s.n}>
              <input
                type="checkbox"
                checked={!omitted.has(s.n)}
                onChange={(e) => toggle(s.n, e.currentTarget.checked)}
              />
              <span>
                [{s.n}] {s.breadcrumb}
                <span class="small muted"> · {s.source}</span>
              </span>
            </label>
          ))}
        </fieldset>
        <p class="small" role="status" data-testid="lab-answer-summary">
          {g === null
            ? 'Measuring…'
            : `${answer.context.length - omitted.size} of ${answer.context.length} sections · ${g.faithfulness.den} claims · ${g.faithfulness.num} supported · ${g.citationSupport.num} validly cited`}
        </p>
        {g !== null && measured !== null && (
          <div data-testid="lab-answer-cards" data-state={measured.key}>
            <MeasurementCards
              grounding={groundingJson(g, judge) as unknown as GroundingJson}
              sections={answer.context}
              onCite={(target, from) => {
                opener.current = from;
                setPanel(target);
              }}
            />
          </div>
        )}
        <p>
          <button type="button" class="quiet" onClick={props.onClose}>
            Back to the teaching model
          </button>
        </p>
      </section>
      {panel !== null && <SectionPanel target={panel} token={token} onClose={close} onOpen={setPanel} />}
    </div>
  );
}
