import type { AddReport } from '../ingest/ingest.js';
import type { DocumentRecord, SectionRecord } from '../types.js';
import type { ReadResult } from '../vault.js';

/** The JSON shape of an ingest report (`quiver add --json`, `POST /v1/documents`). */
export function addJson(report: AddReport): Record<string, unknown> {
  const { batch, items, skipped, removed } = report;
  return {
    batch: batch.added + batch.updated + batch.removed + batch.failed === 0 ? null : batch.id,
    added: batch.added,
    updated: batch.updated,
    unchanged: batch.unchanged,
    removed: batch.removed,
    failed: batch.failed,
    skipped: skipped.length,
    items,
    removed_documents: removed,
    skipped_files: skipped,
  };
}

/** The JSON shape of a document (snake_case). */
export function documentJson(d: DocumentRecord): Record<string, unknown> {
  return {
    id: d.id,
    source: d.source,
    title: d.title,
    kind: d.kind,
    pages: d.pages,
    added_at: d.addedAt,
    updated_at: d.updatedAt,
    batch_id: d.batchId,
    lang: d.lang,
    meta: d.meta,
  };
}

/** The JSON shape of a section read with its subtree (`quiver read --json`, `GET /v1/sections/:id`). */
export function readJson(r: ReadResult): Record<string, unknown> {
  return {
    id: r.section.id,
    doc_id: r.document.id,
    source: r.document.source,
    title: r.section.title,
    breadcrumb: r.section.breadcrumb,
    pages: r.section.pageStart === null ? null : [r.section.pageStart, r.section.pageEnd],
    children: r.children,
    text: r.text,
  };
}

/** A document's outline (`GET /v1/documents/:id/outline`): the document and each section without text. */
export function outlineJson(o: {
  document: DocumentRecord;
  sections: SectionRecord[];
}): Record<string, unknown> {
  return {
    document: documentJson(o.document),
    sections: o.sections.map((s) => ({
      id: s.id,
      parent_id: s.parentId,
      level: s.level,
      title: s.title,
      breadcrumb: s.breadcrumb,
      pages: s.pageStart === null ? null : [s.pageStart, s.pageEnd],
      chars: s.text.length,
    })),
  };
}
