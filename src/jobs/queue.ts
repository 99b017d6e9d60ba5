import { hostname } from 'node:os';
import { QuiverError } from '../errors.js';
import type { JobRecord, JobState, ListJobsOptions } from '../store/store.js';
import type { Vault } from '../vault.js';
import { enqueue } from './enqueue.js';
import type { JobKind, PayloadOf } from './job-kinds.js';
import { releaseBlobs, uploadBlobs } from './upload-blobs.js';

/**
 * The queue as the faces use it (`quiver queue`, `/v1/jobs`, MCP): a vault in, records out, with
 * the vault's `queue.maxAttempts`. The faces never reach into the store for jobs themselves.
 */

export const JOB_STATES: readonly JobState[] = ['queued', 'leased', 'done', 'dead'];

export function submitJob<K extends JobKind>(
  vault: Vault,
  kind: K,
  payload: PayloadOf[K],
): Promise<JobRecord> {
  return enqueue(vault.store, kind, payload, { maxAttempts: vault.config['queue.maxAttempts'] });
}

export function listJobs(vault: Vault, options: ListJobsOptions = {}): Promise<JobRecord[]> {
  return vault.store.listJobs(options);
}

export function jobCounts(vault: Vault): Promise<Record<JobState, number>> {
  return vault.store.jobCounts();
}

/** One job by its id or an unambiguous prefix of it (ids are 16 hex digits; lists show 12). */
export async function findJob(vault: Vault, ref: string, state?: JobState): Promise<JobRecord> {
  if (!/^[0-9a-f]{4,16}$/.test(ref))
    throw new QuiverError('BAD_INPUT', `quiver: a job id is 4 to 16 hex digits, got ${JSON.stringify(ref)}`);
  const exact = await vault.store.getJob(ref);
  if (exact !== null && (state === undefined || exact.state === state)) return exact;
  const all = await vault.store.listJobs({ limit: 100_000, ...(state === undefined ? {} : { state }) });
  const matches = all.filter((j) => j.id.startsWith(ref));
  if (matches.length === 0)
    throw new QuiverError(
      'NOT_FOUND',
      `quiver: no ${state ?? ''}${state === undefined ? '' : ' '}job ${ref}`,
    );
  if (matches.length > 1)
    throw new QuiverError('BAD_INPUT', `quiver: ${ref} names ${matches.length} jobs; give more of the id`);
  return matches[0]!;
}

/** A dead job back on the queue (attempts start again); CONFLICT when a live job already does its work. */
export async function retryDeadJob(vault: Vault, ref: string): Promise<JobRecord> {
  const job = await findJob(vault, ref, 'dead');
  if (!(await vault.store.retryJob(job.id, Date.now())))
    throw new QuiverError(
      'CONFLICT',
      `quiver: job ${job.id} is not dead, or a live job with the same input exists`,
    );
  return (await vault.store.getJob(job.id))!;
}

/** Empty the dead letter; the uploads only dead jobs kept go with them. Returns how many jobs. */
export async function purgeDeadJobs(vault: Vault): Promise<number> {
  const dead = await vault.store.listJobs({ state: 'dead', kind: 'ingest', limit: 100_000 });
  const n = await vault.store.purgeDeadJobs();
  await releaseBlobs(vault, dead.flatMap(uploadBlobs));
  return n;
}

/**
 * Stop a job that this process's worker is running, for good: it is recorded dead with `reason`
 * (a client cancelled it; another attempt would not help), so the worker loses its lease and
 * stops after the item in hand. A job leased by another process, or not running, is left alone.
 */
export async function cancelOwnJob(
  vault: Vault,
  id: string,
  reason = 'quiver: cancelled by the client',
): Promise<void> {
  const j = await vault.store.getJob(id);
  const w = j?.worker;
  if (j?.state !== 'leased' || w === null || w === undefined) return;
  if (w.pid !== process.pid || w.host !== hostname()) return;
  await vault.store.failJob(id, w, reason, null, Date.now());
}
