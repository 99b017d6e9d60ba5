/**
 * The fitted noise blend: whether suggestions use it or the fixed weights, when it was fitted and
 * on how many marks, its weights; Fit (admin) learns it from the marks and saves it, Use switches
 * suggestions to it or back. A fit the marks cannot support yet (no junk or no keeper) shows the
 * server's message, which says what is missing.
 */
import { useState } from 'preact/hooks';
import { getJson } from '../api.js';
import { useAllowed } from '../role.js';
import { useJson } from '../use-json.js';
import type { NoiseFitJson, RankerInfoJson } from '../wire.js';
import { ErrorNote } from './error-note.js';
import { NeedsRole } from './needs-role.js';

export function NoiseBlend(props: { token: string; version: number; onChanged: () => void }) {
  const { token, version, onChanged } = props;
  const info = useJson<RankerInfoJson>('/v1/ranker', token, version);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [said, setSaid] = useState('');
  const canFit = useAllowed('admin');
  const post = <T,>(path: string, body: unknown, then: (r: T) => string): void => {
    setBusy(true);
    setError(null);
    setSaid('');
    getJson<T>(path, token, { body })
      .then((r) => {
        setSaid(then(r));
        onChanged();
      }, setError)
      .finally(() => setBusy(false));
  };
  const noise = info.state === 'ok' ? info.value.noise : null;
  const weights = noise === null ? [] : Object.entries(noise.weights).slice(0, 6);
  return (
    <section class="card" aria-labelledby="blend-title" data-testid="noise-blend">
      <h2 id="blend-title">Fitted blend</h2>
      <p class="muted small">
        Suggestions score documents with fixed feature weights until a blend is fitted to your marks (at least
        one junk and one keeper) and switched on.
      </p>
      {info.state === 'loading' && <p class="muted">Loading…</p>}
      {info.state === 'failed' && <ErrorNote error={info.error} />}
      {noise !== null && (
        <>
          <p data-testid="blend-state">
            Suggestions use <strong>{noise.on ? 'the fitted blend' : 'the fixed weights'}</strong>
            {noise.fitted_at === null
              ? '; no blend fitted yet.'
              : `; a blend was fitted ${new Date(noise.fitted_at).toLocaleString()}.`}
          </p>
          {weights.length > 0 && (
            <ul class="blend-weights small" aria-label="Strongest weights of the fitted blend">
              {weights.map(([name, w]) => (
                <li key={name}>
                  <code>{name}</code> {w >= 0 ? '+' : '−'}
                  {Math.abs(w).toFixed(2)}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
      {said !== '' && (
        <p class="note" role="status">
          {said}
        </p>
      )}
      {error !== null && <ErrorNote error={error} />}
      {canFit ? (
        <div class="row">
          <button
            type="button"
            disabled={busy}
            onClick={() =>
              post<NoiseFitJson>(
                '/v1/noise/fit',
                { save: true },
                (r) => `Blend fitted on ${r.labelled} marked documents and saved.`,
              )
            }
          >
            Fit to the marks
          </button>
          {noise !== null && noise.fitted_at !== null && (
            <button
              type="button"
              class="quiet"
              disabled={busy}
              aria-pressed={noise.on}
              onClick={() =>
                post<{ noise_on: boolean }>('/v1/noise/use', { on: !noise.on }, (r) =>
                  r.noise_on
                    ? 'Suggestions now use the fitted blend.'
                    : 'Suggestions now use the fixed weights.',
                )
              }
            >
              {noise.on ? 'Use the fixed weights' : 'Use the fitted blend'}
            </button>
          )}
        </div>
      ) : (
        <NeedsRole need="admin" what="Fitting and switching the blend" />
      )}
    </section>
  );
}
