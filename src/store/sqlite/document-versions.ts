import { QuiverError } from '../../errors.js';
import type { RollbackResult, WriteDocumentInput, WriteStatus } from '../store.js';
import type { StatementCache } from './connection.js';
import { now, type Row } from './rows.js';
import { ftsColumns } from './fts-columns.js';
import { headingOf } from '../section-fields.js';
import { vectorToBlob } from './vector-blob.js';
import { bumpVectorRevision, countRevert, raiseChunkHighWater } from './vector-revision.js';

/**
 * Versioned document rows (see `schema.ts`): writing a new version supersedes the live one, and
 * rolling a batch back deletes the versions it wrote and revives the ones it superseded. Only live
 * sections are in `sections_fts`, so each change of liveness also indexes or unindexes sections.
 * Every function here runs inside the caller's write transaction unless it says otherwise.
 */

export { headingOf };

/**
 * The id the next inserted chunk must get, or null to let SQLite number it: set once per write
 * transaction from `nextChunkIdFloor` (ids are never reused; see `vector-revision.ts`) and consumed
 * by the first chunk inserted.
 */
export interface ChunkIdFloor {
  next: number | null;
}

/**
 * Write one document: 'unchanged' when the live version has the same content hash (nothing is
 * written), else supersede the live version (if any) and insert the new one with its sections (and
 * their FTS rows), chunks and vectors. `addedAt` carries over from the superseded version.
 */
export function writeDocumentVersion(
  statements: StatementCache,
  input: WriteDocumentInput,
  floor: ChunkIdFloor,
): WriteStatus {
  const stmt = (sql: string) => statements.get(sql);
  const { document: doc, vectors, fingerprint, batchId } = input;
  const existing = stmt(
    'SELECT rid, content_hash, added_at FROM documents WHERE id = ? AND superseded_by IS NULL',
  ).get(doc.id) as Row | undefined;
  if (existing !== undefined && existing.content_hash === doc.contentHash) return 'unchanged';
  if (existing !== undefined) supersede(statements, existing.rid as number, batchId);
  const t = now();
  const rid = stmt(
    `INSERT INTO documents(id, source, title, kind, meta, content_hash, pages, added_at, updated_at, batch_id, lang) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    doc.id,
    doc.source,
    doc.title,
    doc.kind,
    JSON.stringify(doc.meta),
    doc.contentHash,
    doc.pages,
    (existing?.added_at as string | undefined) ?? t,
    t,
    batchId,
    doc.lang ?? null,
  ).lastInsertRowid as number;
  const insSection = stmt(
    `INSERT INTO sections(id, doc_rid, doc_id, parent_id, seq, level, title, breadcrumb, page_start, page_end, text, lang) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insFts = stmt('INSERT INTO sections_fts(rowid, body, title, heading) VALUES (?, ?, ?, ?)');
  for (const s of doc.sections) {
    const srid = insSection.run(
      `${doc.id}#${s.seq}`,
      rid,
      doc.id,
      s.parentSeq === null ? null : `${doc.id}#${s.parentSeq}`,
      s.seq,
      s.level,
      s.title,
      s.breadcrumb,
      s.pageStart,
      s.pageEnd,
      s.text,
      s.lang ?? null,
    ).lastInsertRowid;
    insFts.run(srid, ...ftsColumns(s.text, doc.title, headingOf(s.breadcrumb), s.lang ?? null));
  }
  const insChunk = stmt(
    `INSERT INTO chunks(id, doc_rid, doc_id, section_id, ord, text, page) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const insVec = stmt('INSERT INTO vectors(fingerprint, chunk_id, vector) VALUES (?, ?, ?)');
  doc.chunks.forEach((c, i) => {
    const given = floor.next;
    floor.next = null;
    const id = insChunk.run(given, rid, doc.id, `${doc.id}#${c.sectionSeq}`, c.ord, c.text, c.page)
      .lastInsertRowid as number;
    insVec.run(fingerprint, id, vectorToBlob(vectors[i]!));
  });
  return existing === undefined ? 'added' : 'updated';
}

/**
 * Undo batch `id`: delete the document versions it wrote, revive those it superseded, and mark it
 * rolled back, in one immediate transaction. Every check is made inside that transaction, so two
 * concurrent undos of one batch cannot both succeed: NOT_FOUND when there is no such batch;
 * CONFLICT when it is already rolled back (saying when), when it is still running, or when a newer
 * batch that is not rolled back wrote or superseded documents (roll that one back first). The
 * caller holds the writer slot, so a batch still marked 'running' here belongs to a live writer.
 */
export function revertBatch(statements: StatementCache, id: string): RollbackResult {
  const { db } = statements;
  const stmt = (sql: string) => statements.get(sql);
  const tx = db.transaction(() => {
    const batch = stmt('SELECT status, finished_at FROM batches WHERE id = ?').get(id) as Row | undefined;
    if (batch === undefined) throw new QuiverError('NOT_FOUND', `quiver: no batch ${id}`);
    if (batch.status === 'rolled_back')
      throw new QuiverError(
        'CONFLICT',
        `quiver: batch ${id} is already rolled back (at ${String(batch.finished_at ?? 'an unknown time')}); nothing was changed`,
        { details: { batch: id, status: 'rolled_back' } },
      );
    if (batch.status === 'running')
      throw new QuiverError(
        'CONFLICT',
        `quiver: batch ${id} is still running; wait for it to finish (or stop it), then undo`,
        { details: { batch: id, status: 'running' } },
      );
    const newer = db
      .prepare(
        `SELECT b.id FROM batches b WHERE b.seq > (SELECT seq FROM batches WHERE id = ?) AND b.status != 'rolled_back'
           AND (EXISTS (SELECT 1 FROM documents WHERE batch_id = b.id) OR EXISTS (SELECT 1 FROM documents WHERE superseded_by = b.id))
           ORDER BY b.seq LIMIT 1`,
      )
      .get(id) as Row | undefined;
    if (newer !== undefined) {
      throw new QuiverError(
        'CONFLICT',
        `quiver: batch ${id} is not the newest; roll back ${newer.id as string} first`,
      );
    }
    const written = stmt('SELECT rid FROM documents WHERE batch_id = ?').all(id) as Row[];
    const top = stmt(
      'SELECT MAX(c.id) FROM chunks c JOIN documents d ON d.rid = c.doc_rid WHERE d.batch_id = ?',
    )
      .raw()
      .get(id) as [number | null];
    if (top[0] !== null) raiseChunkHighWater(db, top[0]);
    bumpVectorRevision(db);
    countRevert(db);
    for (const d of written) {
      unindex(statements, d.rid as number);
      stmt('DELETE FROM documents WHERE rid = ?').run(d.rid);
    }
    const revived = stmt('SELECT rid, title FROM documents WHERE superseded_by = ?').all(id) as Row[];
    for (const d of revived) revive(statements, d.rid as number, d.title as string);
    db.prepare(`UPDATE batches SET status = 'rolled_back', finished_at = ? WHERE id = ?`).run(now(), id);
    return { batchId: id, removed: written.length, restored: revived.length };
  });
  return tx.immediate();
}

/**
 * Take live documents out as part of batch `batchId` (their versions are superseded by it, so
 * undoing the batch revives them); ids that are not live are ignored. Returns how many were taken.
 * Runs inside the caller's write transaction.
 */
export function removeDocumentVersions(
  statements: StatementCache,
  batchId: string,
  docIds: readonly string[],
): number {
  const find = statements.get('SELECT rid FROM documents WHERE id = ? AND superseded_by IS NULL');
  let n = 0;
  for (const id of docIds) {
    const r = find.get(id) as Row | undefined;
    if (r === undefined) continue;
    supersede(statements, r.rid as number, batchId);
    n++;
  }
  if (n > 0) bumpVectorRevision(statements.db);
  return n;
}

/** Make a superseded document version live again and put its sections back in the FTS index. */
function revive(statements: StatementCache, rid: number, title: string): void {
  const stmt = (sql: string) => statements.get(sql);
  stmt('UPDATE documents SET superseded_by = NULL WHERE rid = ?').run(rid);
  stmt('UPDATE sections SET live = 1 WHERE doc_rid = ?').run(rid);
  stmt('UPDATE chunks SET live = 1 WHERE doc_rid = ?').run(rid);
  const ins = stmt('INSERT INTO sections_fts(rowid, body, title, heading) VALUES (?, ?, ?, ?)');
  for (const r of stmt('SELECT rid, text, breadcrumb, lang FROM sections WHERE doc_rid = ?').all(
    rid,
  ) as Row[]) {
    ins.run(
      r.rid,
      ...ftsColumns(
        r.text as string,
        title,
        headingOf(r.breadcrumb as string),
        (r.lang as string | null) ?? null,
      ),
    );
  }
}

/** Remove a document version's sections from the FTS index. */
function unindex(statements: StatementCache, rid: number): void {
  const del = statements.get('DELETE FROM sections_fts WHERE rowid = ?');
  for (const r of statements.get('SELECT rid FROM sections WHERE doc_rid = ? AND live = 1').all(rid) as Row[])
    del.run(r.rid);
}

/** Mark the live version `rid` superseded by `batchId`: unindexed, its sections and chunks not live. */
function supersede(statements: StatementCache, rid: number, batchId: string): void {
  const stmt = (sql: string) => statements.get(sql);
  unindex(statements, rid);
  stmt('UPDATE documents SET superseded_by = ? WHERE rid = ?').run(batchId, rid);
  stmt('UPDATE sections SET live = 0 WHERE doc_rid = ?').run(rid);
  stmt('UPDATE chunks SET live = 0 WHERE doc_rid = ?').run(rid);
}
