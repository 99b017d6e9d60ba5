import type { BatchRecord, ChunkRecord, DocKind, DocumentRecord, SectionRecord } from '../types.js';
import type { FeedbackRecord, JobRecord, JobState, WriterHolder } from './store.js';

/**
 * Row → record converters shared by every backend: the SQLite and PostgreSQL schemas give these
 * tables the same columns, and both drivers hand back a row as column name → value with integers
 * as numbers (the PostgreSQL pool parses int8, postgres/connection.ts), text as strings and JSON
 * kept as text. What differs stays in the backend (a boolean column: sqlite/quality-tables.ts,
 * postgres/rows.ts).
 */

/** A row as a driver returns it: column name → value. */
export type Row = Record<string, unknown>;

/** The timestamp a store writes into `*_at` text columns: ISO 8601 UTC. */
export const now = (): string => new Date().toISOString();

/** A `documents` row → its record (`meta` is parsed from JSON). */
export function toDocument(r: Row): DocumentRecord {
  return {
    id: r.id as string,
    source: r.source as string,
    title: r.title as string,
    kind: r.kind as DocKind,
    meta: JSON.parse(r.meta as string) as Record<string, unknown>,
    contentHash: r.content_hash as string,
    pages: (r.pages as number | null) ?? null,
    addedAt: r.added_at as string,
    updatedAt: r.updated_at as string,
    batchId: r.batch_id as string,
    lang: (r.lang as string | null) ?? null,
  };
}

/** A `sections` row → its record. */
export function toSection(r: Row): SectionRecord {
  return {
    id: r.id as string,
    docId: r.doc_id as string,
    parentId: (r.parent_id as string | null) ?? null,
    seq: r.seq as number,
    level: r.level as number,
    title: r.title as string,
    breadcrumb: r.breadcrumb as string,
    pageStart: (r.page_start as number | null) ?? null,
    pageEnd: (r.page_end as number | null) ?? null,
    text: r.text as string,
    lang: (r.lang as string | null) ?? null,
  };
}

/** A `chunks` row → its record. */
export function toChunk(r: Row): ChunkRecord {
  return {
    id: r.id as number,
    docId: r.doc_id as string,
    sectionId: r.section_id as string,
    ord: r.ord as number,
    text: r.text as string,
    page: (r.page as number | null) ?? null,
  };
}

/** A `feedback` row → its record. */
export function toFeedback(r: Row): FeedbackRecord {
  return {
    id: r.id as string,
    at: r.at as string,
    q: r.q as string,
    askId: r.ask_id as string,
    sectionId: (r.section_id as string | null) ?? null,
    docId: (r.doc_id as string | null) ?? null,
    rank: (r.rank as number | null) ?? null,
    score: (r.score as number | null) ?? null,
    signal: r.signal as string,
    label: r.label as number,
    weight: r.weight as number,
  };
}

/** A `batches` row → its record (`errors` is parsed from JSON). */
export function toBatch(r: Row): BatchRecord {
  return {
    id: r.id as string,
    startedAt: r.started_at as string,
    finishedAt: (r.finished_at as string | null) ?? null,
    status: r.status as BatchRecord['status'],
    label: r.label as string,
    owner:
      r.owner_pid === null || r.owner_pid === undefined
        ? null
        : { pid: r.owner_pid as number, host: (r.owner_host as string | null) ?? '' },
    added: r.added as number,
    updated: r.updated as number,
    unchanged: r.unchanged as number,
    removed: (r.removed as number | undefined) ?? 0,
    failed: r.failed as number,
    errors: JSON.parse(r.errors as string) as BatchRecord['errors'],
  };
}

/** The `writer` row → the holder it records. */
export function toHolder(r: Row): WriterHolder {
  return {
    pid: r.pid as number,
    host: r.host as string,
    procStart: (r.proc_start as string | null) ?? null,
    command: r.command as string,
    batchId: (r.batch_id as string | null) ?? null,
    startedAt: r.started_at as string,
    heartbeatAt: r.heartbeat_at as string,
  };
}

const JSON_OR_NULL = (v: unknown): Record<string, unknown> | null =>
  typeof v === 'string' ? (JSON.parse(v) as Record<string, unknown>) : null;

/** A `jobs` row → its record (payload, progress and result are parsed from JSON). */
export function toJob(r: Row): JobRecord {
  const pid = r.worker_pid as number | null;
  return {
    id: r.id as string,
    kind: r.kind as string,
    payload: JSON.parse(r.payload as string) as Record<string, unknown>,
    key: (r.job_key as string | null) ?? null,
    state: r.state as JobState,
    attempts: r.attempts as number,
    maxAttempts: r.max_attempts as number,
    createdAt: r.created_at as number,
    runAt: r.run_at as number,
    leaseUntil: (r.lease_until as number | null) ?? null,
    worker:
      pid === null
        ? null
        : {
            pid,
            host: r.worker_host as string,
            procStart: (r.worker_start as string | null) ?? null,
            command: (r.worker_command as string | null) ?? '',
          },
    progress: JSON_OR_NULL(r.progress),
    result: JSON_OR_NULL(r.result),
    lastError: (r.last_error as string | null) ?? null,
    finishedAt: (r.finished_at as number | null) ?? null,
  };
}
