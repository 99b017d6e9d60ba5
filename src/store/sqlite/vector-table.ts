import type { StatementCache } from './connection.js';
import { blobDims, blobToVector, decodeBlobInto, vectorToBlob } from './vector-blob.js';
import { allocateScanData, VectorMatrix } from './vector-cache.js';
import { bumpVectorRevision } from './vector-revision.js';

/**
 * The `vectors` table: vector BLOBs (`vector-blob.ts`) keyed by (embedder fingerprint, chunk id). Writes bump the
 * vector revision (`vector-revision.ts`) in the same transaction, so ANN index files can tell
 * whether they are current.
 */

/**
 * Insert or overwrite vectors in one immediate transaction. Overwriting an existing vector records
 * a break for `fingerprint` (an ANN index cannot then be reconciled by chunk-id difference).
 */
export function putVectorRows(
  statements: StatementCache,
  fingerprint: string,
  rows: readonly { chunkId: number; vector: Float32Array }[],
): void {
  const ins = statements.get(
    'INSERT INTO vectors(fingerprint, chunk_id, vector) VALUES (?, ?, ?) ON CONFLICT(fingerprint, chunk_id) DO UPDATE SET vector = excluded.vector',
  );
  const has = statements.get('SELECT 1 FROM vectors WHERE fingerprint = ? AND chunk_id = ?');
  const { db } = statements;
  db.transaction(() => {
    let overwrote = false;
    for (const r of rows) {
      if (!overwrote && has.get(fingerprint, r.chunkId) !== undefined) overwrote = true;
      ins.run(fingerprint, r.chunkId, vectorToBlob(r.vector));
    }
    if (rows.length > 0) bumpVectorRevision(db, overwrote ? fingerprint : undefined);
  }).immediate();
}

/** Delete every vector of `fingerprint` (recorded as a break); returns how many rows went. */
export function deleteVectorRows(statements: StatementCache, fingerprint: string): number {
  const { db } = statements;
  return db
    .transaction(() => {
      const changes = statements.get('DELETE FROM vectors WHERE fingerprint = ?').run(fingerprint).changes;
      bumpVectorRevision(db, fingerprint);
      return changes;
    })
    .immediate();
}

/** Stored vectors of the given chunks under one fingerprint, read by primary key 500 at a time. */
export function readChunkVectors(
  statements: StatementCache,
  chunkIds: readonly number[],
  fingerprint: string,
): Map<number, Float32Array> {
  const out = new Map<number, Float32Array>();
  const ids = [...new Set(chunkIds)];
  for (let i = 0; i < ids.length; i += 500) {
    const part = ids.slice(i, i + 500);
    // Prepared afresh: the list length varies, and caching each length would keep up to 500.
    const rows = statements.db
      .prepare(
        `SELECT chunk_id, vector FROM vectors WHERE fingerprint = ? AND chunk_id IN (${part.map(() => '?').join(',')})`,
      )
      .raw()
      .all(fingerprint, ...part) as [number, Buffer][];
    for (const [id, v] of rows) out.set(id, blobToVector(v));
  }
  return out;
}

/** Every live chunk's vector under `fingerprint`, by chunk id, as one matrix for the exact scan. */
export function loadVectorMatrix(statements: StatementCache, fingerprint: string): VectorMatrix {
  const rows = statements
    .get(
      // The unique (fingerprint, chunk_id) index gives chunk order, so no sort in a temp B-tree.
      'SELECT c.id, c.doc_id, c.section_id, v.vector FROM vectors v INDEXED BY vectors_key JOIN chunks c ON c.id = v.chunk_id WHERE v.fingerprint = ? AND c.live = 1 ORDER BY v.chunk_id',
    )
    .raw()
    .all(fingerprint) as [number, string, string, Buffer][];
  const dims = rows[0] === undefined ? 0 : blobDims(rows[0][3].byteLength);
  const ids = new Float64Array(rows.length);
  const docIds: string[] = new Array<string>(rows.length);
  const sectionIds: string[] = new Array<string>(rows.length);
  const data = allocateScanData(rows.length, dims);
  rows.forEach((r, i) => {
    ids[i] = r[0];
    docIds[i] = r[1];
    sectionIds[i] = r[2];
    decodeBlobInto(r[3], data, i * dims);
  });
  return new VectorMatrix(ids, docIds, sectionIds, data, dims);
}
