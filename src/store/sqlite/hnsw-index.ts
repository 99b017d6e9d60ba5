/**
 * An approximate nearest-neighbour index (HNSW, hnswlib-node) over unit-length chunk vectors, for the
 * vector leg above a configurable number of chunks. The SQLite store stays the source of truth: the
 * index is a cache persisted beside the database and rebuilt from it when missing, stale or corrupt.
 * The exact scan (`VectorMatrix.scan`) remains the reference; `bench/ann.ts` measures recall@10
 * against it. The file pair and its integrity checks are in `hnsw-files.ts`.
 */
import { availableParallelism } from 'node:os';
import type hnswlib from 'hnswlib-node';
import { isQuiverError, QuiverError } from '../../errors.js';
import { hnswNative } from './hnsw-native.js';
import {
  hnswBuildAborted,
  type ParallelBuildResult,
  removeParallelBuild,
  runParallelBuild,
} from './hnsw-parallel-build.js';
import {
  checkHnswFile,
  type HnswLoadFailure,
  MAX_HNSW_LABEL,
  readHnswSidecar,
  writeHnswFiles,
} from './hnsw-files.js';

export {
  HNSW_FORMAT_VERSION,
  type HnswLoadFailure,
  type HnswSidecar,
  hnswIndexPath,
  hnswSidecarPath,
} from './hnsw-files.js';

// The graph's defaults are shared with the configuration and other backends (../index-defaults.ts).
import { DEFAULT_HNSW_EF_CONSTRUCTION, DEFAULT_HNSW_EF_SEARCH, DEFAULT_HNSW_M } from '../index-defaults.js';
export { DEFAULT_HNSW_EF_CONSTRUCTION, DEFAULT_HNSW_EF_SEARCH, DEFAULT_HNSW_M };
/** Seed of hnswlib's level generator, so builds are reproducible. */
export const DEFAULT_HNSW_SEED = 100;
/** Above this share of tombstoned labels, searches slow down and recall drops: rebuild instead. */
export const DEFAULT_HNSW_MAX_DELETED_FRACTION = 0.2;
/** Texts between progress reports and event-loop yields while building. */
export const DEFAULT_HNSW_BUILD_BATCH = 2048;
/**
 * Rows from which a build goes to the native parallel builder when it is installed and more than one
 * thread is allowed: below this, starting a process and piping the rows costs more than it saves.
 */
export const PARALLEL_BUILD_MIN_ROWS = 5000;

/** Similarity space. Vectors are unit length, so inner product equals cosine; 'cosine' re-normalises. */
export type HnswSpace = 'ip' | 'cosine';

export interface HnswParams {
  /** Defaults to 'ip' (the store's vectors are unit length). */
  space: HnswSpace;
  /** Graph degree, an integer in [2, 100]. Defaults to {@link DEFAULT_HNSW_M}. */
  m: number;
  /** Insert-time candidates, an integer ≥ 1. Defaults to {@link DEFAULT_HNSW_EF_CONSTRUCTION}. */
  efConstruction: number;
  /** Search-time candidates, an integer ≥ 1. Defaults to {@link DEFAULT_HNSW_EF_SEARCH}. */
  efSearch: number;
  /** Level-generator seed. Defaults to {@link DEFAULT_HNSW_SEED}. */
  seed: number;
}

/** What an index file must match to be used: the embedder, its vector length and the store's stamp. */
export interface HnswIdentity {
  fingerprint: string;
  dims: number;
  /** Opaque state of the source rows the store computes, e.g. `"<rows>:<max chunk id>:<changes>"`. */
  stamp: string;
}

/** Which hnswlib code an index runs on (see `hnsw-native.ts`). */
export interface HnswNativeOptions {
  /** Use the CPU-specific addon and the parallel builder when installed. Defaults to true. */
  native?: boolean;
}

export interface HnswBuildOptions extends HnswIdentity, HnswNativeOptions {
  params?: Partial<HnswParams>;
  /**
   * Insert threads for the native parallel builder; 0 = every core ({@link availableParallelism}).
   * 1 builds in process. Parallel insertion gives an equally good graph, not the same one: the
   * order in which rows meet each other varies from run to run. Defaults to 0.
   */
  threads?: number;
  /** The parallel builder to run; defaults to the installed one (null: build in process). */
  builder?: string | null;
  signal?: AbortSignal;
  /** Called with (inserted, total) after each batch. */
  onProgress?: (done: number, total: number) => void;
  /** Vectors per batch between yields. Defaults to {@link DEFAULT_HNSW_BUILD_BATCH}. */
  batchSize?: number;
}

export interface HnswHit {
  chunkId: number;
  /** Cosine similarity (1 − hnswlib distance), in [−1, 1]. */
  score: number;
}

/**
 * `reason: null` → usable and current. `reason: 'stale'` with an index only when `acceptStale` was
 * asked for (same fingerprint and dims, intact file, older stamp): the caller reconciles it with
 * {@link HnswIndex.labels}, `add` and `remove`. Otherwise `index` is null and `message` says why.
 */
export type HnswLoadResult =
  | { index: HnswIndex; reason: null; message: null }
  | { index: HnswIndex; reason: 'stale'; message: string }
  | { index: null; reason: HnswLoadFailure; message: string };

export interface HnswLoadOptions extends HnswNativeOptions {
  /** Return an intact index whose stamp differs (see {@link HnswLoadResult}). Defaults to false. */
  acceptStale?: boolean;
  /** Override the saved efSearch. */
  efSearch?: number;
}

function bad(field: string, want: string, got: unknown): QuiverError {
  return new QuiverError('BAD_INPUT', `quiver: hnsw ${field} must be ${want}, got ${String(got)}`);
}

/** Parameters after defaults and validation. */
export function resolveHnswParams(params: Partial<HnswParams> = {}): HnswParams {
  const p: HnswParams = {
    space: params.space ?? 'ip',
    m: params.m ?? DEFAULT_HNSW_M,
    efConstruction: params.efConstruction ?? DEFAULT_HNSW_EF_CONSTRUCTION,
    efSearch: params.efSearch ?? DEFAULT_HNSW_EF_SEARCH,
    seed: params.seed ?? DEFAULT_HNSW_SEED,
  };
  if (p.space !== 'ip' && p.space !== 'cosine') throw bad('space', "'ip' or 'cosine'", p.space);
  if (!Number.isInteger(p.m) || p.m < 2 || p.m > 100) throw bad('m', 'an integer in [2, 100]', p.m);
  for (const k of ['efConstruction', 'efSearch'] as const) {
    if (!Number.isInteger(p[k]) || p[k] < 1) throw bad(k, 'an integer ≥ 1', p[k]);
  }
  if (!Number.isInteger(p.seed) || p.seed < 0 || p.seed > MAX_HNSW_LABEL)
    throw bad('seed', 'an integer in [0, 2^32)', p.seed);
  return p;
}

function checkLabel(label: number): void {
  if (!Number.isInteger(label) || label < 0 || label > MAX_HNSW_LABEL)
    throw bad('label', 'an integer in [0, 2^32)', label);
}

function checkDims(dims: number): void {
  if (!Number.isInteger(dims) || dims < 1) throw bad('dims', 'an integer ≥ 1', dims);
}

/**
 * Squared length of row `i` of `data` after checking its label (32-bit) and values (finite): the
 * one per-row check of both build paths. 0 means a zero row, which is never inserted.
 */
function checkedRowNorm(labels: ArrayLike<number>, data: Float32Array, i: number, dims: number): number {
  const label = labels[i]!;
  checkLabel(label);
  let sq = 0;
  for (let j = i * dims, end = j + dims; j < end; j++) sq += data[j]! * data[j]!;
  if (!Number.isFinite(sq)) throw bad(`vector of label ${label}`, 'finite', 'a non-finite value');
  return sq;
}

/** An empty hnswlib graph object on the binding `options` select (see `hnsw-native.ts`). */
function nativeGraph(options: HnswNativeOptions, space: HnswSpace, dims: number): hnswlib.HierarchicalNSW {
  return new (hnswNative(options.native).lib.HierarchicalNSW)(space, dims);
}

/**
 * An HNSW index keyed by chunk id (label). Zero vectors (empty text) have no direction and are never
 * inserted, matching the exact scan, which never returns them. Adding a label that is present
 * replaces its vector (and revives it when it was removed); removing tombstones it.
 *
 * @example
 * const index = await HnswIndex.build(chunkIds, matrix, { fingerprint, dims: 512, stamp });
 * index.search(queryVector, 10); // [{ chunkId, score }, …] best first
 * await index.save(hnswIndexPath(dbPath, fingerprint), stamp);
 */
export class HnswIndex {
  readonly fingerprint: string;
  readonly dims: number;
  readonly params: Readonly<HnswParams>;
  /** The stamp this index was built or last saved or loaded with. */
  stamp: string;
  /** How the graph was made: by the native parallel builder, in process, or read from a file. */
  readonly origin: 'parallel-build' | 'in-process-build' | 'loaded';
  /** Peak resident memory of the parallel builder process in bytes, when it made this index. */
  builderPeakRss: number | null = null;
  private readonly native: hnswlib.HierarchicalNSW;
  private readonly live: Set<number>;
  private readonly tombstones: Set<number>;
  private readonly row: number[];

  private constructor(
    native: hnswlib.HierarchicalNSW,
    identity: HnswIdentity,
    params: HnswParams,
    live: Set<number>,
    tombstones: Set<number>,
    origin: HnswIndex['origin'],
  ) {
    this.origin = origin;
    this.native = native;
    this.fingerprint = identity.fingerprint;
    this.dims = identity.dims;
    this.stamp = identity.stamp;
    this.params = params;
    this.live = live;
    this.tombstones = tombstones;
    this.row = new Array<number>(identity.dims).fill(0);
    native.setEf(params.efSearch);
  }

  /** An empty index with room for `capacity` vectors (it grows on `add`). */
  static create(
    identity: HnswIdentity,
    params: Partial<HnswParams> = {},
    capacity = 1024,
    options: HnswNativeOptions = {},
  ): HnswIndex {
    checkDims(identity.dims);
    const p = resolveHnswParams(params);
    const native = nativeGraph(options, p.space, identity.dims);
    native.initIndex({
      maxElements: Math.max(1, capacity),
      m: p.m,
      efConstruction: p.efConstruction,
      randomSeed: p.seed,
    });
    return new HnswIndex(native, identity, p, new Set(), new Set(), 'in-process-build');
  }

  /**
   * Build from `labels[i]` ↔ row i of `data` (`labels.length × dims`, row-major). With the native
   * builder installed, at least {@link PARALLEL_BUILD_MIN_ROWS} rows and more than one thread, the
   * rows are inserted on every core by a child process (falling back to the in-process build if it
   * fails); otherwise in order on this thread (reproducible: the same rows give the same graph),
   * yielding to the event loop every `batchSize` rows.
   * Cost: O(n · efConstruction · log n) distance computations; see `bench/ann.ts` for timings.
   */
  static async build(
    labels: ArrayLike<number>,
    data: Float32Array,
    options: HnswBuildOptions,
  ): Promise<HnswIndex> {
    const { signal, onProgress } = options;
    const batch = options.batchSize ?? DEFAULT_HNSW_BUILD_BATCH;
    if (!Number.isInteger(batch) || batch < 1) throw bad('batchSize', 'an integer ≥ 1', batch);
    const threads = options.threads ?? 0;
    if (!Number.isInteger(threads) || threads < 0) throw bad('threads', 'an integer ≥ 0', threads);
    const p = resolveHnswParams(options.params);
    checkDims(options.dims);
    if (data.length !== labels.length * options.dims) {
      throw bad('data length', `labels × dims = ${labels.length * options.dims}`, data.length);
    }
    const builder = options.builder === undefined ? hnswNative(options.native).builder : options.builder;
    const workers = threads === 0 ? availableParallelism() : threads;
    if (builder !== null && workers > 1 && labels.length >= PARALLEL_BUILD_MIN_ROWS) {
      const parallel = await HnswIndex.buildInParallel(builder, workers, p, labels, data, options);
      if (parallel !== null) return parallel;
    }
    const index = HnswIndex.create(options, options.params, labels.length, options);
    for (let start = 0; start < labels.length; start += batch) {
      if (signal?.aborted) throw hnswBuildAborted(signal);
      const end = Math.min(labels.length, start + batch);
      index.addRows(labels, data, start, end);
      onProgress?.(end, labels.length);
      if (end < labels.length) await new Promise<void>((r) => setImmediate(r));
    }
    return index;
  }

  /**
   * The native builder's half of {@link HnswIndex.build}: the same validation as the in-process
   * insert (32-bit labels, finite values; zero rows left out), then the file it writes is read back.
   * Null when the builder fails (the caller builds in process); throws on bad input or abort.
   */
  private static async buildInParallel(
    builder: string,
    threads: number,
    p: HnswParams,
    labels: ArrayLike<number>,
    data: Float32Array,
    options: HnswBuildOptions,
  ): Promise<HnswIndex | null> {
    const { dims } = options;
    // label → its last row (−1 when that row is zero): a label given twice ends as its last row says,
    // as with the in-process insert; a label whose last row is zero is not sent at all.
    const last = new Map<number, number>();
    for (let i = 0; i < labels.length; i++)
      last.set(labels[i]!, checkedRowNorm(labels, data, i, dims) === 0 ? -1 : i);
    const keep: number[] = [];
    const rows: number[] = [];
    for (const [label, row] of last) {
      if (row < 0) continue;
      keep.push(label);
      rows.push(row);
    }
    let built: ParallelBuildResult;
    try {
      built = await runParallelBuild({
        builder,
        space: p.space,
        dims,
        m: p.m,
        efConstruction: p.efConstruction,
        seed: p.seed,
        threads,
        labels: keep,
        rows,
        data,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        ...(options.onProgress === undefined
          ? {}
          : { onProgress: (done: number) => options.onProgress?.(done, keep.length) }),
      });
    } catch (e) {
      if (isQuiverError(e, 'ABORTED')) throw e;
      return null;
    }
    try {
      const native = nativeGraph(options, p.space, dims);
      await native.readIndex(built.file);
      native.setEf(p.efSearch);
      const index = new HnswIndex(native, options, p, new Set(keep), new Set(), 'parallel-build');
      index.builderPeakRss = built.peakRss;
      return index;
    } catch {
      return null;
    } finally {
      await removeParallelBuild(built.file);
    }
  }

  /** Searchable labels. */
  get size(): number {
    return this.live.size;
  }

  /** Tombstoned labels still in the graph. */
  get deletedCount(): number {
    return this.tombstones.size;
  }

  /** deleted / (live + deleted); 0 for an empty index. Rebuild above {@link DEFAULT_HNSW_MAX_DELETED_FRACTION}. */
  get deletedFraction(): number {
    const all = this.live.size + this.tombstones.size;
    return all === 0 ? 0 : this.tombstones.size / all;
  }

  get efSearch(): number {
    return this.native.getEf();
  }

  set efSearch(ef: number) {
    if (!Number.isInteger(ef) || ef < 1) throw bad('efSearch', 'an integer ≥ 1', ef);
    this.native.setEf(ef);
  }

  has(label: number): boolean {
    return this.live.has(label);
  }

  /** The searchable labels, ascending (for reconciling with the store's live chunk ids). */
  labels(): number[] {
    return [...this.live].sort((a, b) => a - b);
  }

  /**
   * The `k` labels nearest to `q` by cosine, best first (ties → lower chunk id). `filter(label)` is
   * applied inside the graph walk (hnswlib's filter callback), so k allowed hits come back when they
   * exist and the walk finds them; a very selective filter makes the walk long, and the exact scan
   * over the allowed rows is then the better tool. A zero query has no direction → [].
   */
  search(q: Float32Array, k: number, filter?: (label: number) => boolean): HnswHit[] {
    if (q.length !== this.dims) throw bad('query length', String(this.dims), q.length);
    if (!(k > 0) || this.live.size === 0) return [];
    let sq = 0;
    for (let i = 0; i < q.length; i++) {
      const x = q[i]!;
      this.row[i] = x;
      sq += x * x;
    }
    if (!(sq > 0)) return [];
    const kk = Math.min(Math.floor(k), this.live.size, this.native.getMaxElements());
    const r =
      filter === undefined
        ? this.native.searchKnn(this.row, kk)
        : this.native.searchKnn(this.row, kk, filter);
    const hits: HnswHit[] = r.neighbors.map((chunkId, i) => ({ chunkId, score: 1 - r.distances[i]! }));
    return hits.sort((a, b) => b.score - a.score || a.chunkId - b.chunkId);
  }

  /**
   * Insert or replace `labels[i]` ↔ row i of `data`. A zero row removes the label (it can never be
   * returned). Grows capacity by half as needed. Returns the number of labels now searchable that
   * were not before.
   */
  add(labels: ArrayLike<number>, data: Float32Array): number {
    if (data.length !== labels.length * this.dims) {
      throw bad('data length', `labels × dims = ${labels.length * this.dims}`, data.length);
    }
    const before = this.live.size;
    this.addRows(labels, data, 0, labels.length);
    return Math.max(0, this.live.size - before);
  }

  /** Tombstone these labels (unknown or already removed ones are ignored). Returns how many were removed. */
  remove(labels: Iterable<number>): number {
    let n = 0;
    for (const label of labels) {
      if (!this.live.has(label)) continue;
      this.native.markDelete(label);
      this.live.delete(label);
      this.tombstones.add(label);
      n++;
    }
    return n;
  }

  /**
   * Bring the index in step with the store's live rows: `ids[i]` ↔ row i of `data` (e.g. a
   * `VectorMatrix`'s `chunkIds` and `data`). Labels not in `ids` are removed; ids not in the index are
   * added. Assumes a chunk id's vector never changes under one fingerprint (new document versions get
   * new chunk ids); after an in-place vector overwrite, use `add` for those ids or rebuild.
   * Cost: O(n) set work plus one insert per missing id.
   */
  reconcile(ids: ArrayLike<number>, data: Float32Array): { added: number; removed: number } {
    if (data.length !== ids.length * this.dims) {
      throw bad('data length', `ids × dims = ${ids.length * this.dims}`, data.length);
    }
    const wanted = new Set<number>();
    const missing: number[] = [];
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      wanted.add(id);
      if (!this.live.has(id)) missing.push(i);
    }
    const gone = [...this.live].filter((l) => !wanted.has(l));
    const removed = this.remove(gone);
    const addIds = missing.map((i) => ids[i]!);
    const addData = new Float32Array(missing.length * this.dims);
    missing.forEach((row, j) =>
      addData.set(data.subarray(row * this.dims, (row + 1) * this.dims), j * this.dims),
    );
    const added = this.add(addIds, addData);
    return { added, removed };
  }

  private addRows(labels: ArrayLike<number>, data: Float32Array, start: number, end: number): void {
    const { dims, row } = this;
    const needed = this.native.getCurrentCount() + (end - start);
    const cap = this.native.getMaxElements();
    if (needed > cap) this.native.resizeIndex(Math.max(needed, Math.ceil(cap * 1.5)));
    for (let i = start; i < end; i++) {
      const label = labels[i]!;
      if (checkedRowNorm(labels, data, i, dims) === 0) {
        this.remove([label]);
        continue;
      }
      for (let j = 0, off = i * dims; j < dims; j++) row[j] = data[off + j]!;
      // hnswlib: an existing label (live or tombstoned) is updated in place and un-deleted.
      this.native.addPoint(row, label);
      this.live.add(label);
      this.tombstones.delete(label);
    }
  }

  /**
   * Write the index and its sidecar atomically (temporary files, fsync, rename; index first, so a
   * crash in between leaves a sidecar whose checksum no longer matches → 'corrupt' → rebuild).
   * `stamp` defaults to the index's current stamp and becomes it.
   */
  async save(path: string, stamp: string = this.stamp): Promise<void> {
    await writeHnswFiles(path, (tmp) => this.native.writeIndex(tmp), {
      fingerprint: this.fingerprint,
      dims: this.dims,
      count: this.live.size,
      stamp,
      params: { ...this.params },
      deleted: [...this.tombstones].sort((a, b) => a - b),
    });
    this.stamp = stamp;
  }

  /**
   * Read a saved index, or say why it cannot be used: 'missing' (no index file), 'version' (a
   * sidecar formatVersion this code does not know), 'stale' (fingerprint, dims or stamp differ from
   * `expected`), 'corrupt' (no or unreadable sidecar, size or header or checksum mismatch, hnswlib
   * refuses the file). Checks run cheapest first; the checksum reads the whole file once.
   */
  static async loadOrNull(
    path: string,
    expected: HnswIdentity,
    options: HnswLoadOptions = {},
  ): Promise<HnswLoadResult> {
    const fail = (reason: HnswLoadFailure, message: string): HnswLoadResult => ({
      index: null,
      reason,
      message,
    });
    const read = await readHnswSidecar(path);
    if (read.sidecar === null) return fail(read.reason, read.message);
    const side = read.sidecar;
    if (side.fingerprint !== expected.fingerprint || side.dims !== expected.dims) {
      return fail(
        'stale',
        `index is for ${side.fingerprint} (${side.dims} dims), wanted ${expected.fingerprint} (${expected.dims})`,
      );
    }
    const stale = side.stamp !== expected.stamp;
    if (stale && options.acceptStale !== true)
      return fail('stale', `index stamp ${side.stamp} ≠ store stamp ${expected.stamp}`);
    const headerProblem = await checkHnswFile(path, side);
    if (headerProblem !== null) return fail('corrupt', headerProblem);
    const native = nativeGraph(options, side.params.space, side.dims);
    try {
      await native.readIndex(path);
    } catch (e) {
      return fail('corrupt', `hnswlib cannot read ${path}: ${(e as Error).message}`);
    }
    const tombstones = new Set(side.deleted);
    const live = new Set<number>();
    for (const label of native.getIdsList()) if (!tombstones.has(label)) live.add(label);
    if (live.size !== side.count)
      return fail('corrupt', `index holds ${live.size} live labels, sidecar says ${side.count}`);
    const params = { ...side.params, efSearch: options.efSearch ?? side.params.efSearch };
    const index = new HnswIndex(
      native,
      { fingerprint: side.fingerprint, dims: side.dims, stamp: side.stamp },
      resolveHnswParams(params),
      live,
      tombstones,
      'loaded',
    );
    return stale
      ? { index, reason: 'stale', message: `index stamp ${side.stamp} ≠ store stamp ${expected.stamp}` }
      : { index, reason: null, message: null };
  }

  /** {@link HnswIndex.loadOrNull} that throws: NOT_FOUND (missing), CONFLICT (stale), CORRUPT_FILE, SCHEMA (version). */
  static async load(path: string, expected: HnswIdentity, options: HnswLoadOptions = {}): Promise<HnswIndex> {
    const r = await HnswIndex.loadOrNull(path, expected, { ...options, acceptStale: false });
    if (r.index !== null) return r.index;
    const code = (
      { missing: 'NOT_FOUND', stale: 'CONFLICT', corrupt: 'CORRUPT_FILE', version: 'SCHEMA' } as const
    )[r.reason as HnswLoadFailure];
    throw new QuiverError(code, `quiver: hnsw index ${path}: ${r.message}`, {
      details: { path, reason: r.reason },
    });
  }
}
