import { randomUUID } from 'node:crypto';
import type { EnqueueJobInput, JobRecord, JobState, ListJobsOptions, WriterClaim } from '../store.js';
import type { StatementCache } from './connection.js';
import { type Row, toJob } from '../records.js';

/**
 * The `jobs` table (schema migration 6): the queue's records. Every state change that must not
 * race another worker (lease, expiry) is one IMMEDIATE transaction, so two processes never hold
 * the same job; the others are single guarded UPDATEs (`WHERE` the caller still holds the lease).
 * Backoff and what counts as permanent are policy, in src/jobs/.
 */

/** `WHERE` fragment: the job is leased by exactly this worker (pid, host and process start). */
const HELD = `id = ? AND state = 'leased' AND worker_pid = ? AND worker_host = ? AND worker_start IS ?`;
const held = (id: string, w: WriterClaim): unknown[] => [id, w.pid, w.host, w.procStart];

export function getJob(statements: StatementCache, id: string): JobRecord | null {
  const r = statements.get('SELECT * FROM jobs WHERE id = ?').get(id) as Row | undefined;
  return r === undefined ? null : toJob(r);
}

export function enqueueJob(statements: StatementCache, input: EnqueueJobInput): JobRecord {
  const key = input.key ?? null;
  return statements.db
    .transaction((): JobRecord => {
      if (key !== null) {
        const live = statements
          .get(`SELECT * FROM jobs WHERE job_key = ? AND state IN ('queued', 'leased')`)
          .get(key) as Row | undefined;
        if (live !== undefined) return toJob(live);
      }
      const id = randomUUID().replace(/-/g, '').slice(0, 16);
      statements
        .get(
          `INSERT INTO jobs(id, kind, payload, job_key, state, attempts, max_attempts, created_at, run_at)
           VALUES (?, ?, ?, ?, 'queued', 0, ?, ?, ?)`,
        )
        .run(
          id,
          input.kind,
          JSON.stringify(input.payload),
          key,
          Math.max(1, input.maxAttempts),
          input.runAt,
          input.runAt,
        );
      return getJob(statements, id)!;
    })
    .immediate();
}

/**
 * Lease the next due job. First, leases whose holder is gone (lease expired, or `isAlive` says the
 * process died) are settled: back to queued, due now, or dead when that was the last attempt (the
 * error says the worker was lost). Then the queued job with the smallest run_at (then oldest) that
 * is due is leased for `leaseMs`.
 */
export function leaseJob(
  statements: StatementCache,
  worker: WriterClaim,
  now: number,
  leaseMs: number,
  isAlive: (w: WriterClaim) => boolean,
  kinds?: readonly string[],
): JobRecord | null {
  return statements.db
    .transaction((): JobRecord | null => {
      const leased = statements.get(`SELECT * FROM jobs WHERE state = 'leased'`).all() as Row[];
      for (const r of leased) {
        const j = toJob(r);
        const expired = (j.leaseUntil ?? 0) <= now;
        if (!expired && j.worker !== null && isAlive(j.worker)) continue;
        const why = `the worker (pid ${j.worker?.pid ?? '?'} on ${j.worker?.host ?? '?'}) was lost during attempt ${j.attempts}`;
        if (j.attempts >= j.maxAttempts)
          statements
            .get(
              `UPDATE jobs SET state = 'dead', lease_until = NULL, last_error = ?, finished_at = ? WHERE id = ? AND state = 'leased'`,
            )
            .run(why, now, j.id);
        else
          statements
            .get(
              `UPDATE jobs SET state = 'queued', run_at = ?, lease_until = NULL, last_error = ? WHERE id = ? AND state = 'leased'`,
            )
            .run(now, why, j.id);
      }
      const kindSql =
        kinds === undefined ? '' : ` AND kind IN (${kinds.map(() => '?').join(', ') || 'NULL'})`;
      const next = statements.db
        .prepare(
          `SELECT id FROM jobs WHERE state = 'queued' AND run_at <= ?${kindSql} ORDER BY run_at, rid LIMIT 1`,
        )
        .get(now, ...(kinds ?? [])) as Row | undefined;
      if (next === undefined) return null;
      statements
        .get(
          `UPDATE jobs SET state = 'leased', attempts = attempts + 1, lease_until = ?, worker_pid = ?, worker_host = ?,
             worker_start = ?, worker_command = ? WHERE id = ?`,
        )
        .run(now + leaseMs, worker.pid, worker.host, worker.procStart, worker.command, next.id);
      return getJob(statements, next.id as string);
    })
    .immediate();
}

export function heartbeatJob(
  statements: StatementCache,
  id: string,
  worker: WriterClaim,
  leaseUntil: number,
  progress?: Record<string, unknown>,
): boolean {
  const sql =
    progress === undefined
      ? `UPDATE jobs SET lease_until = ? WHERE ${HELD}`
      : `UPDATE jobs SET lease_until = ?, progress = ? WHERE ${HELD}`;
  const args = progress === undefined ? [leaseUntil] : [leaseUntil, JSON.stringify(progress)];
  return statements.get(sql).run(...args, ...held(id, worker)).changes > 0;
}

export function ackJob(
  statements: StatementCache,
  id: string,
  worker: WriterClaim,
  result: Record<string, unknown>,
  now: number,
): boolean {
  return (
    statements
      .get(`UPDATE jobs SET state = 'done', lease_until = NULL, result = ?, finished_at = ? WHERE ${HELD}`)
      .run(JSON.stringify(result), now, ...held(id, worker)).changes > 0
  );
}

export function failJob(
  statements: StatementCache,
  id: string,
  worker: WriterClaim,
  error: string,
  retryAt: number | null,
  now: number,
): boolean {
  const r =
    retryAt === null
      ? statements
          .get(
            `UPDATE jobs SET state = 'dead', lease_until = NULL, last_error = ?, finished_at = ? WHERE ${HELD}`,
          )
          .run(error, now, ...held(id, worker))
      : statements
          .get(
            `UPDATE jobs SET state = 'queued', lease_until = NULL, last_error = ?, run_at = ? WHERE ${HELD}`,
          )
          .run(error, retryAt, ...held(id, worker));
  return r.changes > 0;
}

export function releaseJob(
  statements: StatementCache,
  id: string,
  worker: WriterClaim,
  now: number,
): boolean {
  return (
    statements
      .get(
        `UPDATE jobs SET state = 'queued', lease_until = NULL, run_at = ?, attempts = MAX(attempts - 1, 0) WHERE ${HELD}`,
      )
      .run(now, ...held(id, worker)).changes > 0
  );
}

export function listJobs(statements: StatementCache, options: ListJobsOptions = {}): JobRecord[] {
  const where: string[] = [];
  const args: unknown[] = [];
  if (options.state !== undefined) {
    where.push('state = ?');
    args.push(options.state);
  }
  if (options.kind !== undefined) {
    where.push('kind = ?');
    args.push(options.kind);
  }
  const sql = `SELECT * FROM jobs${where.length === 0 ? '' : ` WHERE ${where.join(' AND ')}`} ORDER BY rid DESC LIMIT ?`;
  return (statements.get(sql).all(...args, options.limit ?? 100) as Row[]).map(toJob);
}

/**
 * A dead job back on the queue, attempts from zero, due at `now`. When a live job with the same
 * key was enqueued meanwhile, the dead one stays dead (that live job does the work): false.
 */
export function retryJob(statements: StatementCache, id: string, now: number): boolean {
  return statements.db
    .transaction((): boolean => {
      const j = getJob(statements, id);
      if (j === null || j.state !== 'dead') return false;
      if (j.key !== null) {
        const live = statements
          .get(`SELECT 1 FROM jobs WHERE job_key = ? AND state IN ('queued', 'leased')`)
          .get(j.key);
        if (live !== undefined) return false;
      }
      return (
        statements
          .get(
            `UPDATE jobs SET state = 'queued', attempts = 0, run_at = ?, finished_at = NULL, lease_until = NULL WHERE id = ? AND state = 'dead'`,
          )
          .run(now, id).changes > 0
      );
    })
    .immediate();
}

export function purgeDeadJobs(statements: StatementCache): number {
  return statements.get(`DELETE FROM jobs WHERE state = 'dead'`).run().changes;
}

export function jobCounts(statements: StatementCache): Record<JobState, number> {
  const out: Record<JobState, number> = { queued: 0, leased: 0, done: 0, dead: 0 };
  for (const r of statements.get('SELECT state, COUNT(*) AS n FROM jobs GROUP BY state').all() as Row[])
    out[r.state as JobState] = r.n as number;
  return out;
}
