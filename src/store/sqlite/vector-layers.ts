import type { StatementCache } from './connection.js';
import { LIVE_VECTOR_CHUNKS } from './ann-entry.js';
import { docIdOfSection } from './rows.js';
import { allocateScanData, VectorMatrix } from './vector-cache.js';
import {
  isReconcilable,
  readVectorBreak,
  readVectorRevision,
  readVectorRevisionLog,
} from './vector-revision.js';
import { loadVectorMatrix, readChunkVectors } from './vector-table.js';

/**
 * The exact scan's vectors for one fingerprint as a base matrix plus what changed since it was
 * loaded, so that a reader whose vault another process is writing to does not decode every vector
 * again after each of the writer's commits (a 5,000-note ingest commits dozens of times; each full
 * reload of SciFact's 18,760 vectors blocked searches for 0.4–2 s).
 *
 * - `base`: every live vector at the revision `baseRev` (rows in chunk-id order).
 * - `added`: the live vectors not in `base` (new chunks, and vectors written later for chunks that
 *   had none); a refresh reads only those it does not hold yet. Chunk ids are never reused and a vector
 *   never changes in place without a recorded break (`vector-revision.ts`), so base ∪ added, minus
 *   `dead`, is exactly the set a full load reads now.
 * - `dead`: base rows whose chunk is no longer live (superseded by an update, removed), skipped in
 *   the scan.
 *
 * A scan merges the two matrices' top hits by (score desc, chunk id asc), the order a full matrix
 * gives ties (rows in chunk-id order, lower row first), so the result equals a full reload's. A
 * refresh falls back to a full load when the revision cannot be reconciled (a break, or the base
 * revision fell out of the log) or when `added` or `dead` outgrow a quarter of the base.
 */
export class VectorLayers {
  readonly count: number;
  /** Chunk ids in `base` no longer live, or null when none. */
  private readonly deadRows: Set<number> | null;

  constructor(
    readonly base: VectorMatrix,
    readonly baseRev: string,
    readonly rev: string,
    readonly added: VectorMatrix | null,
    readonly dead: ReadonlySet<number>,
  ) {
    this.count = base.count - dead.size + (added?.count ?? 0);
    if (dead.size === 0) this.deadRows = null;
    else {
      this.deadRows = new Set();
      for (let r = 0; r < base.count; r++) if (dead.has(base.chunkIds[r]!)) this.deadRows.add(r);
    }
  }

  /**
   * The `limit` best live rows for `q` (cosine = dot, vectors are unit length), best first, with
   * ties in chunk-id order; `allowDoc` filters by document inside both scans.
   */
  scan(
    q: Float32Array,
    limit: number,
    allowDoc?: (docId: string) => boolean,
  ): { chunkId: number; docId: string; sectionId: string; score: number }[] {
    const { base, added, deadRows } = this;
    const baseAllow =
      deadRows === null && allowDoc === undefined
        ? undefined
        : (row: number): boolean =>
            (deadRows === null || !deadRows.has(row)) &&
            (allowDoc === undefined || allowDoc(base.docIds[row]!));
    const hits = base.scan(q, limit, baseAllow).map(({ index, score }) => ({
      chunkId: base.chunkIds[index]!,
      docId: base.docIds[index]!,
      sectionId: base.sectionIds[index]!,
      score,
    }));
    if (added === null) return hits;
    const addedAllow = allowDoc === undefined ? undefined : (row: number) => allowDoc(added.docIds[row]!);
    for (const { index, score } of added.scan(q, limit, addedAllow))
      hits.push({
        chunkId: added.chunkIds[index]!,
        docId: added.docIds[index]!,
        sectionId: added.sectionIds[index]!,
        score,
      });
    return hits.sort((a, b) => b.score - a.score || a.chunkId - b.chunkId).slice(0, limit);
  }

  /** Copies of the live rows of the given chunk ids (others left out). */
  vectorsOf(chunkIds: readonly number[]): Map<number, Float32Array> {
    const live = this.dead.size === 0 ? chunkIds : chunkIds.filter((id) => !this.dead.has(id));
    const out = this.base.vectorsOf(live);
    if (this.added !== null) for (const [id, v] of this.added.vectorsOf(live)) out.set(id, v);
    return out;
  }
}

/** The base is reloaded whole once what changed since it passes this share of it (or 1,024 rows). */
export const LAYER_REBUILD_SHARE = 0.25;
const LAYER_MIN_ROWS = 1024;

/** Every live vector of `fingerprint` read whole, as a base with nothing changed. */
export function loadVectorLayers(statements: StatementCache, fingerprint: string): VectorLayers {
  const rev = readVectorRevision(statements.db);
  return new VectorLayers(loadVectorMatrix(statements, fingerprint), rev, rev, null, new Set());
}

/**
 * `prev` brought to the vault's current state: unchanged when the vector revision is the same;
 * base kept and only the changes read when the revision can be reconciled and the changes are
 * small; otherwise a full load.
 */
export function refreshVectorLayers(
  statements: StatementCache,
  fingerprint: string,
  prev: VectorLayers | null,
): VectorLayers {
  if (prev === null) return loadVectorLayers(statements, fingerprint);
  const { db } = statements;
  const rev = readVectorRevision(db);
  if (rev === prev.rev) return prev;
  if (!isReconcilable(prev.baseRev, rev, readVectorRevisionLog(db), readVectorBreak(db, fingerprint)))
    return loadVectorLayers(statements, fingerprint);
  const live = (
    statements.get(`SELECT c.id ${LIVE_VECTOR_CHUNKS}`).pluck().all(fingerprint) as number[]
  ).sort((a, b) => a - b);
  const { base, added } = prev;
  const budget = Math.max(LAYER_MIN_ROWS, Math.floor(base.count * LAYER_REBUILD_SHARE));
  // Walk the live ids, the base's and the added rows' (all ascending) together: a base row not
  // live is dead; a live id in neither matrix is read from the table; added rows still live stay.
  const dead = new Set<number>();
  const kept: number[] = [];
  const fresh: number[] = [];
  let i = 0;
  let j = 0;
  const addedIds = added?.chunkIds ?? new Float64Array(0);
  for (const id of live) {
    while (i < base.count && base.chunkIds[i]! < id) dead.add(base.chunkIds[i++]!);
    if (i < base.count && base.chunkIds[i] === id) {
      i++;
      continue;
    }
    while (j < addedIds.length && addedIds[j]! < id) j++;
    if (j < addedIds.length && addedIds[j] === id) kept.push(j++);
    else fresh.push(id);
    if (kept.length + fresh.length > budget) return loadVectorLayers(statements, fingerprint);
  }
  while (i < base.count) dead.add(base.chunkIds[i++]!);
  if (dead.size > budget) return loadVectorLayers(statements, fingerprint);
  const next =
    fresh.length === 0 && added !== null && kept.length === added.count
      ? added
      : addedMatrix(statements, fingerprint, base.dims, added, kept, fresh);
  return new VectorLayers(base, prev.baseRev, rev, next, dead);
}

/**
 * The added rows as one matrix in chunk-id order: rows `kept` of `prev` (copied) and the chunks
 * `fresh` read from the table (vectors and sections); null when there are none.
 */
function addedMatrix(
  statements: StatementCache,
  fingerprint: string,
  baseDims: number,
  prev: VectorMatrix | null,
  kept: readonly number[],
  fresh: readonly number[],
): VectorMatrix | null {
  const vectors =
    fresh.length === 0 ? new Map<number, Float32Array>() : readChunkVectors(statements, fresh, fingerprint);
  const sections = new Map<number, string>();
  for (let k = 0; k < fresh.length; k += 500) {
    const part = fresh.slice(k, k + 500);
    const rows = statements.db
      .prepare(`SELECT id, section_id FROM chunks WHERE id IN (${part.map(() => '?').join(',')})`)
      .raw()
      .all(...part) as [number, string][];
    for (const [id, s] of rows) sections.set(id, s);
  }
  const dims =
    baseDims > 0
      ? baseDims
      : prev !== null && prev.dims > 0
        ? prev.dims
        : (vectors.values().next().value?.length ?? 0);
  const total = kept.length + fresh.length;
  if (total === 0) return null;
  const data = allocateScanData(total, dims);
  const chunkIds = new Float64Array(total);
  const sectionIds: string[] = [];
  const docIds: string[] = [];
  let n = 0;
  // Merge the kept rows and the fresh ids, both ascending.
  let a = 0;
  let b = 0;
  while (a < kept.length || b < fresh.length) {
    const keptId = a < kept.length ? prev!.chunkIds[kept[a]!]! : Infinity;
    const freshId = b < fresh.length ? fresh[b]! : Infinity;
    if (keptId < freshId) {
      const r = kept[a++]!;
      chunkIds[n] = keptId;
      sectionIds.push(prev!.sectionIds[r]!);
      docIds.push(prev!.docIds[r]!);
      data.set(prev!.data.subarray(r * dims, (r + 1) * dims), n * dims);
      n++;
      continue;
    }
    b++;
    const v = vectors.get(freshId);
    const s = sections.get(freshId);
    if (v === undefined || s === undefined || v.length !== dims) continue;
    chunkIds[n] = freshId;
    sectionIds.push(s);
    docIds.push(docIdOfSection(s));
    data.set(v, n * dims);
    n++;
  }
  return n === 0
    ? null
    : new VectorMatrix(chunkIds.slice(0, n), docIds, sectionIds, data.subarray(0, n * dims), dims);
}
