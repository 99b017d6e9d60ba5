import { TopK } from '../../retrieve/top-k.js';
import type { ScanArea } from './vector-scan.js';
import { scanArea } from './vector-scan.js';
export { allocateScanData } from './vector-scan.js';

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
   * returned. A query of the wrong length returns nothing; a NaN score never enters.
   */
  scan(q: Float32Array, limit: number, allow?: (row: number) => boolean): { index: number; score: number }[] {
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
