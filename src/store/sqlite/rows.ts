import type { BatchRecord, ChunkRecord, DocKind, DocumentRecord, SectionRecord } from '../../types.js';
import type { FeedbackRecord } from '../store.js';

/** A row as better-sqlite3 returns it: column name → value. */
export type Row = Record<string, unknown>;

/** The timestamp the store writes into `*_at` columns: ISO 8601 UTC. */
export const now = (): string => new Date().toISOString();

/**
 * The document id in a section id: section ids are `<doc_id>#<seq>` (document-versions.ts), so
 * everything before the last `#`. Lets index-only queries skip reading a row for its doc_id.
 */
export function docIdOfSection(sectionId: string): string {
  return sectionId.slice(0, sectionId.lastIndexOf('#'));
}

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
