/**
 * Internal: unit vectors and their cosine Gram matrix, the O(N²·dim) part of Dartboard, in a small
 * WebAssembly SIMD kernel (`_gram-kernel.ts`; f64x2, so still double precision) with a plain-JS
 * twin that gives bit-identical results where WebAssembly SIMD is missing. Not re-exported.
 *
 * Layout (shared by both paths): the unit vectors sit row-major with a row stride `ds` = `dim`
 * rounded up to even (at least 2), zero-padded, and the row count is padded to `np`, a multiple
 * of 4, with zero rows. The Gram matrix is `np × np`; only its upper triangle (j ≥ i) is filled.
 * Every entry is one fixed sum, `(Σ_{t even} a_t·b_t) + (Σ_{t odd} a_t·b_t)`, each half left to
 * right, so equal rows give bit-identical entries wherever they sit and `G_ij = G_ji`. A row is
 * normalised as `x_t / √((Σ_{t even} x_t²) + (Σ_{t odd} x_t²))`, divided rather than multiplied by a
 * reciprocal: the quotient is correctly rounded, so a one-dimensional vector becomes exactly ±1, as
 * with the reference's `v / ‖v‖` (and ties between such vectors stay ties).
 */
import { kernelBytes } from './_gram-kernel.js';

/** Padded layout of a Gram computation: row stride, padded row count and the two views. */
export interface GramTable {
  /** Row stride of `units` (`dim` rounded up to even, at least 2). */
  ds: number;
  /** Padded row count (a multiple of 4 ≥ N); the row stride of `gram`. */
  np: number;
  /** Unit rows, `np × ds`; row r at `r·ds`; zero vectors and padding stay all zeros. */
  units: Float64Array;
  /** `gram[i·np + j] = units_i · units_j` for j ≥ i (the lower triangle is unspecified). */
  gram: Float64Array;
}

/** Wasm memory kept between calls, in bytes (32 MB: N = 1,000 at 2,048 dimensions). */
const RETAIN_BYTES = 32 << 20;
const PAGE = 65536;
/** A 32-bit wasm memory holds at most 4 GiB. */
const MAX_PAGES = 65536;

/**
 * Normalises `vectors` (each `dim` long) into unit rows and fills the upper triangle of their Gram
 * matrix, in double precision. A zero vector stays zero (cosine 0 with everything, itself included).
 * The returned views live in a buffer reused by the next call: read them before calling again.
 * `useWasm: false` forces the JS twin (for tests).
 */
export function unitGram(vectors: readonly ArrayLike<number>[], dim: number, useWasm = true): GramTable {
  const n = vectors.length;
  const ds = Math.max(2, dim + (dim & 1));
  const np = Math.max(4, (n + 3) & ~3);
  const unitBytes = np * ds * 8;
  const bytes = unitBytes + np * np * 8;
  const wasm = useWasm ? wasmFor(bytes) : undefined;
  const buffer = wasm?.memory.buffer ?? jsBuffer(bytes);
  const units = new Float64Array(buffer, 0, np * ds);
  const gram = new Float64Array(buffer, unitBytes, np * np);
  units.fill(0);
  for (let r = 0; r < n; r++) units.set(vectors[r]!, r * ds);
  if (wasm === undefined) {
    for (let r = 0; r < n; r++) normalizeJs(units, r * ds, ds);
    gramJs(units, np, ds, gram);
  } else {
    wasm.normalize(0, n, ds); // n = 0 touches only the zero padding row 0
    wasm.gram(0, np, ds, unitBytes);
  }
  return { ds, np, units, gram };
}

/** The JS twin of the kernel's `normalize` for the row at `base` (`ds` long, even). */
export function normalizeJs(u: Float64Array, base: number, ds: number): void {
  let even = 0;
  let odd = 0;
  for (let t = base; t < base + ds; t += 2) {
    even += u[t]! * u[t]!;
    odd += u[t + 1]! * u[t + 1]!;
  }
  const norm = Math.sqrt(even + odd);
  if (norm > 0) for (let t = base; t < base + ds; t++) u[t] = u[t]! / norm;
}

/**
 * The JS twin of the kernel: the same per-entry sum (two interleaved accumulators, even and odd t,
 * added at the end), so both paths agree bit for bit. Four columns at a time share each load of
 * row i.
 */
export function gramJs(u: Float64Array, np: number, ds: number, g: Float64Array): void {
  for (let i = 0; i < np; i++) {
    const a = i * ds;
    for (let j = i & ~3; j < np; j += 4) {
      const b0 = j * ds;
      const b1 = b0 + ds;
      const b2 = b1 + ds;
      const b3 = b2 + ds;
      let e0 = 0, e1 = 0, e2 = 0, e3 = 0; // prettier-ignore
      let o0 = 0, o1 = 0, o2 = 0, o3 = 0; // prettier-ignore
      for (let t = 0; t < ds; t += 2) {
        const x = u[a + t]!;
        const y = u[a + t + 1]!;
        e0 += x * u[b0 + t]!;
        o0 += y * u[b0 + t + 1]!;
        e1 += x * u[b1 + t]!;
        o1 += y * u[b1 + t + 1]!;
        e2 += x * u[b2 + t]!;
        o2 += y * u[b2 + t + 1]!;
        e3 += x * u[b3 + t]!;
        o3 += y * u[b3 + t + 1]!;
      }
      const o = i * np + j;
      g[o] = e0 + o0;
      g[o + 1] = e1 + o1;
      g[o + 2] = e2 + o2;
      g[o + 3] = e3 + o3;
    }
  }
}

interface WasmGram {
  memory: WebAssembly.Memory;
  /** `normalize(unitsByteOffset, rows, ds)`: each row to unit length (at least one row). */
  normalize: (u: number, rows: number, ds: number) => void;
  /** `gram(unitsByteOffset, np, ds, gramByteOffset)`. */
  gram: (u: number, np: number, ds: number, g: number) => void;
}

let compiled: WebAssembly.Module | null | undefined;
let kept: WasmGram | undefined;
let keptJs: ArrayBuffer | undefined;

/** A buffer of at least `bytes` for the JS path, kept between calls up to RETAIN_BYTES. */
function jsBuffer(bytes: number): ArrayBuffer {
  if (bytes > RETAIN_BYTES) return new ArrayBuffer(bytes);
  if (keptJs === undefined || keptJs.byteLength < bytes) {
    keptJs = new ArrayBuffer(Math.min(RETAIN_BYTES, Math.max(bytes, 2 * (keptJs?.byteLength ?? 0))));
  }
  return keptJs;
}

/** An instance whose memory holds at least `bytes`, or undefined without WebAssembly SIMD. */
function wasmFor(bytes: number): WasmGram | undefined {
  if (compiled === undefined) {
    const code = kernelBytes();
    compiled =
      typeof WebAssembly === 'object' && WebAssembly.validate(code) ? new WebAssembly.Module(code) : null;
  }
  if (compiled === null) return undefined;
  const pages = Math.ceil(bytes / PAGE);
  if (pages > MAX_PAGES) return undefined; // beyond 32-bit addresses: the JS path (N ≳ 23,000)
  if (bytes > RETAIN_BYTES) return instantiate(compiled, pages); // one-off, dropped after the call
  if (kept === undefined) kept = instantiate(compiled, pages);
  const have = kept.memory.buffer.byteLength / PAGE;
  if (have < pages) kept.memory.grow(Math.max(pages, Math.min(2 * have, RETAIN_BYTES / PAGE)) - have);
  return kept;
}

function instantiate(module: WebAssembly.Module, pages: number): WasmGram {
  const memory = new WebAssembly.Memory({ initial: pages });
  const instance = new WebAssembly.Instance(module, { env: { mem: memory } });
  const { normalize, gram } = instance.exports as unknown as Pick<WasmGram, 'normalize' | 'gram'>;
  return { memory, normalize, gram };
}
