import type Database from 'better-sqlite3';
import { docIdOfSection } from './rows.js';
import type { ChunkHit } from '../../types.js';
import { DEFAULT_HNSW_MAX_DELETED_FRACTION, type HnswIndex } from './hnsw-index.js';
import { decodeBlobInto } from './vector-blob.js';
import { allocateScanData, VectorMatrix } from './vector-cache.js';

/**
 * One fingerprint's HNSW index in memory, with the chunk → document/section maps that turn its
 * labels into hits, and the operations that keep it in step with the store's live rows. When to
 * load, reconcile, build or save an entry is decided by `AnnVectorLeg` (`ann-vector-index.ts`).
 */
export interface AnnEntry {
  index: HnswIndex;
  docOf: Map<number, string>;
  sectionOf: Map<number, string>;
  docChunks: Map<string, number>;
  /** Live ids whose vector is zero (never indexed): not refetched on every reconcile. */
  zeros: Set<number>;
  /** Changed since it was last written to its file. */
  dirty: boolean;
}

/** The live chunks with a vector under one fingerprint: `ids[i]` ↔ `docIds[i]` ↔ `sectionIds[i]`. */
export interface LiveRows {
  ids: number[];
  docIds: string[];
  sectionIds: string[];
}

/** Vectors inserted between event-loop yields while reconciling. */
const RECONCILE_BATCH = 512;

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

/** An entry for `index` with empty maps (fill them with {@link fillMaps}), not dirty. */
export function newAnnEntry(index: HnswIndex): AnnEntry {
  return {
    index,
    docOf: new Map(),
    sectionOf: new Map(),
    docChunks: new Map(),
    zeros: new Set(),
    dirty: false,
  };
}

/**
 * FROM/WHERE of the live chunks (`c`) with a vector under the fingerprint bound to `?`, index-only:
 * the partial index of live chunks gives (section_id, id), the unique index (fingerprint,
 * chunk_id) says whether a vector exists, and the document comes from the section id. Reading
 * chunk rows (text inline) instead took ~10× longer on a 13 GiB vault; probing `vectors_chunk`
 * (chunk_id only) reads each vector row for its fingerprint: 145 ms against 11 ms on SciFact.
 */
export const LIVE_VECTOR_CHUNKS = `FROM chunks c INDEXED BY chunks_live_section WHERE c.live = 1
  AND EXISTS (SELECT 1 FROM vectors v INDEXED BY vectors_key WHERE v.fingerprint = ? AND v.chunk_id = c.id)`;

/** The live chunks with a vector under `fingerprint`, without reading the vectors. */
export function liveRows(db: Database.Database, fingerprint: string): LiveRows {
  const rows = db.prepare(`SELECT c.id, c.section_id ${LIVE_VECTOR_CHUNKS}`).raw().all(fingerprint) as [
    number,
    string,
  ][];
  return {
    ids: rows.map((r) => r[0]),
    docIds: rows.map((r) => docIdOfSection(r[1])),
    sectionIds: rows.map((r) => r[1]),
  };
}

/** Replace the entry's maps with those of `rows`. */
export function fillMaps(e: AnnEntry, rows: LiveRows): void {
  e.docOf.clear();
  e.sectionOf.clear();
  e.docChunks.clear();
  rows.ids.forEach((id, i) => {
    const doc = rows.docIds[i]!;
    e.docOf.set(id, doc);
    e.sectionOf.set(id, rows.sectionIds[i]!);
    e.docChunks.set(doc, (e.docChunks.get(doc) ?? 0) + 1);
  });
}

/**
 * Set difference against the live rows: tombstone ids no longer live, insert live ids the index
 * lacks (a revived id is un-deleted in place), refill the maps and stamp the index `rev`. Returns
 * how many ids were removed or added, or null (nothing changed) when the result would hold more
 * than DEFAULT_HNSW_MAX_DELETED_FRACTION tombstones (the caller rebuilds).
 */
export async function reconcileEntry(
  db: Database.Database,
  e: AnnEntry,
  fingerprint: string,
  rev: string,
): Promise<{ changed: number } | null> {
  const rows = liveRows(db, fingerprint);
  const { index } = e;
  const wanted = new Set(rows.ids);
  const missing = rows.ids.filter((id) => !index.has(id) && !e.zeros.has(id));
  const gone = index.labels().filter((l) => !wanted.has(l));
  const live = index.size - gone.length + missing.length;
  const deleted = Math.max(0, index.deletedCount + gone.length - missing.length);
  if (live + deleted > 0 && deleted / (live + deleted) > DEFAULT_HNSW_MAX_DELETED_FRACTION) return null;
  index.remove(gone);
  const get = db.prepare('SELECT vector FROM vectors WHERE fingerprint = ? AND chunk_id = ?').raw();
  for (let start = 0; start < missing.length; start += RECONCILE_BATCH) {
    const part = missing.slice(start, start + RECONCILE_BATCH);
    const data = new Float32Array(part.length * index.dims);
    part.forEach((id, j) => {
      const r = get.get(fingerprint, id) as [Buffer] | undefined;
      if (r !== undefined) decodeBlobInto(r[0], data, j * index.dims);
    });
    index.add(part, data);
    for (const id of part) if (!index.has(id)) e.zeros.add(id);
    if (start + RECONCILE_BATCH < missing.length) await tick();
  }
  for (const z of e.zeros) if (!wanted.has(z)) e.zeros.delete(z);
  fillMaps(e, rows);
  if (index.stamp !== rev || gone.length > 0 || missing.length > 0) e.dirty = true;
  index.stamp = rev;
  return { changed: gone.length + missing.length };
}

/** Exact cosine over the entry's chunks of the allowed documents (vectors read by primary key). */
export function exactSubset(
  db: Database.Database,
  e: AnnEntry,
  q: Float32Array,
  limit: number,
  allow: ReadonlySet<string>,
): ChunkHit[] {
  const ids: number[] = [];
  for (const [id, doc] of e.docOf) if (allow.has(doc)) ids.push(id);
  ids.sort((a, b) => a - b);
  const dims = e.index.dims;
  const data = allocateScanData(ids.length, dims);
  const get = db.prepare('SELECT vector FROM vectors WHERE fingerprint = ? AND chunk_id = ?').raw();
  ids.forEach((id, i) => {
    const r = get.get(e.index.fingerprint, id) as [Buffer] | undefined;
    if (r !== undefined) decodeBlobInto(r[0], data, i * dims);
  });
  const docIds = ids.map((id) => e.docOf.get(id)!);
  const sectionIds = ids.map((id) => e.sectionOf.get(id)!);
  const m = new VectorMatrix(Float64Array.from(ids), docIds, sectionIds, data, dims);
  return m.scan(q, limit).map(({ index, score }) => ({
    chunkId: ids[index]!,
    docId: docIds[index]!,
    sectionId: sectionIds[index]!,
    score,
  }));
}
