import { setTimeout as sleep } from 'node:timers/promises';
import { QuiverError } from '../errors.js';
import type { IngestPayload } from '../jobs/job-kinds.js';
import { cancelOwnJob, findJob, submitJob } from '../jobs/queue.js';
import { runNext } from '../jobs/worker.js';
import type { JobRecord } from '../store/store.js';
import type { Vault } from '../vault.js';

/** How often a job another worker runs is looked at (as `GET /v1/jobs/:id/events` does). */
const FOLLOW_MS = 250;

/** What the MCP `add` tool is told while its job runs. */
export interface AddJobOptions {
  /** Aborted when the client cancels the call: the job is stopped (dead, "cancelled by the client"). */
  signal: AbortSignal;
  /** Documents done of total, and the one just done. */
  onProgress: (done: number, total: number | undefined, source: string) => void;
}

const isFinal = (j: JobRecord): boolean => j.state === 'done' || j.state === 'dead';

/**
 * An ingest as a queue job, as `POST /v1/documents` makes one (`submitJob`: the same record, the
 * same idempotence key, listed by `quiver queue list` and `/v1/jobs`), run at once by this process
 * as the queue's worker (`runNext`, which also runs any ingest queued before it) so the call ends
 * with the job's result. When another worker (`quiver serve`'s) took the job first, the call
 * follows it instead. Cancelling stops a job this process runs: it is recorded dead with the
 * reason, the document in hand is finished and the batch marked interrupted (undoable); a job
 * another worker runs goes on there. An attempt that fails and is queued again for a retry ends
 * the call with CONFLICT (the queue retries it later; calling again with the same input waits for
 * that same job).
 */
export async function addAsJob(
  vault: Vault,
  payload: IngestPayload,
  options: AddJobOptions,
): Promise<JobRecord> {
  const { signal } = options;
  const job = await submitJob(vault, 'ingest', payload);
  const stop = new AbortController();
  const cancel = (): void => {
    void cancelOwnJob(vault, job.id).finally(() => stop.abort());
  };
  signal.addEventListener('abort', cancel, { once: true });
  try {
    for (;;) {
      const now = await findJob(vault, job.id);
      if (isFinal(now)) return now;
      if (stop.signal.aborted) throw new QuiverError('ABORTED', `quiver: add cancelled (job ${job.id})`);
      const ran = await runNext(vault, {
        kinds: ['ingest'],
        signal: stop.signal,
        onProgress: (j, p) => {
          if (j.id === job.id) report(options, p);
        },
      });
      // A failed attempt goes back on the queue with a backoff: say so rather than wait it out.
      if (ran?.job.id === job.id && ran.outcome === 'retry' && !stop.signal.aborted)
        throw new QuiverError(
          'CONFLICT',
          `quiver: add job ${job.id} failed (${ran.error ?? 'no message'}) and is queued again for ${new Date(ran.retryAt ?? Date.now()).toISOString()}`,
        );
      if (ran !== null) continue;
      // Nothing due: another worker holds it, or it waits for its retry time. Follow it to its end.
      if (now.progress !== null) report(options, now.progress);
      await sleep(FOLLOW_MS, undefined, { signal: stop.signal }).catch(() => undefined);
    }
  } finally {
    signal.removeEventListener('abort', cancel);
  }
}

function report(options: AddJobOptions, p: Record<string, unknown>): void {
  const done = typeof p.done === 'number' ? p.done : 0;
  const total = typeof p.total === 'number' ? p.total : undefined;
  options.onProgress(done, total, typeof p.source === 'string' ? p.source : '');
}
