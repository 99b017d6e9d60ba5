/**
 * Internal: an int8 copy of a scan matrix, a quarter of the float32 bytes, to choose candidates
 * for the exact scan (`vector-cache.ts`): a query reads 4× less memory, and at tens of thousands of
 * 512-dimension rows the float32 scan is bound by memory bandwidth, not arithmetic.
 *
 * Quantisation, per row (and for the query): s = max_t |x_t| / 127, x8_t = round(x_t / s) ∈
 * [−127, 127], so x_t ≈ s · x8_t with |x_t − s · x8_t| ≤ s / 2. A row's approximate score is
 * s_row · (q8 · x8_row) (the query's own scale is common to every row and left out: it does not
 * change the order). An all-zero row gets s = 0 and every x8 = 0. Rows are padded with zeros to a
 * multiple of 16 dimensions for the SIMD kernel (`int8-scan-kernel.ts`); `dotsInt8Js` is its
 * plain-JS twin, and both are exact integer arithmetic, so they agree everywhere.
 */
import { compiledOnce } from '../../math/wasm-encode.js';
import { int8KernelBytes } from './int8-scan-kernel.js';

const PAGE = 65536;
/** int8 matrices above this many bytes use the JS twin (256 MiB). */
export const MAX_WASM_INT8_BYTES = 256 << 20;

/** Rows padded to a multiple of 16 dimensions. */
export const paddedDims = (dims: number): number => (dims + 15) & ~15;

/**
 * Quantise `count` values of `src` from `from` into `out` from `at` (the rule above); returns the
 * scale s (0 for an all-zero or empty vector, whose codes are all 0). NaN values count as 0.
 */
export function quantizeInt8(
  src: ArrayLike<number>,
  from: number,
  count: number,
  out: Int8Array,
  at: number,
): number {
  let max = 0;
  for (let t = 0; t < count; t++) {
    const a = Math.abs(src[from + t]!);
    if (a > max) max = a;
  }
  if (!(max > 0)) {
    out.fill(0, at, at + count);
    return 0;
  }
  const inv = 127 / max;
  for (let t = 0; t < count; t++) {
    const v = src[from + t]!;
    out[at + t] = v === v ? Math.round(v * inv) : 0;
  }
  return max / 127;
}

/** The JS twin of the kernel: `out[r] = Σ_t q8_t · m8[r · dims + t]` (exact int32). */
export function dotsInt8Js(q8: Int8Array, m8: Int8Array, rows: number, dims: number, out: Int32Array): void {
  for (let r = 0, a = 0; r < rows; r++, a += dims) {
    let s = 0;
    for (let t = 0; t < dims; t++) s += q8[t]! * m8[a + t]!;
    out[r] = s;
  }
}

/** The compiled kernel, or null without WebAssembly SIMD. */
const kernelModule = compiledOnce(int8KernelBytes);

/** An int8 copy of a `rows × dims` float32 matrix, scoring queries approximately (see above). */
export class Int8Scan {
  readonly rows: number;
  readonly dims: number;
  /** Scale of each row (0 for an all-zero row). */
  readonly scales: Float32Array;
  /** Whether `dots` runs the WebAssembly kernel (false: the JS twin). */
  readonly wasm: boolean;
  private readonly stride: number;
  private readonly q8: Int8Array;
  private readonly m8: Int8Array;
  private readonly out: Int32Array;
  private readonly kernel: ((q: number, m: number, rows: number, dims: number, out: number) => void) | null;

  constructor(data: Float32Array, rows: number, dims: number, useWasm = true) {
    this.rows = rows;
    this.dims = dims;
    const stride = (this.stride = paddedDims(dims));
    this.scales = new Float32Array(rows);
    const qBytes = stride;
    const outBytes = (rows * 4 + 15) & ~15;
    const bytes = qBytes + outBytes + rows * stride;
    const module = useWasm && bytes <= MAX_WASM_INT8_BYTES ? kernelModule() : null;
    let memory: WebAssembly.Memory | null = null;
    if (module !== null) {
      try {
        memory = new WebAssembly.Memory({ initial: Math.max(1, Math.ceil(bytes / PAGE)) });
      } catch {
        memory = null; // address space exhausted: the JS twin still works
      }
    }
    if (module !== null && memory !== null) {
      const { dots8 } = new WebAssembly.Instance(module, { env: { mem: memory } }).exports as unknown as {
        dots8: (q: number, m: number, rows: number, dims: number, out: number) => void;
      };
      this.kernel = dots8;
      this.q8 = new Int8Array(memory.buffer, 0, stride);
      this.out = new Int32Array(memory.buffer, qBytes, rows);
      this.m8 = new Int8Array(memory.buffer, qBytes + outBytes, rows * stride);
      this.wasm = true;
    } else {
      this.kernel = null;
      this.q8 = new Int8Array(stride);
      this.out = new Int32Array(rows);
      this.m8 = new Int8Array(rows * stride);
      this.wasm = false;
    }
    for (let r = 0; r < rows; r++) this.scales[r] = quantizeInt8(data, r * dims, dims, this.m8, r * stride);
  }

  /**
   * `out[r] = q8 · x8_r` for every row, with q quantised as the rows are; multiply by `scales[r]`
   * for the approximate score. The array is reused by the next call.
   */
  dots(q: Float32Array): Int32Array {
    quantizeInt8(q, 0, this.dims, this.q8, 0);
    if (this.kernel !== null)
      this.kernel(this.q8.byteOffset, this.m8.byteOffset, this.rows, this.stride, this.out.byteOffset);
    else dotsInt8Js(this.q8, this.m8, this.rows, this.stride, this.out);
    return this.out;
  }
}
