import { setTimeout as sleep } from 'node:timers/promises';
import { isQuiverError, QuiverError } from '../errors.js';
import { holderAlive, selfClaim } from '../store/liveness.js';
import type { JobRecord, WriterClaim, WriterHolder } from '../store/store.js';
import type { Vault } from '../vault.js';
import { nextRunAt } from './backoff.js';
import { isPermanent, runJob } from './run-job.js';
import { releaseBlobs, uploadBlobs } from './upload-blobs.js';

/**
 * The worker: lease a due job, run it with a heartbeat that keeps the lease, then ack it, or record
 * the failure (retried after exponential backoff with full jitter, or dead after
 * `queue.maxAttempts` or at once when another attempt cannot help). A worker that is killed stops
 * heartbeating; the next worker takes the job over as soon as the dead process is seen gone (same
 * host) or its lease runs out.
 */

export type JobOutcome = 'done' | 'retry' | 'dead' | 'lost';

export interface JobEvent {
  job: JobRecord;
  outcome: JobOutcome;
  result?: Record<string, unknown>;
  error?: string;
  retryAt?: number;
}

export interface WorkerOptions {
  /** Only these kinds (default all). */
  kinds?: readonly string[];
  signal?: AbortSignal;
  /** Told when a job starts and when it ends. */
  onStart?: (job: JobRecord) => void;
  onJob?: (e: JobEvent) => void;
  onProgress?: (job: JobRecord, progress: Record<string, unknown>) => void;
  /** The clock and the jitter source (tests pass their own). */
  now?: () => number;
  random?: () => number;
}

export interface DrainSummary {
  done: number;
  retried: number;
  dead: number;
  lost: number;
}

/** About how long a job that found the writer slot taken waits before it is due again (±50%). */
export const BUSY_PAUSE_MS = 1000;

/**
 * Whether `e` is the writer slot held by another worker at work (`acquireWriter`'s CONFLICT naming
 * a holder that holds a leased job), or by a holder that has let it go since (it finished: the
 * slot is free or another's).
 */
async function busyWithAnotherJob(vault: Vault, e: unknown): Promise<boolean> {
  if (!isQuiverError(e, 'CONFLICT')) return false;
  const holder = e.details.holder as WriterHolder | undefined;
  if (holder === undefined) return false;
  const same = (w: { pid: number; host: string } | null): boolean =>
    w !== null && w.pid === holder.pid && w.host === holder.host;
  const leased = await vault.store.listJobs({ state: 'leased', limit: 1000 });
  if (leased.some((j) => same(j.worker))) return true;
  const now = await vault.store.currentWriter();
  return !(same(now) && now?.startedAt === holder.startedAt);
}

/** Lease and run the next due job; null when none is due. */
export async function runNext(vault: Vault, options: WorkerOptions = {}): Promise<JobEvent | null> {
  const now = options.now ?? Date.now;
  const me: WriterClaim = selfClaim('queue work');
  const leaseMs = vault.config['queue.leaseSeconds'] * 1000;
  const job = await vault.store.leaseJob(me, now(), leaseMs, holderAlive, options.kinds);
  if (job === null) return null;
  options.onStart?.(job);
  const stop = new AbortController();
  const outer = options.signal;
  const onOuter = (): void => stop.abort();
  outer?.addEventListener('abort', onOuter, { once: true });
  let progress: Record<string, unknown> | undefined;
  let lost = false;
  const beat = setInterval(
    () => {
      vault.store
        .heartbeatJob(job.id, me, now() + leaseMs, progress)
        .then((held) => {
          if (!held) {
            lost = true;
            stop.abort();
          }
        })
        .catch(() => undefined);
    },
    Math.max(50, leaseMs / 3),
  );
  beat.unref();
  let event: JobEvent;
  try {
    const result = await runJob(vault, job, {
      signal: stop.signal,
      progress: (p) => {
        progress = p;
        options.onProgress?.(job, p);
      },
    });
    event = (await vault.store.ackJob(job.id, me, result, now()))
      ? { job, outcome: 'done', result }
      : { job, outcome: 'lost' };
  } catch (e) {
    const error = e instanceof Error ? e.message : String(e);
    if (lost) event = { job, outcome: 'lost', error };
    else {
      // A stop asked for by this worker's owner (SIGTERM) gives the job back due now, its
      // attempt not counted: the job did not fail.
      if (outer?.aborted === true && isQuiverError(e, 'ABORTED')) {
        const at = now();
        event = (await vault.store.releaseJob(job.id, me, at))
          ? { job, outcome: 'retry', error, retryAt: at }
          : { job, outcome: 'lost', error };
      } else if (await busyWithAnotherJob(vault, e)) {
        // The writer slot is held by another worker running a job (several servers on one store):
        // the job did not fail, it waits its turn. Given back, due after a pause, its attempt not
        // counted, so N workers never wear a job's attempts out. (A slot held by anything else, a
        // CLI add, is a failed attempt, retried with backoff, as before.)
        const at = now() + Math.round(BUSY_PAUSE_MS * (0.5 + (options.random ?? Math.random)()));
        event = (await vault.store.releaseJob(job.id, me, at))
          ? { job, outcome: 'retry', error, retryAt: at }
          : { job, outcome: 'lost', error };
      } else {
        const retryAt = isPermanent(e)
          ? null
          : nextRunAt(now(), job.attempts, job.maxAttempts, (options.random ?? Math.random)());
        const held = await vault.store.failJob(job.id, me, error, retryAt, now());
        event = !held
          ? { job, outcome: 'lost', error }
          : retryAt === null
            ? { job, outcome: 'dead', error }
            : { job, outcome: 'retry', error, retryAt };
      }
    }
  } finally {
    clearInterval(beat);
    outer?.removeEventListener('abort', onOuter);
  }
  // A dead job keeps its uploads so it can be retried; purging it from the dead letter frees them.
  if (event.outcome === 'done') await releaseBlobs(vault, uploadBlobs(job), job.id);
  options.onJob?.(event);
  return event;
}

/** Run every job due now, one after another, and say what happened (`quiver queue drain`). */
export async function drain(vault: Vault, options: WorkerOptions = {}): Promise<DrainSummary> {
  const summary: DrainSummary = { done: 0, retried: 0, dead: 0, lost: 0 };
  for (;;) {
    if (options.signal?.aborted === true) break;
    const e = await runNext(vault, options);
    if (e === null) break;
    if (e.outcome === 'done') summary.done++;
    else if (e.outcome === 'retry') summary.retried++;
    else if (e.outcome === 'dead') summary.dead++;
    else summary.lost++;
    // A job that failed and is due again at once would loop; drain runs each job once.
    if (e.outcome === 'retry' && (e.retryAt ?? 0) <= (options.now ?? Date.now)()) break;
  }
  return summary;
}

/**
 * Work until `signal` aborts (`quiver queue work`, the server's worker process): run due jobs,
 * and between them look for new ones every `pollMs`.
 */
export async function work(vault: Vault, options: WorkerOptions & { pollMs?: number } = {}): Promise<void> {
  const pollMs = options.pollMs ?? 500;
  while (options.signal?.aborted !== true) {
    let e: JobEvent | null;
    try {
      e = await runNext(vault, options);
    } catch (err) {
      // The vault busy or briefly unreadable: look again after a pause rather than exit.
      if (!(err instanceof QuiverError)) throw err;
      e = null;
    }
    // A job given back because the vault was busy: pause before leasing again, rather than
    // lease (and give back) every other due job while the slot's holder works.
    if (e !== null && !(e.outcome === 'retry' && (e.retryAt ?? 0) > (options.now ?? Date.now)())) continue;
    try {
      await sleep(pollMs, undefined, options.signal === undefined ? {} : { signal: options.signal });
    } catch {
      break;
    }
  }
}
