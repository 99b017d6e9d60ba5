/**
 * Every context section with why it is there: its rank in the fused retrieval, its rank in each
 * leg, its rank after selection and the selector's step score, and whether the answer cites it.
 * Ranks are shown from 1 (the API counts from 0). Each row has up/down to rate the section.
 */
import { rankLabel } from '../format.js';
import { useAllowed } from '../role.js';
import type { Ratings } from '../use-ratings.js';
import type { AskState } from '../views/ask-state.js';
import { NeedsRole } from './needs-role.js';
import { RateButtons } from './rate-buttons.js';
import type { PanelTarget } from './section-panel.js';

export function EvidenceTable({
  state,
  ratings,
  onOpen,
}: {
  state: AskState;
  ratings: Ratings;
  onOpen: (target: PanelTarget, from: HTMLElement) => void;
}) {
  const cited = new Set((state.claims?.cited ?? []).map((c) => c.n));
  const known = state.claims !== null;
  const canRate = useAllowed('write');
  return (
    <section class="card" aria-labelledby="evidence-title">
      <h2 id="evidence-title">Evidence</h2>
      <p class="muted">
        The {state.sections.length} sections the answer was given, in context order. A section whose selection
        rank differs from its retrieval rank was moved by selection, which favours sections that cover what
        the others miss.
      </p>
      {!canRate && <NeedsRole need="write" what="Rating a section" />}
      {state.evidenceError !== null && (
        <p class="note warn">The ranks could not be read: {state.evidenceError}</p>
      )}
      <div class="table-wrap" tabIndex={0} role="region" aria-label="Evidence table (scrolls sideways)">
        <table class="evidence" data-testid="evidence">
          <thead>
            <tr>
              <th scope="col">[n]</th>
              <th scope="col">Section</th>
              <th scope="col" class="num">
                Retrieval
              </th>
              <th scope="col" class="num">
                Lexical
              </th>
              <th scope="col" class="num">
                Vector
              </th>
              <th scope="col" class="num">
                Selection
              </th>
              <th scope="col" class="num">
                Step score
              </th>
              <th scope="col">Cited</th>
              {canRate && <th scope="col">Rate</th>}
            </tr>
          </thead>
          <tbody>
            {state.sections.map((s) => {
              const h = state.evidence?.get(s.section_id);
              const dash = state.evidence === null && state.evidenceError === null ? '…' : '—';
              return (
                <tr key={s.section_id} class={cited.has(s.n) ? 'is-cited' : ''}>
                  <td>{s.n}</td>
                  <th scope="row">
                    <button
                      type="button"
                      class="link"
                      onClick={(e) => onOpen({ kind: 'section', sectionId: s.section_id }, e.currentTarget)}
                    >
                      {s.breadcrumb}
                    </button>
                    <span class="muted small">{s.source}</span>
                  </th>
                  <td class="num">{h === undefined ? dash : rankLabel(h.retrieval_rank)}</td>
                  <td class="num">{h === undefined ? dash : rankLabel(h.leg_ranks.lexical)}</td>
                  <td class="num">{h === undefined ? dash : rankLabel(h.leg_ranks.vector)}</td>
                  <td class="num">{h === undefined ? dash : rankLabel(h.selection_rank)}</td>
                  <td class="num">
                    {h === undefined || h.step_score === null ? '—' : h.step_score.toFixed(3)}
                  </td>
                  <td>{known ? cited.has(s.n) ? <span class="tag ok">cited</span> : 'no' : '…'}</td>
                  {canRate && (
                    <td>
                      <RateButtons sectionId={s.section_id} label={`source ${s.n}`} ratings={ratings} />
                    </td>
                  )}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}
