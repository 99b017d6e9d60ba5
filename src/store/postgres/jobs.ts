import { randomUUID } from 'node:crypto';
import { QuiverError } from '../../errors.js';
import type { EnqueueJobInput, JobRecord, JobState, ListJobsOptions, WriterClaim } from '../store.js';
import { type PgRow, pgError, type Queryable, rows, run } from './connection.js';
import { num, toJob } from './rows.js';

/**
 * The `jobs` table: the queue's records, shared by every server on the database. The PostgreSQL
 * twin of src/store/sqlite/jobs.ts, with the same states and guards, made safe across processes:
 * - enqueue relies on the partial unique index `jobs_live_key` (one queued or leased job per key):
 *   an insert that meets a live job of its key does nothing, and that job is returned;
 * - lease takes the next due job with `FOR UPDATE SKIP LOCKED`, so concurrent lessees never wait
 *   on each other and never take the same job;
 * - settling a lost lease (expired, or its worker judged gone) is an UPDATE guarded by the lease as
 *   it was read, so a worker's heartbeat in between wins and a healthy lease is never taken;
 * - every other change is one UPDATE `WHERE` the caller still holds the lease (pid, host, start).
 * Backoff and what counts as permanent are policy, in src/jobs/.
 */

/** `WHERE` fragment from $n on: the job is leased by exactly this worker (pid, host and process start). */
const held = (n: number): string =>
  `id = $${n} AND state = 'leased' AND worker_pid = $${n + 1} AND worker_host = $${n + 2} AND worker_start IS NOT DISTINCT FROM $${n + 3}`;
const heldArgs = (id: string, w: WriterClaim): unknown[] => [id, w.pid, w.host, w.procStart];

const LIVE = `state IN ('queued', 'leased')`;

/** Inserts `enqueueJob` tries while the live job of its key keeps finishing before it is read. */
const ENQUEUE_TRIES = 10;

/** A job by id, or null. */
export async function getJob(db: Queryable, id: string): Promise<JobRecord | null> {
  const r = await rows(db, 'read job', 'SELECT * FROM jobs WHERE id = $1', [id]);
  return r[0] === undefined ? null : toJob(r[0]);
}

/**
 * A new queued job, or the live (queued or leased) job that already has `input.key`, unchanged.
 * Race-free across processes: the insert does nothing when it meets a live job of the key (the
 * unique index waits for a concurrent insert to commit or roll back); should that job finish before
 * it is read, the insert is tried again.
 */
export async function enqueueJob(db: Queryable, input: EnqueueJobInput): Promise<JobRecord> {
  const key = input.key ?? null;
  for (let attempt = 1; ; attempt++) {
    const id = randomUUID().replace(/-/g, '').slice(0, 16);
    const inserted = await rows(
      db,
      'enqueue job',
      `INSERT INTO jobs(id, kind, payload, job_key, state, attempts, max_attempts, created_at, run_at)
       VALUES ($1, $2, $3, $4, 'queued', 0, $5, $6, $6)
       ON CONFLICT (job_key) WHERE job_key IS NOT NULL AND ${LIVE} DO NOTHING
       RETURNING *`,
      [id, input.kind, JSON.stringify(input.payload), key, Math.max(1, input.maxAttempts), input.runAt],
    );
    if (inserted[0] !== undefined) return toJob(inserted[0]);
    const live = await rows(db, 'enqueue job', `SELECT * FROM jobs WHERE job_key = $1 AND ${LIVE}`, [key]);
    if (live[0] !== undefined) return toJob(live[0]);
    if (attempt === ENQUEUE_TRIES)
      throw new QuiverError(
        'CONFLICT',
        `quiver: job key ${key} kept meeting a live job that was gone when read (${ENQUEUE_TRIES} tries); try again`,
      );
  }
}

/**
 * Lease the next due job. First, leases whose holder is gone (lease expired, or `isAlive` says the
 * process died) are settled: back to queued, due now, or dead when that was the last attempt (the
 * error says the worker was lost). Then the queued job with the smallest run_at (then oldest) that
 * is due, of one of `kinds` when given, is leased for `leaseMs`; jobs another lessee is taking at
 * this moment are skipped, never waited for.
 */
export async function leaseJob(
  db: Queryable,
  worker: WriterClaim,
  now: number,
  leaseMs: number,
  isAlive: (w: WriterClaim) => boolean,
  kinds?: readonly string[],
): Promise<JobRecord | null> {
  await settleLostLeases(db, now, isAlive);
  if (kinds !== undefined && kinds.length === 0) return null;
  const params: unknown[] = [now, now + leaseMs, worker.pid, worker.host, worker.procStart, worker.command];
  let kindSql = '';
  if (kinds !== undefined) {
    params.push([...kinds]);
    kindSql = ' AND kind = ANY($7::text[])';
  }
  const leased = await rows(
    db,
    'lease job',
    `UPDATE jobs SET state = 'leased', attempts = attempts + 1, lease_until = $2, worker_pid = $3, worker_host = $4,
       worker_start = $5, worker_command = $6
     WHERE state = 'queued' AND rid = (SELECT rid FROM jobs WHERE state = 'queued' AND run_at <= $1${kindSql}
                  ORDER BY run_at, rid LIMIT 1 FOR UPDATE SKIP LOCKED)
     RETURNING *`,
    params,
  );
  return leased[0] === undefined ? null : toJob(leased[0]);
}

/**
 * Leased jobs whose lease expired by `now` or whose worker `isAlive` judges gone: back to queued
 * (due now) or, on their last attempt, dead. Each update applies only if the lease is still the one
 * read (same worker, deadline and attempt), so a heartbeat or another lessee's settling in between
 * leaves it alone. One read and at most one write.
 */
/** What settling reads of a leased job (not its payload): enough to judge the lease and guard the update. */
type Lease = Pick<JobRecord, 'id' | 'attempts' | 'maxAttempts' | 'leaseUntil' | 'worker'>;

function toLease(r: PgRow): Lease {
  return {
    id: r.id as string,
    attempts: num(r.attempts),
    maxAttempts: num(r.max_attempts),
    leaseUntil: r.lease_until === null ? null : num(r.lease_until),
    worker:
      r.worker_pid === null
        ? null
        : {
            pid: num(r.worker_pid),
            host: r.worker_host as string,
            procStart: (r.worker_start as string | null) ?? null,
            command: (r.worker_command as string | null) ?? '',
          },
  };
}

async function settleLostLeases(
  db: Queryable,
  now: number,
  isAlive: (w: WriterClaim) => boolean,
): Promise<void> {
  const leased = (
    await rows(
      db,
      'lease job',
      `SELECT id, attempts, max_attempts, lease_until, worker_pid, worker_host, worker_start, worker_command
       FROM jobs WHERE state = 'leased'`,
    )
  ).map(toLease);
  const lost = leased.filter((j) => (j.leaseUntil ?? 0) <= now || j.worker === null || !isAlive(j.worker));
  if (lost.length === 0) return;
  const col = <T>(f: (j: Lease) => T): T[] => lost.map(f);
  await run(
    db,
    'lease job',
    `UPDATE jobs SET
       state = CASE WHEN s.dead THEN 'dead' ELSE 'queued' END,
       run_at = CASE WHEN s.dead THEN jobs.run_at ELSE $1 END,
       finished_at = CASE WHEN s.dead THEN $1 ELSE jobs.finished_at END,
       lease_until = NULL,
       last_error = s.why
     FROM unnest($2::text[], $3::text[], $4::boolean[], $5::bigint[], $6::integer[], $7::integer[])
       AS s(id, why, dead, lease_until, attempts, worker_pid)
     WHERE jobs.id = s.id AND jobs.state = 'leased' AND jobs.attempts = s.attempts
       AND jobs.lease_until IS NOT DISTINCT FROM s.lease_until AND jobs.worker_pid IS NOT DISTINCT FROM s.worker_pid`,
    [
      now,
      col((j) => j.id),
      col(
        (j) =>
          `the worker (pid ${j.worker?.pid ?? '?'} on ${j.worker?.host ?? '?'}) was lost during attempt ${j.attempts}`,
      ),
      col((j) => j.attempts >= j.maxAttempts),
      col((j) => j.leaseUntil),
      col((j) => j.attempts),
      col((j) => j.worker?.pid ?? null),
    ],
  );
}

/** Extend the lease (and store progress) while `worker` holds it; false when it no longer does. */
export async function heartbeatJob(
  db: Queryable,
  id: string,
  worker: WriterClaim,
  leaseUntil: number,
  progress?: Record<string, unknown>,
): Promise<boolean> {
  const changed =
    progress === undefined
      ? await run(db, 'heartbeat job', `UPDATE jobs SET lease_until = $1 WHERE ${held(2)}`, [
          leaseUntil,
          ...heldArgs(id, worker),
        ])
      : await run(db, 'heartbeat job', `UPDATE jobs SET lease_until = $1, progress = $2 WHERE ${held(3)}`, [
          leaseUntil,
          JSON.stringify(progress),
          ...heldArgs(id, worker),
        ]);
  return changed > 0;
}

/** Finish a held job as done with its result; false when the lease was lost. */
export async function ackJob(
  db: Queryable,
  id: string,
  worker: WriterClaim,
  result: Record<string, unknown>,
  now: number,
): Promise<boolean> {
  return (
    (await run(
      db,
      'ack job',
      `UPDATE jobs SET state = 'done', lease_until = NULL, result = $1, finished_at = $2 WHERE ${held(3)}`,
      [JSON.stringify(result), now, ...heldArgs(id, worker)],
    )) > 0
  );
}

/**
 * Record a failed attempt of a held job: back to queued at `retryAt`, or dead (finished at `now`)
 * when `retryAt` is null; the error is kept. False when the lease was lost.
 */
export async function failJob(
  db: Queryable,
  id: string,
  worker: WriterClaim,
  error: string,
  retryAt: number | null,
  now: number,
): Promise<boolean> {
  const changed =
    retryAt === null
      ? await run(
          db,
          'fail job',
          `UPDATE jobs SET state = 'dead', lease_until = NULL, last_error = $1, finished_at = $2 WHERE ${held(3)}`,
          [error, now, ...heldArgs(id, worker)],
        )
      : await run(
          db,
          'fail job',
          `UPDATE jobs SET state = 'queued', lease_until = NULL, last_error = $1, run_at = $2 WHERE ${held(3)}`,
          [error, retryAt, ...heldArgs(id, worker)],
        );
  return changed > 0;
}

/** Give a held job back unfinished, due at `now`, its attempt given back; false when the lease was lost. */
export async function releaseJob(
  db: Queryable,
  id: string,
  worker: WriterClaim,
  now: number,
): Promise<boolean> {
  return (
    (await run(
      db,
      'release job',
      `UPDATE jobs SET state = 'queued', lease_until = NULL, run_at = $1, attempts = GREATEST(attempts - 1, 0)
       WHERE ${held(2)}`,
      [now, ...heldArgs(id, worker)],
    )) > 0
  );
}

/** Jobs newest first, filtered by state and kind; 100 by default. */
export async function listJobs(db: Queryable, options: ListJobsOptions = {}): Promise<JobRecord[]> {
  const where: string[] = [];
  const params: unknown[] = [options.limit ?? 100];
  if (options.state !== undefined) {
    params.push(options.state);
    where.push(`state = $${params.length}`);
  }
  if (options.kind !== undefined) {
    params.push(options.kind);
    where.push(`kind = $${params.length}`);
  }
  const sql = `SELECT * FROM jobs${where.length === 0 ? '' : ` WHERE ${where.join(' AND ')}`} ORDER BY rid DESC LIMIT $1`;
  return (await rows(db, 'list jobs', sql, params)).map(toJob);
}

/**
 * A dead job back on the queue, attempts from zero, due at `now`. When a live job with the same
 * key exists (or is enqueued at this moment: the unique index refuses the update), the dead one
 * stays dead, since that live job does the work: false.
 */
export async function retryJob(db: Queryable, id: string, now: number): Promise<boolean> {
  try {
    const r = await db.query(
      `UPDATE jobs SET state = 'queued', attempts = 0, run_at = $2, finished_at = NULL, lease_until = NULL
       WHERE id = $1 AND state = 'dead'
         AND (job_key IS NULL OR NOT EXISTS (SELECT 1 FROM jobs l WHERE l.job_key = jobs.job_key AND l.state IN ('queued', 'leased')))`,
      [id, now],
    );
    return (r.rowCount ?? 0) > 0;
  } catch (e) {
    if ((e as { code?: unknown }).code === '23505') return false;
    throw pgError(e, 'retry job');
  }
}

/** Delete dead jobs; how many. */
export async function purgeDeadJobs(db: Queryable): Promise<number> {
  return run(db, 'purge dead jobs', `DELETE FROM jobs WHERE state = 'dead'`);
}

/** Counts per state. */
export async function jobCounts(db: Queryable): Promise<Record<JobState, number>> {
  const out: Record<JobState, number> = { queued: 0, leased: 0, done: 0, dead: 0 };
  for (const r of await rows<{ state: JobState; n: unknown }>(
    db,
    'count jobs',
    'SELECT state, COUNT(*) AS n FROM jobs GROUP BY state',
  ))
    out[r.state] = num(r.n);
  return out;
}
