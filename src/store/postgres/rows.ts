import type { BatchRecord } from '../../types.js';
import type { FeedbackRecord, JobRecord, JobState, NoiseMark, WriterHolder } from '../store.js';
import type { PgRow } from './connection.js';

/**
 * Row → record converters for the PostgreSQL store, the twins of src/store/sqlite/rows.ts. `pg`
 * returns booleans as booleans, float8 as numbers and text as strings; int8 columns are numbers on a
 * pool made by `createPool` (connection.ts), and {@link num} also accepts the driver's default
 * string form so a converter never depends on how the pool was made.
 */

/** The timestamp the store writes into `*_at` text columns: ISO 8601 UTC. */
export const now = (): string => new Date().toISOString();

/** An int8 (or int4) column's value as a number. */
export function num(v: unknown): number {
  return typeof v === 'number' ? v : Number(v);
}

function numOrNull(v: unknown): number | null {
  return v === null || v === undefined ? null : num(v);
}

const jsonOrNull = (v: unknown): Record<string, unknown> | null =>
  typeof v === 'string' ? (JSON.parse(v) as Record<string, unknown>) : null;

/** A `batches` row → its record (`errors` is parsed from JSON). */
export function toBatch(r: PgRow): BatchRecord {
  return {
    id: r.id as string,
    startedAt: r.started_at as string,
    finishedAt: (r.finished_at as string | null) ?? null,
    status: r.status as BatchRecord['status'],
    label: r.label as string,
    owner:
      r.owner_pid === null || r.owner_pid === undefined
        ? null
        : { pid: num(r.owner_pid), host: (r.owner_host as string | null) ?? '' },
    added: num(r.added),
    updated: num(r.updated),
    unchanged: num(r.unchanged),
    removed: num(r.removed ?? 0),
    failed: num(r.failed),
    errors: JSON.parse(r.errors as string) as BatchRecord['errors'],
  };
}

/** A `feedback` row → its record. */
export function toFeedback(r: PgRow): FeedbackRecord {
  return {
    id: r.id as string,
    at: r.at as string,
    q: r.q as string,
    askId: r.ask_id as string,
    sectionId: (r.section_id as string | null) ?? null,
    docId: (r.doc_id as string | null) ?? null,
    rank: numOrNull(r.rank),
    score: numOrNull(r.score),
    signal: r.signal as string,
    label: num(r.label),
    weight: num(r.weight),
  };
}

/** A `marks` row → its record (only set marks are records: `noisy` is not null). */
export function toMark(r: PgRow): NoiseMark {
  return {
    docId: r.doc_id as string,
    noisy: r.noisy === true,
    reason: (r.reason as string | null) ?? null,
    at: r.at as string,
  };
}

/** The `writer` row → the holder it records. */
export function toHolder(r: PgRow): WriterHolder {
  return {
    pid: num(r.pid),
    host: r.host as string,
    procStart: (r.proc_start as string | null) ?? null,
    command: r.command as string,
    batchId: (r.batch_id as string | null) ?? null,
    startedAt: r.started_at as string,
    heartbeatAt: r.heartbeat_at as string,
  };
}

/** A `jobs` row → its record (payload, progress and result are parsed from JSON). */
export function toJob(r: PgRow): JobRecord {
  const pid = numOrNull(r.worker_pid);
  return {
    id: r.id as string,
    kind: r.kind as string,
    payload: JSON.parse(r.payload as string) as Record<string, unknown>,
    key: (r.job_key as string | null) ?? null,
    state: r.state as JobState,
    attempts: num(r.attempts),
    maxAttempts: num(r.max_attempts),
    createdAt: num(r.created_at),
    runAt: num(r.run_at),
    leaseUntil: numOrNull(r.lease_until),
    worker:
      pid === null
        ? null
        : {
            pid,
            host: r.worker_host as string,
            procStart: (r.worker_start as string | null) ?? null,
            command: (r.worker_command as string | null) ?? '',
          },
    progress: jsonOrNull(r.progress),
    result: jsonOrNull(r.result),
    lastError: (r.last_error as string | null) ?? null,
    finishedAt: numOrNull(r.finished_at),
  };
}
