/**
 * Feedback: the learning switch (log every answer's cited and shown sections for the ranker to
 * learn from; admin) and the ratings written so far, newest first; a rated section opens in the
 * side panel.
 */
import { useRef, useState } from 'preact/hooks';
import { getJson } from '../api.js';
import { ErrorNote } from '../components/error-note.js';
import { NeedsRole } from '../components/needs-role.js';
import { SectionPanel, type PanelTarget } from '../components/section-panel.js';
import { useAllowed } from '../role.js';
import { useJson } from '../use-json.js';
import type { RatingsJson } from '../wire.js';

const LIMIT = 200;

export function FeedbackView({ token, onBadToken }: { token: string; onBadToken: () => void }) {
  const [version, setVersion] = useState(0);
  const loaded = useJson<RatingsJson>(`/v1/feedback?limit=${LIMIT}`, token, version);
  const [panel, setPanel] = useState<PanelTarget | null>(null);
  const opener = useRef<HTMLElement | null>(null);
  const open = (sectionId: string, from: HTMLElement): void => {
    opener.current = from;
    setPanel({ kind: 'section', sectionId });
  };
  const close = (): void => {
    setPanel(null);
    opener.current?.focus();
  };
  return (
    <div class={`split ${panel === null ? '' : 'with-panel'}`}>
      <div class="split-main">
        <h1>Feedback</h1>
        <p class="muted">
          Ratings teach the ranker which sections answer which questions. Rate sections with Up and Down on
          the Ask view; with learning on, every answer’s cited sections are logged too.
        </p>
        {loaded.state === 'loading' && <p class="muted">Loading the ratings…</p>}
        {loaded.state === 'failed' && <ErrorNote error={loaded.error} onBadToken={onBadToken} />}
        {loaded.state === 'ok' && (
          <>
            <LearningSwitch
              on={loaded.value.learning}
              token={token}
              onChanged={() => setVersion((v) => v + 1)}
            />
            <RatingsTable ratings={loaded.value} onOpen={open} />
          </>
        )}
      </div>
      {panel !== null && <SectionPanel target={panel} token={token} onClose={close} onOpen={setPanel} />}
    </div>
  );
}

function LearningSwitch(props: { on: boolean; token: string; onChanged: () => void }) {
  const { on, token, onChanged } = props;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const allowed = useAllowed('admin');
  const flip = (): void => {
    setBusy(true);
    setError(null);
    getJson<{ learning: boolean }>('/v1/learning', token, { body: { on: !on } })
      .then(onChanged, setError)
      .finally(() => setBusy(false));
  };
  return (
    <section class="card" aria-labelledby="learning-title">
      <h2 id="learning-title">Learning</h2>
      <div class="switch-row">
        <button
          type="button"
          role="switch"
          class={`switch ${on ? 'on' : ''}`}
          aria-checked={on}
          aria-describedby="learning-help"
          disabled={busy || !allowed}
          onClick={flip}
        >
          <span class="knob" aria-hidden="true" />
          Log answers for learning
        </button>
        <span class={`tag ${on ? 'ok' : ''}`}>{on ? 'on' : 'off'}</span>
      </div>
      <p id="learning-help" class="muted small">
        When on, each answer writes a row per section: cited sections count as good, the others as shown.
        {allowed && 'Switching needs an admin token.'}
      </p>
      {!allowed && <NeedsRole need="admin" what="Switching learning" />}
      {error !== null && (
        <ErrorNote
          error={error}
          forbidden="Switching learning needs an admin token; this token’s role is lower."
        />
      )}
    </section>
  );
}

function RatingsTable(props: {
  ratings: RatingsJson;
  onOpen: (sectionId: string, from: HTMLElement) => void;
}) {
  const { ratings, onOpen } = props;
  const rows = ratings.ratings;
  return (
    <section class="card" aria-labelledby="ratings-title">
      <h2 id="ratings-title">Ratings</h2>
      {rows.length === 0 ? (
        <p class="muted">No ratings yet.</p>
      ) : (
        <>
          <p class="muted small">
            {rows.length === LIMIT
              ? `The newest ${LIMIT} ratings.`
              : `${rows.length} ${rows.length === 1 ? 'rating' : 'ratings'}, newest first.`}
          </p>
          <div class="table-wrap" tabIndex={0} role="region" aria-label="Ratings (scrolls sideways)">
            <table class="grid" data-testid="ratings">
              <thead>
                <tr>
                  <th scope="col">Question</th>
                  <th scope="col">Signal</th>
                  <th scope="col">Section</th>
                  <th scope="col" class="num optional">
                    Weight
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((r) => (
                  <tr key={r.id}>
                    <th scope="row">
                      {r.question === '' ? <span class="muted">(no question)</span> : r.question}
                      <span class="muted small">{new Date(r.at).toLocaleString()}</span>
                    </th>
                    <td>
                      <span class={`tag ${r.label > 0 ? 'ok' : r.label < 0 ? 'bad' : ''}`}>{r.signal}</span>
                    </td>
                    <td>
                      {r.section_id === null ? (
                        <span class="muted">—</span>
                      ) : (
                        <button
                          type="button"
                          class="link"
                          aria-label={`Read section ${r.section_id}`}
                          onClick={(e) => r.section_id !== null && onOpen(r.section_id, e.currentTarget)}
                        >
                          Read
                        </button>
                      )}
                    </td>
                    <td class="num optional">{r.weight}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}
