/**
 * The job queue (write): each job's kind, state, attempts, progress and last error, newest
 * first, with Retry on a dead job (admin) and Refresh (which reloads the whole view).
 */
import { useState } from 'preact/hooks';
import { getJson } from '../api.js';
import { useAllowed } from '../role.js';
import { useJson } from '../use-json.js';
import type { JobJson, JobsJson } from '../wire.js';
import { ErrorNote } from './error-note.js';
import { LoadedTable } from './loaded-table.js';
import { NeedsRole } from './needs-role.js';

const LIMIT = 50;

const STATE_TAG: Record<JobJson['state'], string> = { queued: '', leased: '', done: 'ok', dead: 'bad' };

/** `3 / 10` from a `{done, total}` progress report, else ''. */
function progressLabel(p: JobJson['progress']): string {
  if (p === null) return '';
  const { done, total } = p;
  return typeof done === 'number' && typeof total === 'number' ? `${done} / ${total}` : '';
}

export function JobsList(props: { token: string; version: number; onChanged: () => void }) {
  if (!useAllowed('write'))
    return (
      <section class="card" aria-labelledby="jobs-title">
        <h2 id="jobs-title">Jobs</h2>
        <NeedsRole need="write" what="The job list" />
      </section>
    );
  return <Jobs {...props} />;
}

function Jobs(props: { token: string; version: number; onChanged: () => void }) {
  const { token, version, onChanged } = props;
  const canRetry = useAllowed('admin');
  const loaded = useJson<JobsJson>(`/v1/jobs?limit=${LIMIT}`, token, version);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const retry = (id: string): void => {
    setBusy(id);
    setError(null);
    getJson<JobJson>(`/v1/jobs/${encodeURIComponent(id)}/retry`, token, { method: 'POST' })
      .then(onChanged, setError)
      .finally(() => setBusy(null));
  };
  return (
    <section class="card" aria-labelledby="jobs-title">
      <div class="card-head">
        <h2 id="jobs-title">Jobs</h2>
        <button type="button" class="quiet" onClick={onChanged}>
          Refresh
        </button>
      </div>
      <p class="muted small">
        Uploads, folder ingests and maintenance run as jobs. A job that failed every attempt is dead; Retry
        puts it back on the queue.
      </p>
      {!canRetry && <NeedsRole need="admin" what="Retrying a dead job" />}
      {error !== null && (
        <ErrorNote
          error={error}
          forbidden="Retrying a job needs an admin token; this token’s role is lower."
        />
      )}
      <LoadedTable
        loaded={loaded}
        items={(v) => v.jobs}
        label="Jobs"
        testId="jobs"
        loading="Loading the jobs…"
        empty="No jobs yet."
        forbidden="The job list needs a write or admin token; this token can only read."
        head={
          <tr>
            <th scope="col">Job</th>
            <th scope="col">State</th>
            <th scope="col" class="num">
              Attempts
            </th>
            <th scope="col">Progress</th>
            <th scope="col">Retry</th>
          </tr>
        }
        row={(j) => (
          <tr key={j.id}>
            <th scope="row">
              {j.kind}
              <span class="muted small">{new Date(j.createdAt).toLocaleString()}</span>
              {j.lastError !== null && <span class="small error-text">{j.lastError}</span>}
            </th>
            <td>
              <span class={`tag ${STATE_TAG[j.state]}`}>{j.state}</span>
            </td>
            <td class="num">
              {j.attempts} / {j.maxAttempts}
            </td>
            <td>{progressLabel(j.progress)}</td>
            <td>
              {j.state === 'dead' && canRetry ? (
                <button
                  type="button"
                  class="quiet"
                  disabled={busy === j.id}
                  aria-label={`Retry the dead ${j.kind} job ${j.id}`}
                  onClick={() => retry(j.id)}
                >
                  Retry
                </button>
              ) : (
                <span class="muted">—</span>
              )}
            </td>
          </tr>
        )}
      />
    </section>
  );
}
