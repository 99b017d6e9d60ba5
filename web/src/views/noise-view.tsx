/**
 * Noise review: the documents that look like junk (score ≥ 1, not judged yet), each with its score
 * and the features behind it, to mark as junk (it leaves search and answers) or keep, one by one or
 * all at once (confirmed first); the marks made so far, each of which can be turned the other way;
 * and the blend fitted to those marks.
 */
import { useState } from 'preact/hooks';
import { getJson } from '../api.js';
import { focusOnMount } from '../focus-on-mount.js';
import { ErrorNote } from '../components/error-note.js';
import { LoadedTable } from '../components/loaded-table.js';
import { FeatureBars } from '../components/feature-bars.js';
import { NeedsRole } from '../components/needs-role.js';
import { NoiseBlend } from '../components/noise-blend.js';
import { useAllowed } from '../role.js';
import { useJson } from '../use-json.js';
import type { NoiseMarkJson, NoiseSuggestionJson } from '../wire.js';

const K = 50;
const WRITE_ONLY = 'Marking needs a write or admin token; this token can only read.';

export function NoiseView({ token, onBadToken }: { token: string; onBadToken: () => void }) {
  const [version, setVersion] = useState(0);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [said, setSaid] = useState('');
  const canMark = useAllowed('write');
  const queue = useJson<{ suggestions: NoiseSuggestionJson[] }>(
    `/v1/noise/suggestions?k=${K}`,
    token,
    version,
  );
  const marks = useJson<{ marks: NoiseMarkJson[] }>('/v1/noise/marks', token, version);
  const mark = (docId: string, noisy: boolean): void => {
    setBusy(docId);
    setError(null);
    getJson<NoiseMarkJson>('/v1/noise/marks', token, { body: { document: docId, noisy } })
      .then((m) => {
        setSaid(`${nameOf(m)} marked as ${noisy ? 'junk' : 'a keeper'}.`);
        setVersion((v) => v + 1);
      }, setError)
      .finally(() => setBusy(null));
  };
  const [confirming, setConfirming] = useState(false);
  const acceptAll = (k: number): void => {
    setBusy('all');
    setError(null);
    getJson<{ marks: NoiseMarkJson[] }>('/v1/noise/accept', token, { body: { k } })
      .then((r) => {
        setSaid(`${r.marks.length} ${r.marks.length === 1 ? 'document' : 'documents'} marked as junk.`);
        setConfirming(false);
        setVersion((v) => v + 1);
      }, setError)
      .finally(() => setBusy(null));
  };
  return (
    <div class="page">
      <h1>Noise</h1>
      <p class="muted">
        Documents that look like junk (navigation, cookie banners, copies) crowd out real evidence. Junk
        leaves search and answers at once; a keeper leaves this queue. Marks survive re-ingest.
      </p>
      <p class="note" role="status" hidden={said === ''}>
        {said}
      </p>
      {!canMark && <NeedsRole need="write" what="Marking a document as junk or a keeper" />}
      {error !== null && <ErrorNote error={error} forbidden={WRITE_ONLY} />}
      <section class="card" aria-labelledby="queue-title">
        <h2 id="queue-title">Suggestions</h2>
        {queue.state === 'loading' && <p class="muted">Scoring the documents…</p>}
        {queue.state === 'failed' && <ErrorNote error={queue.error} onBadToken={onBadToken} />}
        {queue.state === 'ok' &&
          (queue.value.suggestions.length === 0 ? (
            <p class="muted" data-testid="no-suggestions">
              Nothing looks like junk: no unjudged document scores 1.0 or more.
            </p>
          ) : (
            <>
              <p class="muted small">
                Noisiest first. Each bar is a feature ranked against the whole vault, from −1.73 to +1.73: to
                the right (red) it points to junk, to the left to a keeper.
              </p>
              {canMark &&
                (confirming ? (
                  <div class="confirm" role="group" aria-label="Confirm marking every suggestion as junk">
                    <span class="small">
                      Mark all {queue.value.suggestions.length} as junk? They leave search and answers.
                    </span>
                    <button
                      type="button"
                      disabled={busy !== null}
                      ref={focusOnMount}
                      onClick={() => acceptAll(queue.value.suggestions.length)}
                    >
                      Yes, mark all
                    </button>
                    <button type="button" class="quiet" onClick={() => setConfirming(false)}>
                      Cancel
                    </button>
                  </div>
                ) : (
                  <p>
                    <button type="button" class="quiet" onClick={() => setConfirming(true)}>
                      Mark all {queue.value.suggestions.length} as junk…
                    </button>
                  </p>
                ))}
              <ol class="suggestions" data-testid="suggestions">
                {queue.value.suggestions.map((s) => (
                  <li key={s.doc_id} class="suggestion">
                    <div class="suggestion-head">
                      <div>
                        <strong>{s.title === '' ? '(untitled)' : s.title}</strong>
                        <span class="muted small block">{s.source}</span>
                      </div>
                      <span class="tag bad" title="Noise score (suggested from 1.0)">
                        score {s.score.toFixed(2)}
                      </span>
                    </div>
                    <FeatureBars features={s.features} />
                    {canMark && (
                      <div class="row">
                        <button
                          type="button"
                          disabled={busy === s.doc_id}
                          aria-label={`Mark ${nameOf(s)} as junk`}
                          onClick={() => mark(s.doc_id, true)}
                        >
                          Junk
                        </button>
                        <button
                          type="button"
                          class="quiet"
                          disabled={busy === s.doc_id}
                          aria-label={`Keep ${nameOf(s)}`}
                          onClick={() => mark(s.doc_id, false)}
                        >
                          Keep
                        </button>
                      </div>
                    )}
                  </li>
                ))}
              </ol>
            </>
          ))}
      </section>
      <NoiseBlend token={token} version={version} onChanged={() => setVersion((v) => v + 1)} />
      <section class="card" aria-labelledby="marks-title">
        <h2 id="marks-title">Marks</h2>
        <LoadedTable
          loaded={marks}
          items={(v) => v.marks}
          label="Marks"
          testId="marks"
          loading="Loading the marks…"
          empty="No marks yet."
          head={
            <tr>
              <th scope="col">Document</th>
              <th scope="col">Mark</th>
              {canMark && <th scope="col">Change</th>}
            </tr>
          }
          row={(m) => (
            <tr key={m.doc_id}>
              <th scope="row">
                {m.title === '' ? '(untitled)' : m.title}
                <span class="muted small">{m.source}</span>
              </th>
              <td>
                <span class={`tag ${m.noisy ? 'bad' : 'ok'}`}>{m.noisy ? 'junk' : 'keeper'}</span>
              </td>
              {canMark && (
                <td>
                  <button
                    type="button"
                    class="quiet nowrap"
                    disabled={busy === m.doc_id}
                    aria-label={`${m.noisy ? 'Keep instead' : 'Junk instead'}: ${nameOf(m)}`}
                    onClick={() => mark(m.doc_id, !m.noisy)}
                  >
                    {m.noisy ? 'Keep instead' : 'Junk instead'}
                  </button>
                </td>
              )}
            </tr>
          )}
        />
      </section>
    </div>
  );
}

function nameOf(d: { title: string; source: string }): string {
  return d.title === '' ? d.source : d.title;
}
