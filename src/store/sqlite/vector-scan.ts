/**
 * Internal: the dot products of the exact vector scan, one float64 score per row, in a small
 * WebAssembly SIMD kernel (`vector-scan-kernel.ts`) with a plain-JS twin, `dotsJs`, that gives
 * bit-identical scores where WebAssembly SIMD is missing (or the matrix is too large for it).
 *
 * Each matrix gets its own `WebAssembly.Memory`, sized once for it and never grown, so the
 * `Float32Array` views handed out stay valid (growing a memory detaches its old views). Layout:
 * `[query: dims float64, padded to 16 bytes][scores: rows float64, padded][matrix: rows × dims float32,
 * padded][gathered rows: min(rows, GATHER_ROWS) × dims float32, padded][their scores]`.
 */
import { compiledOnce } from '../../math/wasm-encode.js';
import { scanKernelBytes } from './vector-scan-kernel.js';

/** Matrices above this size (bytes) stay in plain JS memory and use the JS twin (512 MiB). */
export const MAX_WASM_SCAN_BYTES = 512 << 20;
const PAGE = 65536;

/** A matrix ready to score queries: `data` (rows × dims, row-major) and a `dots` that scores it. */
export interface ScanArea {
  /** The matrix, `rows × dims`; a view on WebAssembly memory when `wasm` is true. */
  readonly data: Float32Array;
  /** Whether `dots` runs the WebAssembly kernel (false: the JS twin). */
  readonly wasm: boolean;
  /**
   * `scores[r] = q · row r` for every row (see `dotsJs` for the exact summation order). The returned
   * array is reused by the next call: read it before calling again. `q.length` must equal `dims`.
   */
  dots(q: Float32Array): Float64Array;
  /**
   * As {@link dots}, for the listed rows only: `scores[r]` is set for each r in `rows` (the same
   * value `dots` gives), other entries are left as they were. Same reused array.
   */
  dotsOf(q: Float32Array, rows: readonly number[]): Float64Array;
}

interface Kernel {
  memory: WebAssembly.Memory;
  dots: (q: number, m: number, rows: number, dims: number, out: number) => void;
}

interface WasmLayout {
  kernel: Kernel;
  rows: number;
  dims: number;
  q: Float64Array;
  scores: Float64Array;
  data: Float32Array;
  /** Room for {@link GATHER_ROWS} rows copied together, and their scores (`dotsOf`). */
  gather: Float32Array;
  gatherScores: Float64Array;
}

/**
 * Rows `dotsOf` copies side by side and scores in one kernel call, rather than one call per row:
 * each call from JS into WebAssembly costs about as much as scoring a few rows.
 */
export const GATHER_ROWS = 512;

/** Data views created by {@link allocateScanData}, so {@link scanArea} can use them without a copy. */
const allocated = new WeakMap<Float32Array, WasmLayout>();
/** The compiled kernel, or null without WebAssembly SIMD. */
const kernelModule = compiledOnce(scanKernelBytes);

const pad16 = (bytes: number) => (bytes + 15) & ~15;

/** A fresh memory and instance laid out for `rows × dims`, or undefined (no SIMD, too big, no memory). */
function wasmLayout(rows: number, dims: number): WasmLayout | undefined {
  const module = kernelModule();
  if (module === null) return undefined;
  const qBytes = pad16(dims * 8);
  const outBytes = pad16(rows * 8);
  const gatherRows = Math.min(rows, GATHER_ROWS);
  const matrixBytes = pad16(rows * dims * 4);
  const gatherBytes = pad16(gatherRows * dims * 4);
  const bytes = qBytes + outBytes + matrixBytes + gatherBytes + gatherRows * 8;
  if (bytes > MAX_WASM_SCAN_BYTES) return undefined;
  let memory: WebAssembly.Memory;
  try {
    memory = new WebAssembly.Memory({ initial: Math.max(1, Math.ceil(bytes / PAGE)) });
  } catch {
    return undefined; // address space or memory exhausted: the JS path still works
  }
  const instance = new WebAssembly.Instance(module, { env: { mem: memory } });
  const { dots } = instance.exports as unknown as Pick<Kernel, 'dots'>;
  const buf = memory.buffer;
  return {
    kernel: { memory, dots },
    rows,
    dims,
    q: new Float64Array(buf, 0, dims),
    scores: new Float64Array(buf, qBytes, rows),
    data: new Float32Array(buf, qBytes + outBytes, rows * dims),
    gather: new Float32Array(buf, qBytes + outBytes + matrixBytes, gatherRows * dims),
    gatherScores: new Float64Array(buf, qBytes + outBytes + matrixBytes + gatherBytes, gatherRows),
  };
}

/**
 * A zeroed `rows × dims` Float32Array to fill with vectors before building a `VectorMatrix` from it:
 * it lives in WebAssembly memory laid out for the scan, so the matrix uses it as is (no copy). A
 * plain Float32Array when WebAssembly SIMD is unavailable or the matrix is above
 * {@link MAX_WASM_SCAN_BYTES}.
 */
export function allocateScanData(rows: number, dims: number): Float32Array {
  const layout = wasmLayout(rows, dims);
  if (layout === undefined) return new Float32Array(rows * dims);
  allocated.set(layout.data, layout);
  return layout.data;
}

/**
 * Prepares `data` (`rows × dims`, row-major) for scoring. With `useWasm` (the default) and
 * WebAssembly SIMD available, the matrix is copied into a WebAssembly memory of its own (unless it
 * came from {@link allocateScanData}); otherwise, or when `data.length ≠ rows × dims` or the matrix
 * exceeds {@link MAX_WASM_SCAN_BYTES}, `data` is kept as is and scored by {@link dotsJs}. Both paths
 * give bit-identical scores.
 */
export function scanArea(data: Float32Array, rows: number, dims: number, useWasm = true): ScanArea {
  if (useWasm && data.length === rows * dims && rows > 0) {
    const own = allocated.get(data);
    const layout = own !== undefined && own.rows === rows && own.dims === dims ? own : wasmLayout(rows, dims);
    if (layout !== undefined) {
      if (layout !== own) layout.data.set(data);
      const { kernel, q, scores } = layout;
      const qAt = q.byteOffset;
      const outAt = scores.byteOffset;
      const dataAt = layout.data.byteOffset;
      return {
        data: layout.data,
        wasm: true,
        dots(query: Float32Array): Float64Array {
          q.set(query);
          kernel.dots(qAt, dataAt, rows, dims, outAt);
          return scores;
        },
        dotsOf(query: Float32Array, which: readonly number[]): Float64Array {
          q.set(query);
          const { gather, gatherScores, data } = layout;
          const room = gatherScores.length;
          for (let from = 0; from < which.length; from += room) {
            const part = which.slice(from, from + room);
            part.forEach((r, i) => gather.set(data.subarray(r * dims, (r + 1) * dims), i * dims));
            kernel.dots(qAt, gather.byteOffset, part.length, dims, gatherScores.byteOffset);
            part.forEach((r, i) => (scores[r] = gatherScores[i]!));
          }
          return scores;
        },
      };
    }
  }
  const q = new Float64Array(dims);
  const scores = new Float64Array(rows);
  return {
    data,
    wasm: false,
    dots(query: Float32Array): Float64Array {
      q.set(query);
      dotsJs(q, data, rows, dims, scores);
      return scores;
    },
    dotsOf(query: Float32Array, which: readonly number[]): Float64Array {
      q.set(query);
      for (const r of which)
        dotsJs(q, data.subarray(r * dims, (r + 1) * dims), 1, dims, scores.subarray(r, r + 1));
      return scores;
    },
  };
}

/**
 * The JS twin of the kernel: `out[r] = Σ_t q_t · data[r·dims + t]` in float64, summed in the
 * kernel's order. With e_k the left-to-right sum over t ≡ k (mod 8) below `dims & ~7`, and `rest`
 * the left-to-right sum over the last `dims mod 8` terms:
 * `out[r] = (((e0 + e2) + (e4 + e6)) + ((e1 + e3) + (e5 + e7))) + rest`.
 * Products of float32 values are exact in float64, so only the additions round. `dims = 0` gives 0.
 */
export function dotsJs(
  q: ArrayLike<number>,
  data: ArrayLike<number>,
  rows: number,
  dims: number,
  out: Float64Array,
): void {
  const d8 = dims & ~7;
  for (let r = 0, a = 0; r < rows; r++, a += dims) {
    let e0 = 0, e1 = 0, e2 = 0, e3 = 0, e4 = 0, e5 = 0, e6 = 0, e7 = 0; // prettier-ignore
    let t = 0;
    for (; t < d8; t += 8) {
      const p = a + t;
      e0 += q[t]! * data[p]!;
      e1 += q[t + 1]! * data[p + 1]!;
      e2 += q[t + 2]! * data[p + 2]!;
      e3 += q[t + 3]! * data[p + 3]!;
      e4 += q[t + 4]! * data[p + 4]!;
      e5 += q[t + 5]! * data[p + 5]!;
      e6 += q[t + 6]! * data[p + 6]!;
      e7 += q[t + 7]! * data[p + 7]!;
    }
    let rest = 0;
    for (; t < dims; t++) rest += q[t]! * data[a + t]!;
    const lane0 = e0 + e2 + (e4 + e6); // (e0 + e2) + (e4 + e6)
    const lane1 = e1 + e3 + (e5 + e7);
    out[r] = lane0 + lane1 + rest; // (lane0 + lane1) + rest
  }
}
