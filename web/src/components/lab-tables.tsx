/**
 * The Grounding lab's two tables: the four authored sources (text, fact ids, retrieved in this
 * state, question-relevant) and the answer's claims (support in the retrieved context, the cited
 * source, and whether that citation is valid). Both scroll sideways on a narrow screen.
 */
import type { ComponentChildren } from 'preact';
import { claimRows, MODEL, type LabMeasured } from '../lab/lab-model.js';

function YesNo({ yes }: { yes: boolean }) {
  return <span class={`tag ${yes ? 'ok' : 'bad'}`}>{yes ? 'Yes' : 'No'}</span>;
}

function Scrolls(props: { label: string; children: ComponentChildren }) {
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label={`${props.label} (scrolls sideways)`}>
      {props.children}
    </div>
  );
}

export function LabSources({ context }: { context: string }) {
  const retrieved = MODEL.contexts[context] ?? [];
  return (
    <Scrolls label="Sources">
      <table class="grid lab-table" data-testid="lab-sources">
        <caption class="lab-sr">The four authored sources</caption>
        <thead>
          <tr>
            <th scope="col">Source</th>
            <th scope="col">Exact authored text</th>
            <th scope="col">Fact ids</th>
            <th scope="col">Retrieved?</th>
            <th scope="col">Question-relevant?</th>
          </tr>
        </thead>
        <tbody>
          {Object.entries(MODEL.sources).map(([id, s]) => (
            <tr key={id} class={retrieved.includes(id) ? 'is-open' : ''}>
              <td>
                <strong>{id}</strong>
              </td>
              <th scope="row">{s.text}</th>
              <td data-label="Fact ids">
                <code>{s.facts.join(', ')}</code>
              </td>
              <td data-label="Retrieved">
                <YesNo yes={retrieved.includes(id)} />
              </td>
              <td data-label="Relevant">
                <YesNo yes={s.relevant} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Scrolls>
  );
}

export function LabClaims({ measured }: { measured: LabMeasured }) {
  const rows = claimRows(measured);
  if (rows.length === 0) return <p class="muted">The answer is empty: it makes no claims.</p>;
  return (
    <Scrolls label="Claims">
      <table class="grid lab-table" data-testid="lab-claims">
        <caption class="lab-sr">The answer’s claims and their citations</caption>
        <thead>
          <tr>
            <th scope="col">Claim</th>
            <th scope="col">Supported by (retrieved)</th>
            <th scope="col">Cites</th>
            <th scope="col">Cited retrieved?</th>
            <th scope="col">Cited entails?</th>
            <th scope="col">Valid citation?</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={i}>
              <th scope="row">
                {r.claim.text}
                <span class="small muted">
                  {' '}
                  <code>{r.claim.fact}</code>
                </span>
              </th>
              <td data-label="Supported by">
                {r.supportedBy.length === 0 ? <YesNo yes={false} /> : r.supportedBy.join(', ')}
              </td>
              <td data-label="Cites">{r.claim.cites ?? <span class="muted">nothing</span>}</td>
              <td data-label="Cited retrieved">
                {r.cited === null ? '—' : <YesNo yes={r.cited.retrieved} />}
              </td>
              <td data-label="Cited entails">{r.cited === null ? '—' : <YesNo yes={r.cited.entails} />}</td>
              <td data-label="Valid citation">{r.cited === null ? '—' : <YesNo yes={r.cited.valid} />}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Scrolls>
  );
}
