import { existsSync, readFileSync, rmSync } from 'node:fs';
import type Database from 'better-sqlite3';
import type { ChunkHit } from '../../types.js';
import {
  type AnnEntry,
  exactSubset,
  fillMaps,
  LIVE_VECTOR_CHUNKS,
  type LiveRows,
  newAnnEntry,
  reconcileEntry,
} from './ann-entry.js';
import {
  DEFAULT_HNSW_EF_CONSTRUCTION,
  DEFAULT_HNSW_EF_SEARCH,
  DEFAULT_HNSW_M,
  HnswIndex,
  hnswIndexPath,
  hnswSidecarPath,
} from './hnsw-index.js';
import { type HnswNative, hnswNative } from './hnsw-native.js';
import { blobDims, decodeBlobInto } from './vector-blob.js';
import {
  isReconcilable,
  readVectorBreak,
  readVectorRevision,
  readVectorRevisionLog,
} from './vector-revision.js';
import { DEFAULT_ANN_THRESHOLD } from '../index-defaults.js';
import type { VectorIndexInspection, VectorIndexStatus } from '../maintenance.js';

// Shared with the configuration and other backends (../index-defaults.ts).
export { DEFAULT_ANN_THRESHOLD };

/**
 * A filtered search whose allowed chunks are at most this share of the index (or at most the
 * limit) scans them exactly
 * (vectors fetched by primary key) instead of walking the graph with a filter, which must visit
 * about 1/share as many nodes to find k allowed ones.
 */
export const DEFAULT_ANN_EXACT_FILTER_SHARE = 0.02;

export interface AnnOptions {
  /** Live chunks above which HNSW is used. Defaults to {@link DEFAULT_ANN_THRESHOLD}. */
  threshold?: number;
  /** HNSW graph degree. Defaults to {@link DEFAULT_HNSW_M}. */
  m?: number;
  /** HNSW insert-time candidates. Defaults to {@link DEFAULT_HNSW_EF_CONSTRUCTION}. */
  efConstruction?: number;
  /** HNSW search-time candidates. Defaults to {@link DEFAULT_HNSW_EF_SEARCH}. */
  efSearch?: number;
  /** Use the CPU-specific hnswlib build and the parallel builder when installed. Defaults to true. */
  native?: boolean;
  /** Insert threads of a full build (0 = every core, 1 = in process). Defaults to 0. */
  buildThreads?: number;
  /** Called with (inserted, total) while a full build runs. */
  onBuildProgress?: (done: number, total: number) => void;
}

export interface AnnLegOptions extends AnnOptions {
  /** The database file (null for `:memory:`): the index lives at `hnswIndexPath(dbPath, fp)`. */
  dbPath: string | null;
  /** Write the index file (false for read-only stores). */
  save: boolean;
  /** Told (once per fingerprint and process) when a search scans exactly because the index needs a build. */
  onNotice?: (message: string) => void;
}

/**
 * A search brings the index up to date itself only when that is cheap: the whole index has at
 * most this many chunks, or at most this many differ from the one in memory or on disk (a few
 * seconds of inserts at most). Otherwise (a full build, a big delta, a build already running) the
 * search scans exactly and the next writer (or `prepare`) brings the index up to date.
 */
export const SEARCH_RECONCILE_MAX = 5000;

/** What the vector leg does for one fingerprint, for `quiver doctor` and tests (the Store's typed status). */
export type AnnStatus = VectorIndexStatus;

/** {@link AnnVectorLeg.inspect}'s answer: always names the hnswlib code in use. */
export type AnnInspection = VectorIndexInspection & {
  native: { search: HnswNative['search']; parallelBuild: boolean; note: string | null };
};

/**
 * The vector leg above the threshold: one HNSW index per embedder fingerprint, persisted beside the
 * database and kept in step with it by revision (`vector-revision.ts`). On a search, when the
 * store's revision differs from the index's stamp, the index is loaded (if not in memory) and
 * reconciled by chunk-id set difference, or rebuilt from SQLite when the file is missing, corrupt,
 * of another version, not an ancestor of the current revision, or too full of tombstones. A full
 * build is saved at once; a reconciled index is saved at {@link AnnVectorLeg.flush} (store close),
 * always stamped with the revision read before the rows it reflects, so a stale or crashed save
 * can only look older than it is, never newer. An index in memory, its chunk maps and the
 * reconcile step are in `ann-entry.ts`; this class decides when to load, reconcile, build or save.
 */
/** Rows inserted into the index being built, of the total. */
type BuildProgress = (done: number, total: number) => void;

export class AnnVectorLeg {
  readonly threshold: number;
  private readonly params: { m: number; efConstruction: number; efSearch: number };
  private readonly entries = new Map<string, AnnEntry>();
  private readonly counts = new Map<string, { rev: string; count: number }>();
  private readonly pending = new Map<string, Promise<AnnEntry | null>>();
  private readonly statuses = new Map<string, AnnStatus>();
  private readonly noticed = new Set<string>();

  constructor(
    private readonly db: Database.Database,
    private readonly options: AnnLegOptions,
  ) {
    this.threshold = options.threshold ?? DEFAULT_ANN_THRESHOLD;
    this.params = {
      m: options.m ?? DEFAULT_HNSW_M,
      efConstruction: options.efConstruction ?? DEFAULT_HNSW_EF_CONSTRUCTION,
      efSearch: options.efSearch ?? DEFAULT_HNSW_EF_SEARCH,
    };
  }

  /** The index file of a fingerprint, or null for an in-memory store. */
  path(fingerprint: string): string | null {
    return this.options.dbPath === null ? null : hnswIndexPath(this.options.dbPath, fingerprint);
  }

  private status(fingerprint: string): AnnStatus {
    let s = this.statuses.get(fingerprint);
    if (s === undefined) {
      s = {
        fingerprint,
        mode: 'exact',
        chunks: 0,
        threshold: this.threshold,
        file: this.path(fingerprint),
        source: null,
        loadFailure: null,
        deleted: 0,
        saveError: null,
      };
      this.statuses.set(fingerprint, s);
    }
    return s;
  }

  /** Live chunks with a vector under `fingerprint`, cached per revision. */
  private count(fingerprint: string, rev: string): number {
    const c = this.counts.get(fingerprint);
    if (c?.rev === rev) return c.count;
    const count = (
      this.db.prepare(`SELECT COUNT(*) ${LIVE_VECTOR_CHUNKS}`).raw().get(fingerprint) as [number]
    )[0];
    this.counts.set(fingerprint, { rev, count });
    return count;
  }

  /**
   * Bring the fingerprint's index up to date (load, reconcile or build as needed) and say what the
   * vector leg does for it. Searches do this themselves; call it to build ahead of time.
   */
  async prepare(
    fingerprint: string,
    onBuildProgress?: (done: number, total: number) => void,
  ): Promise<AnnStatus> {
    await this.current(fingerprint, onBuildProgress);
    return { ...this.status(fingerprint) };
  }

  /**
   * The current index, or null when the exact scan applies (at or below the threshold, or — for a
   * search, `quick` — when bringing the index up to date would be slow).
   */
  private async current(
    fingerprint: string,
    onBuildProgress?: BuildProgress,
    quick = false,
  ): Promise<AnnEntry | null> {
    for (;;) {
      const rev = readVectorRevision(this.db);
      const s = this.status(fingerprint);
      const e = this.entries.get(fingerprint);
      if (e !== undefined && e.index.stamp === rev) return e;
      s.chunks = this.count(fingerprint, rev);
      if (s.chunks <= this.threshold) {
        s.mode = 'exact';
        return null;
      }
      s.mode = 'hnsw';
      const running = this.pending.get(fingerprint);
      if (running !== undefined) {
        if (quick) return this.fallback(fingerprint, 'is being built');
        await running;
        continue;
      }
      if (quick && !this.quickEnough(fingerprint, s.chunks))
        return this.fallback(fingerprint, 'needs a rebuild');
      const p = this.refresh(fingerprint, rev, onBuildProgress).finally(() =>
        this.pending.delete(fingerprint),
      );
      this.pending.set(fingerprint, p);
      return p;
    }
  }

  /** Can a search bring the index up to date cheaply: one in memory (or a loadable file) within {@link SEARCH_RECONCILE_MAX} chunks of it? */
  private quickEnough(fingerprint: string, chunks: number): boolean {
    if (chunks <= SEARCH_RECONCILE_MAX) return true;
    const e = this.entries.get(fingerprint);
    if (e !== undefined) return Math.abs(e.index.size - chunks) <= SEARCH_RECONCILE_MAX;
    const saved = this.saved(fingerprint, readVectorRevision(this.db));
    if (saved.index === 'current') return true;
    return (
      saved.index === 'stale' &&
      saved.count !== null &&
      Math.abs(saved.count - chunks) <= SEARCH_RECONCILE_MAX
    );
  }

  /**
   * The saved index file's state for `rev`, from its sidecar only (the checksum is not verified):
   * 'current', 'stale' (reconcilable), 'rebuild', 'missing' or 'unreadable', and its live count.
   */
  private saved(
    fingerprint: string,
    rev: string,
  ): { index: 'current' | 'stale' | 'rebuild' | 'missing' | 'unreadable'; count: number | null } {
    const file = this.path(fingerprint);
    if (file === null || !existsSync(file)) return { index: 'missing', count: null };
    let side: Record<string, unknown>;
    try {
      side = JSON.parse(readFileSync(hnswSidecarPath(file), 'utf8')) as Record<string, unknown>;
    } catch {
      return { index: 'unreadable', count: null };
    }
    const stamp = side.fingerprint === fingerprint ? side.stamp : undefined;
    if (typeof stamp !== 'string') return { index: 'unreadable', count: null };
    const count = typeof side.count === 'number' ? side.count : null;
    if (stamp === rev) return { index: 'current', count };
    const ok = isReconcilable(
      stamp,
      rev,
      readVectorRevisionLog(this.db),
      readVectorBreak(this.db, fingerprint),
    );
    return { index: ok ? 'stale' : 'rebuild', count };
  }

  /** Answer this search exactly; say so once. */
  private fallback(fingerprint: string, why: string): null {
    this.status(fingerprint).mode = 'exact';
    if (!this.noticed.has(fingerprint)) {
      this.noticed.add(fingerprint);
      this.options.onNotice?.(
        `quiver: the vector index ${why}; searching exactly until it is ready (the next add does it, or \`quiver doctor --fix\`)`,
      );
    }
    return null;
  }

  private dims(fingerprint: string): number {
    const r = this.db
      .prepare('SELECT length(vector) FROM vectors WHERE fingerprint = ? LIMIT 1')
      .raw()
      .get(fingerprint) as [number] | undefined;
    return r === undefined ? 0 : blobDims(r[0]);
  }

  private async refresh(
    fingerprint: string,
    rev: string,
    onBuildProgress?: BuildProgress,
  ): Promise<AnnEntry | null> {
    const dims = this.dims(fingerprint);
    if (dims === 0) return null;
    const s = this.status(fingerprint);
    const path = this.path(fingerprint);
    let e = this.entries.get(fingerprint) ?? null;
    if (e === null && path !== null) {
      const r = await HnswIndex.loadOrNull(
        path,
        { fingerprint, dims, stamp: rev },
        { acceptStale: true, efSearch: this.params.efSearch, native: this.options.native ?? true },
      );
      s.loadFailure = r.reason;
      if (r.index !== null) {
        e = newAnnEntry(r.index);
        s.source = 'loaded';
      }
    }
    if (e !== null && this.reusable(e.index, fingerprint, dims, rev)) {
      const ok = await this.reconcile(e, fingerprint, rev);
      if (ok) {
        this.entries.set(fingerprint, e);
        s.deleted = e.index.deletedCount;
        return e;
      }
    }
    return this.build(fingerprint, dims, rev, onBuildProgress);
  }

  /** Same embedder, dims and graph parameters, and the stamp is an ancestor of `rev`. */
  private reusable(index: HnswIndex, fingerprint: string, dims: number, rev: string): boolean {
    if (index.dims !== dims || index.fingerprint !== fingerprint) return false;
    if (index.params.m !== this.params.m || index.params.efConstruction !== this.params.efConstruction)
      return false;
    return isReconcilable(
      index.stamp,
      rev,
      readVectorRevisionLog(this.db),
      readVectorBreak(this.db, fingerprint),
    );
  }

  /** {@link reconcileEntry}, recording in the status whether anything changed. False: rebuild. */
  private async reconcile(e: AnnEntry, fingerprint: string, rev: string): Promise<boolean> {
    const r = await reconcileEntry(this.db, e, fingerprint, rev);
    if (r === null) return false;
    const s = this.status(fingerprint);
    if (s.source !== 'loaded' || r.changed > 0) s.source = 'reconciled';
    return true;
  }

  private async build(
    fingerprint: string,
    dims: number,
    rev: string,
    onBuildProgress?: BuildProgress,
  ): Promise<AnnEntry> {
    const rows = this.db
      .prepare(
        'SELECT c.id, c.doc_id, c.section_id, v.vector FROM vectors v JOIN chunks c ON c.id = v.chunk_id WHERE v.fingerprint = ? AND c.live = 1 ORDER BY c.id',
      )
      .raw()
      .all(fingerprint) as [number, string, string, Buffer][];
    const ids = rows.map((r) => r[0]);
    const data = new Float32Array(rows.length * dims);
    rows.forEach((r, i) => decodeBlobInto(r[3], data, i * dims));
    const live: LiveRows = { ids, docIds: rows.map((r) => r[1]), sectionIds: rows.map((r) => r[2]) };
    rows.length = 0;
    const progress = onBuildProgress ?? this.options.onBuildProgress;
    const index = await HnswIndex.build(ids, data, {
      fingerprint,
      dims,
      stamp: rev,
      params: { space: 'ip', ...this.params },
      native: this.options.native ?? true,
      threads: this.options.buildThreads ?? 0,
      ...(progress === undefined ? {} : { onProgress: progress }),
    });
    const e = newAnnEntry(index);
    ids.forEach((id) => {
      if (!index.has(id)) e.zeros.add(id);
    });
    fillMaps(e, live);
    e.dirty = true;
    this.entries.set(fingerprint, e);
    const s = this.status(fingerprint);
    s.source = 'built';
    s.deleted = 0;
    await this.saveEntry(fingerprint, e);
    return e;
  }

  private async saveEntry(fingerprint: string, e: AnnEntry): Promise<void> {
    const path = this.path(fingerprint);
    if (path === null || !this.options.save || !e.dirty) return;
    try {
      await e.index.save(path, e.index.stamp);
      e.dirty = false;
      this.status(fingerprint).saveError = null;
    } catch (err) {
      this.status(fingerprint).saveError = (err as Error).message;
    }
  }

  /**
   * The `limit` live chunks nearest to `q`, or null when the exact scan applies. `allow` (doc ids)
   * restricts the hits: inside the graph walk, or by an exact scan of the allowed chunks when they
   * are at most {@link DEFAULT_ANN_EXACT_FILTER_SHARE} of the index or at most `limit`.
   */
  async search(
    fingerprint: string,
    q: Float32Array,
    limit: number,
    allow?: ReadonlySet<string>,
  ): Promise<ChunkHit[] | null> {
    const e = await this.current(fingerprint, undefined, true);
    if (e === null) return null;
    if (q.length !== e.index.dims) return [];
    const hit = (chunkId: number, score: number): ChunkHit => ({
      chunkId,
      docId: e.docOf.get(chunkId)!,
      sectionId: e.sectionOf.get(chunkId)!,
      score,
    });
    if (allow === undefined) return e.index.search(q, limit).map((h) => hit(h.chunkId, h.score));
    let allowed = 0;
    for (const d of allow) allowed += e.docChunks.get(d) ?? 0;
    if (allowed === 0) return [];
    if (allowed <= Math.max(limit, DEFAULT_ANN_EXACT_FILTER_SHARE * e.index.size))
      return exactSubset(this.db, e, q, limit, allow);
    const { docOf } = e;
    return e.index
      .search(q, limit, (label) => allow.has(docOf.get(label) ?? ''))
      .map((h) => hit(h.chunkId, h.score));
  }

  /**
   * What a search would find, without loading or building anything (for `quiver doctor`): the
   * mode and, above the threshold, the saved file's state from its sidecar ('current', 'stale' →
   * reconciled on the next search, 'rebuild' → rebuilt, 'missing', 'unreadable'). The file's
   * checksum is not verified here; a corrupt file is found and rebuilt by the next search.
   */
  inspect(fingerprint: string): AnnInspection {
    const rev = readVectorRevision(this.db);
    const chunks = this.count(fingerprint, rev);
    const file = this.path(fingerprint);
    const n = hnswNative(this.options.native ?? true);
    const native = { search: n.search, parallelBuild: n.builder !== null, note: n.note };
    const base = { fingerprint, chunks, threshold: this.threshold, file, native };
    if (chunks <= this.threshold) return { ...base, mode: 'exact', index: 'none' };
    return { ...base, mode: 'hnsw', index: this.saved(fingerprint, rev).index };
  }

  /** Drop a fingerprint's index from memory and delete its files (its vectors were deleted). */
  forget(fingerprint: string): void {
    this.entries.delete(fingerprint);
    this.counts.delete(fingerprint);
    this.statuses.delete(fingerprint);
    const path = this.path(fingerprint);
    if (path !== null && this.options.save) {
      rmSync(path, { force: true });
      rmSync(hnswSidecarPath(path), { force: true });
    }
  }

  /** Wait for running builds, then save every index changed since it was last written. */
  async flush(): Promise<void> {
    await Promise.allSettled([...this.pending.values()]);
    for (const [fp, e] of this.entries) await this.saveEntry(fp, e);
  }
}
