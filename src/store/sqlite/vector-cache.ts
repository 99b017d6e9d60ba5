import { TopK } from '../../math/top-k.js';
import { kthLargest } from '../../math/kth-largest.js';
import { Int8Scan } from './int8-scan.js';
import type { ScanArea } from './vector-scan.js';
import { scanArea } from './vector-scan.js';
export { allocateScanData } from './vector-scan.js';

/**
 * Matrices of at least this many rows pick a query's candidates from an int8 copy first
 * (`int8-scan.ts`) and score only those exactly: at 18,760 SciFact chunks the float32 scan read
 * 38 MB a query.
 */
export const INT8_MIN_ROWS = 4096;

/** Exact scans of a matrix before its int8 copy is built. */
export const INT8_AFTER_SCANS = 3;

/**
 * Candidates an int8 pass keeps for a scan of `limit`: max(2 · limit, limit + 64). int8 scores are
 * within about 1% of the exact ones: on SciFact (18,760 chunks, 809 claims, limit 60) even
 * limit + 8 candidates held 99.99% of the exact top 60, and this margin held all of them.
 */
export const int8Candidates = (limit: number): number => Math.max(2 * limit, limit + 64);

/**
 * The live vectors of one embedder fingerprint, held contiguously for an exact cosine scan
 * (vectors are stored unit-length, so cosine = dot product). Rebuilt from the database when stale.
 *
 * The matrix is copied into WebAssembly memory of its own (no copy when `data` came from
 * {@link allocateScanData}), where a SIMD kernel scores every row (`vector-scan.ts`); without
 * WebAssembly SIMD, above `MAX_WASM_SCAN_BYTES`, or with `useWasm: false`, a JS twin computes the
 * bit-identical scores. `data` is the matrix in use, `count × dims`, row r at `r·dims`.
 */
export class VectorMatrix {
  readonly count: number;
  readonly dims: number;
  /** Chunk id → row, built on the first `vectorsOf`. */
  private rowOf: Map<number, number> | null = null;
  /** The vectors, `count × dims` row-major (a view on the scan's WebAssembly memory when it has one). */
  readonly data: Float32Array;
  private readonly area: ScanArea;

  constructor(
    readonly chunkIds: Float64Array,
    readonly docIds: string[],
    readonly sectionIds: string[],
    data: Float32Array,
    dims: number,
    useWasm = true,
  ) {
    this.count = chunkIds.length;
    this.dims = dims;
    this.area = scanArea(data, this.count, dims, useWasm);
    this.data = this.area.data;
  }

  /** Whether scans run the WebAssembly SIMD kernel (false: the JS twin). */
  get wasm(): boolean {
    return this.area.wasm;
  }

  /** Copies of the rows of the given chunk ids (ids not in the matrix are left out). */
  vectorsOf(chunkIds: readonly number[]): Map<number, Float32Array> {
    if (this.rowOf === null) {
      this.rowOf = new Map();
      for (let r = 0; r < this.count; r++) this.rowOf.set(this.chunkIds[r]!, r);
    }
    const out = new Map<number, Float32Array>();
    for (const id of chunkIds) {
      const r = this.rowOf.get(id);
      if (r !== undefined) out.set(id, this.data.slice(r * this.dims, (r + 1) * this.dims));
    }
    return out;
  }

  /**
   * Indices of the `limit` rows with the highest dot product with `q`, best first (ties: lower
   * index first, as {@link TopK}). Rows for which `allow(row)` is false are skipped inside the scan
   * (filters are never a post-filter); `allow` is asked only about rows whose score would enter the
   * top `limit` so far, in row order. Zero rows (empty text) have no direction and are never
   * returned. A query of the wrong length returns nothing; a NaN score never enters. From
   * `INT8_MIN_ROWS` rows the candidates come from an int8 pass first (`scanInt8`): the same exact
   * scores, and the same rows unless one of the exact top `limit` ranked below the int8 top
   * `int8Candidates(limit)`.
   */
  scan(q: Float32Array, limit: number, allow?: (row: number) => boolean): { index: number; score: number }[] {
    const m = int8Candidates(limit);
    // The int8 copy costs about as much to build as ten exact scans: a process that searches once
    // (one CLI search) scans exactly; from the fourth scan of this matrix on, the copy pays off.
    if (
      this.count >= INT8_MIN_ROWS &&
      m < this.count &&
      q.length === this.dims &&
      limit > 0 &&
      (this.int8 !== null || ++this.exactScans > INT8_AFTER_SCANS)
    )
      return this.scanInt8(q, limit, m, allow);
    return this.scanExact(q, limit, allow);
  }

  private exactScans = 0;

  /** Whether scans now pick candidates from the int8 copy (built after `INT8_AFTER_SCANS` scans). */
  get int8Ready(): boolean {
    return this.int8 !== null;
  }

  private int8: Int8Scan | null = null;
  private approx: Float64Array | null = null;
  private scratch: Float64Array | null = null;

  /**
   * {@link scan} in two passes: the `m` best rows by int8 score (`int8-scan.ts`; `allow` asked as
   * in the exact scan, all-zero rows skipped), then those rows scored exactly, in row order, so the
   * scores and the order of ties are the exact scan's. It returns the exact scan's rows unless a
   * row of the exact top `limit` fell outside the int8 top `m`.
   */
  private scanInt8(
    q: Float32Array,
    limit: number,
    m: number,
    allow?: (row: number) => boolean,
  ): { index: number; score: number }[] {
    const { dims, data } = this;
    this.int8 ??= new Int8Scan(data, this.count, dims, this.area.wasm);
    const ints = this.int8.dots(q);
    const scales = this.int8.scales;
    let rows: number[];
    if (allow === undefined) {
      // The m-th best approximate score by quickselect, then the rows at or above it, in row order.
      const approx = (this.approx ??= new Float64Array(this.count));
      for (let r = 0; r < this.count; r++) {
        const s = scales[r]!;
        approx[r] = s === 0 ? -Infinity : s * ints[r]!; // an all-zero row: no direction
      }
      const t = kthLargest(approx, m, (this.scratch ??= new Float64Array(this.count)));
      rows = [];
      for (let r = 0; r < this.count; r++) if (approx[r]! >= t && approx[r]! > -Infinity) rows.push(r);
    } else {
      const pre = new TopK(m);
      for (let r = 0; r < this.count; r++) {
        const s = scales[r]!;
        if (s === 0) continue;
        const a = s * ints[r]!;
        if (!(a >= pre.threshold)) continue;
        if (!allow(r)) continue;
        pre.push(r, a);
      }
      rows = pre
        .result()
        .map((x) => x.index)
        .sort((x, y) => x - y);
    }
    const exact = this.area.dotsOf(q, rows);
    const top = new TopK(limit);
    for (const r of rows) {
      const s = exact[r]!;
      if (!(s >= top.threshold)) continue;
      if (s === 0 && isZeroRow(data, r * dims, dims)) continue;
      top.push(r, s);
    }
    return top.result();
  }

  /** The exact scan over every row (the reference {@link scan} approaches above `INT8_MIN_ROWS`). */
  scanExact(
    q: Float32Array,
    limit: number,
    allow?: (row: number) => boolean,
  ): { index: number; score: number }[] {
    const { dims, data, count } = this;
    if (q.length !== dims || limit <= 0 || count === 0) return [];
    const scores = this.area.dots(q);
    const top = new TopK(limit);
    for (let r = 0; r < count; r++) {
      const s = scores[r]!;
      if (!(s >= top.threshold)) continue;
      if (allow !== undefined && !allow(r)) continue;
      if (s === 0 && isZeroRow(data, r * dims, dims)) continue; // dot 0 with everything: no direction
      top.push(r, s);
    }
    return top.result();
  }
}

/** Whether the `dims` values of `data` from `off` are all zero (true for `dims = 0`). */
function isZeroRow(data: Float32Array, off: number, dims: number): boolean {
  for (let j = off; j < off + dims; j++) if (data[j] !== 0) return false;
  return true;
}
