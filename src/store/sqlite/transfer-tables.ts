import { QuiverError } from '../../errors.js';
import { exactlyHalf } from '../../math/float16.js';
import type { BatchRecord } from '../../types.js';
import type { DocumentVersion, NoiseMark, ScannedDocumentVersion, VerdictRecord } from '../store.js';
import type { StatementCache } from './connection.js';
import { headingOf } from './document-versions.js';
import { ftsColumns } from './fts-columns.js';
import { type Row, toChunk, toDocument, toSection } from './rows.js';
import { blobToVector, vectorToBlob } from './vector-blob.js';
import {
  bumpVectorRevision,
  CHUNK_HWM_KEY,
  nextChunkIdFloor,
  REVERTS_KEY,
  VECTOR_BREAK_PREFIX,
  VECTOR_REV_KEY,
  VECTOR_REV_LOG_KEY,
} from './vector-revision.js';

/**
 * The SQLite side of moving a vault between backends (`Store.listMeta`, `scanDocumentVersions`,
 * `importDocumentVersions` and the rest; the format is src/transfer/). Reads page by `documents.rid`
 * (write order); each import call is one immediate transaction, so a failed call writes nothing.
 */

/** meta keys that are this store's own bookkeeping, not the vault's state (never exported). */
function isBookkeeping(key: string): boolean {
  return (
    key === VECTOR_REV_KEY ||
    key === VECTOR_REV_LOG_KEY ||
    key === CHUNK_HWM_KEY ||
    key === REVERTS_KEY ||
    key.startsWith(VECTOR_BREAK_PREFIX)
  );
}

export function listMeta(statements: StatementCache): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of statements.get('SELECT key, value FROM meta ORDER BY key').raw().all() as [
    string,
    string,
  ][]) {
    if (!isBookkeeping(k)) out[k] = v;
  }
  return out;
}

export function listBlobNames(statements: StatementCache): string[] {
  return statements.get('SELECT name FROM blobs ORDER BY name').pluck().all() as string[];
}

export function listVerdicts(
  statements: StatementCache,
  after: string | null,
  limit: number,
): VerdictRecord[] {
  const rows = (
    after === null
      ? statements.get('SELECT key, verdict FROM verdicts ORDER BY key LIMIT ?').all(limit)
      : statements
          .get('SELECT key, verdict FROM verdicts WHERE key > ? ORDER BY key LIMIT ?')
          .all(after, limit)
  ) as Row[];
  return rows.map((r) => ({ key: r.key as string, verdict: r.verdict === 1 }));
}

/** Document versions (live and superseded) with `rid > after`, in rid order, with everything they hold. */
export function scanDocumentVersions(
  statements: StatementCache,
  after: number,
  limit: number,
): ScannedDocumentVersion[] {
  const docs = statements
    .get('SELECT * FROM documents WHERE rid > ? ORDER BY rid LIMIT ?')
    .all(after, limit) as Row[];
  const sections = statements.get('SELECT * FROM sections WHERE doc_rid = ? ORDER BY seq');
  const chunks = statements.get('SELECT * FROM chunks WHERE doc_rid = ? ORDER BY id');
  const vectors = statements.get(
    'SELECT v.fingerprint, v.chunk_id, v.vector FROM vectors v JOIN chunks c ON c.id = v.chunk_id WHERE c.doc_rid = ? ORDER BY v.fingerprint, v.chunk_id',
  );
  return docs.map((d) => ({
    position: d.rid as number,
    supersededBy: (d.superseded_by as string | null) ?? null,
    document: toDocument(d),
    sections: (sections.all(d.rid) as Row[]).map(toSection),
    chunks: (chunks.all(d.rid) as Row[]).map(toChunk),
    vectors: (vectors.raw().all(d.rid) as [string, number, Buffer][]).map(([fingerprint, chunkId, v]) => ({
      fingerprint,
      chunkId,
      vector: blobToVector(v),
    })),
  }));
}

function isUniqueViolation(e: unknown): boolean {
  const code = (e as { code?: unknown }).code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** Append batch records as given, oldest first, after the batches already there; one transaction. */
export function importBatches(statements: StatementCache, batches: readonly BatchRecord[]): void {
  const { db } = statements;
  const ins = db.prepare(
    `INSERT INTO batches(id, seq, label, started_at, finished_at, status, added, updated, unchanged, removed, failed, errors, owner_pid, owner_host)
     VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM batches), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  let current = '';
  try {
    db.transaction(() => {
      for (const b of batches) {
        current = b.id;
        ins.run(
          b.id,
          b.label,
          b.startedAt,
          b.finishedAt,
          b.status,
          b.added,
          b.updated,
          b.unchanged,
          b.removed,
          b.failed,
          JSON.stringify(b.errors),
          b.owner?.pid ?? null,
          b.owner?.host ?? null,
        );
      }
    }).immediate();
  } catch (e) {
    if (isUniqueViolation(e))
      throw new QuiverError(
        'CONFLICT',
        `quiver: batch ${current} already exists; nothing of this call was written`,
        {
          cause: e,
        },
      );
    throw e;
  }
}

/**
 * Write document versions as given in one immediate transaction: rows keep their batch, times and
 * superseding batch; live sections go into the FTS index; chunks get new ids (above the high-water
 * mark, as any write); vectors are written under their fingerprints. The vector revision is bumped
 * once. Returns given chunk id → new chunk id.
 */
export function importDocumentVersions(
  statements: StatementCache,
  versions: readonly DocumentVersion[],
): Map<number, number> {
  const { db } = statements;
  const stmt = (sql: string) => statements.get(sql);
  const isLive = stmt('SELECT 1 FROM documents WHERE id = ? AND superseded_by IS NULL');
  const insDoc = stmt(
    `INSERT INTO documents(id, source, title, kind, meta, content_hash, pages, added_at, updated_at, batch_id, superseded_by, lang) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insSection = stmt(
    `INSERT INTO sections(id, doc_rid, doc_id, parent_id, seq, level, title, breadcrumb, page_start, page_end, text, live, lang) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insFts = stmt('INSERT INTO sections_fts(rowid, body, title, heading) VALUES (?, ?, ?, ?)');
  const insChunk = stmt(
    `INSERT INTO chunks(id, doc_rid, doc_id, section_id, ord, text, page, live) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insVec = stmt('INSERT INTO vectors(fingerprint, chunk_id, vector) VALUES (?, ?, ?)');
  return db
    .transaction(() => {
      const ids = new Map<number, number>();
      let floor = nextChunkIdFloor(db);
      for (const v of versions) {
        const d = v.document;
        const live = v.supersededBy === null;
        if (live && isLive.get(d.id) !== undefined)
          throw new QuiverError(
            'CONFLICT',
            `quiver: document ${d.id} (${d.source}) is already in the vault; nothing of this call was written`,
          );
        const rid = insDoc.run(
          d.id,
          d.source,
          d.title,
          d.kind,
          JSON.stringify(d.meta),
          d.contentHash,
          d.pages,
          d.addedAt,
          d.updatedAt,
          d.batchId,
          v.supersededBy,
          d.lang,
        ).lastInsertRowid as number;
        for (const s of v.sections) {
          const srid = insSection.run(
            s.id,
            rid,
            d.id,
            s.parentId,
            s.seq,
            s.level,
            s.title,
            s.breadcrumb,
            s.pageStart,
            s.pageEnd,
            s.text,
            live ? 1 : 0,
            s.lang,
          ).lastInsertRowid;
          if (live) insFts.run(srid, ...ftsColumns(s.text, d.title, headingOf(s.breadcrumb), s.lang));
        }
        for (const c of v.chunks) {
          const given = floor;
          floor = null;
          const id = insChunk.run(given, rid, d.id, c.sectionId, c.ord, c.text, c.page, live ? 1 : 0)
            .lastInsertRowid as number;
          ids.set(c.id, id);
        }
        for (const r of v.vectors) {
          const id = ids.get(r.chunkId);
          if (id === undefined)
            throw new QuiverError(
              'BAD_INPUT',
              `quiver: a vector of document ${d.id} names chunk ${r.chunkId}, which the document does not have`,
            );
          insVec.run(r.fingerprint, id, storedBlob(r.vector));
        }
      }
      if (versions.length > 0) bumpVectorRevision(db);
      return ids;
    })
    .immediate();
}

/**
 * A vector as given, bit for bit: half precision (as every write) when each value is exactly a
 * half, else the single-precision row earlier releases wrote (4 bytes a value; still read), so a
 * vault's float32 rows, or another backend's vectors, come through an import unchanged.
 */
function storedBlob(v: Float32Array): Buffer {
  return exactlyHalf(v) ? vectorToBlob(v) : Buffer.from(new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
}

/** Set noise marks with their own times (replacing a document's earlier mark); one transaction. */
export function importMarks(statements: StatementCache, marks: readonly NoiseMark[]): void {
  const ins = statements.get(
    'INSERT INTO marks(doc_id, noisy, reason, at) VALUES (?, ?, ?, ?) ON CONFLICT(doc_id) DO UPDATE SET noisy = excluded.noisy, reason = excluded.reason, at = excluded.at',
  );
  statements.db
    .transaction(() => {
      for (const m of marks) ins.run(m.docId, m.noisy ? 1 : 0, m.reason, m.at);
    })
    .immediate();
}
