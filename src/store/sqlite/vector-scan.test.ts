import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TopK } from '../../math/top-k.js';
import { allocateScanData, VectorMatrix } from './vector-cache.js';
import { dotsJs, scanArea } from './vector-scan.js';
import { scanKernelBytes } from './vector-scan-kernel.js';

/** Deterministic float32 values (Park–Miller) in [−1, 1]. */
function floats(length: number, seed: number): Float32Array {
  let x = seed;
  const rnd = () => ((x = (x * 48271) % 2147483647) / 2147483647) * 2 - 1;
  return Float32Array.from({ length }, rnd);
}

/** The scan as it was before the kernel (plain JS, four accumulators): the reference. */
function referenceScan(
  data: Float32Array,
  count: number,
  dims: number,
  q: Float32Array,
  limit: number,
  allow?: (row: number) => boolean,
): { index: number; score: number }[] {
  if (q.length !== dims) return [];
  const top = new TopK(limit);
  for (let r = 0, off = 0; r < count; r++, off += dims) {
    if (allow !== undefined && !allow(r)) continue;
    let s = 0;
    for (let i = 0; i < dims; i++) s += q[i]! * data[off + i]!;
    if (s === 0 && data.subarray(off, off + dims).every((v) => v === 0)) continue;
    if (s >= top.threshold) top.push(r, s);
  }
  return top.result();
}

const matrix = (data: Float32Array, count: number, dims: number, useWasm = true) =>
  new VectorMatrix(
    Float64Array.from({ length: count }, (_, i) => i + 1),
    [],
    [],
    data,
    dims,
    useWasm,
  );

describe('vector scan kernel', () => {
  it('the WebAssembly SIMD module validates in this runtime, and VectorMatrix uses it', () => {
    expect(WebAssembly.validate(scanKernelBytes())).toBe(true);
    expect(matrix(floats(8, 1), 1, 8).wasm).toBe(true);
    expect(matrix(floats(8, 1), 1, 8, false).wasm).toBe(false);
  });

  it('wasm scores equal the JS twin bit for bit, and the float64 dot product within 1e-12 (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 45 }),
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        (rows, dims, seed) => {
          const data = floats(rows * dims, seed);
          const q = floats(dims, seed ^ 0x5bd1e995 || 1);
          const w = scanArea(data, rows, dims);
          expect(w.wasm).toBe(true);
          const wasm = w.dots(q).slice();
          const js = scanArea(data, rows, dims, false).dots(q).slice();
          expect(wasm).toEqual(js); // Object.is per element: bit-identical
          for (let r = 0; r < rows; r++) {
            let s = 0;
            for (let t = 0; t < dims; t++) s += q[t]! * data[r * dims + t]!;
            expect(Math.abs(wasm[r]! - s)).toBeLessThan(1e-12);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('sums in the documented order: eight interleaved lanes, paired, then the tail', () => {
    // dims 10: lane k gets t = k, the tail is t = 8, 9. Above 2^53 the float64 spacing is 2, so
    // adding 1 twice is lost while adding 2 once is not: the grouping shows in the result.
    const q = new Float64Array(10).fill(1);
    const row = Float32Array.from([2 ** 53, 0, 0, 0, 1, 0, 1, 0, 1, 1]);
    const out = new Float64Array(1);
    dotsJs(q, row, 1, 10, out);
    // lane0 = (2^53 + 0) + (1 + 1) = 2^53 + 2; lane1 = 0; rest = 1 + 1 = 2.
    expect(out[0]).toBe(2 ** 53 + 4);
    expect(scanArea(row, 1, 10).dots(Float32Array.from(q))[0]).toBe(2 ** 53 + 4);
    expect(row.reduce((s, v) => s + v, 0)).toBe(2 ** 53); // left to right would lose every 1
  });
});

describe('VectorMatrix.scan', () => {
  it('agrees with the plain JS reference: indices, scores, limit > rows, allow filters (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 60 }),
        fc.constantFrom(1, 3, 7, 8, 13, 37, 64, 515),
        fc.integer({ min: 0, max: 70 }),
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        fc.option(fc.integer({ min: 2, max: 5 })),
        (rows, dims, limit, seed, modulus) => {
          const data = floats(rows * dims, seed);
          const q = floats(dims, (seed * 7) % 2147483647 || 1);
          const allow = modulus === null ? undefined : (r: number) => r % modulus !== 1;
          const want = referenceScan(data, rows, dims, q, limit, allow);
          const wasm = matrix(data, rows, dims).scan(q, limit, allow);
          const js = matrix(data, rows, dims, false).scan(q, limit, allow);
          expect(wasm).toEqual(js);
          expect(wasm.map((h) => h.index)).toEqual(want.map((h) => h.index));
          wasm.forEach((h, i) => expect(Math.abs(h.score - want[i]!.score)).toBeLessThan(1e-12));
          expect(wasm.length).toBe(Math.min(limit, allow === undefined ? rows : want.length));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('never returns zero rows, but keeps a non-zero row orthogonal to the query (score 0)', () => {
    const dims = 11;
    const data = floats(5 * dims, 3);
    data.fill(0, 1 * dims, 2 * dims); // row 1: zero
    data.fill(0, 3 * dims, 4 * dims); // row 3: e0 (orthogonal to q below)
    data[3 * dims] = 1;
    const q = floats(dims, 9);
    q[0] = 0;
    for (const useWasm of [true, false]) {
      const hits = matrix(data, 5, dims, useWasm).scan(q, 10);
      expect(hits.map((h) => h.index).sort()).toEqual([0, 2, 3, 4]);
      expect(hits.find((h) => h.index === 3)?.score).toBe(0);
    }
    // A matrix of zero rows only, or of zero dimensions, returns nothing.
    expect(matrix(new Float32Array(3 * 4), 3, 4).scan(floats(4, 2), 5)).toEqual([]);
    expect(matrix(new Float32Array(0), 3, 0).scan(new Float32Array(0), 5)).toEqual([]);
  });

  it('breaks ties as TopK does: equal rows score bit-identically, lower index first', () => {
    const dims = 19;
    const [a, b] = [floats(dims, 5), floats(dims, 6)];
    const rows = [b, a, b, a, a, b, a];
    const data = new Float32Array(rows.length * dims);
    rows.forEach((v, i) => data.set(v, i * dims));
    for (const useWasm of [true, false]) {
      const hits = matrix(data, rows.length, dims, useWasm).scan(a, 3);
      expect(hits.map((h) => h.index)).toEqual([1, 3, 4]);
      expect(new Set(hits.map((h) => h.score)).size).toBe(1);
      expect(hits.map((h) => h.index)).toEqual(
        referenceScan(data, rows.length, dims, a, 3).map((h) => h.index),
      );
    }
  });

  it('returns nothing for a wrong-length query or limit ≤ 0, and never returns a NaN row', () => {
    const data = floats(4 * 9, 8);
    data[2 * 9 + 4] = NaN;
    for (const useWasm of [true, false]) {
      const m = matrix(data, 4, 9, useWasm);
      expect(m.scan(floats(8, 1), 3)).toEqual([]);
      expect(m.scan(floats(9, 1), 0)).toEqual([]);
      expect(
        m
          .scan(floats(9, 1), 10)
          .map((h) => h.index)
          .sort(),
      ).toEqual([0, 1, 3]);
    }
  });

  it('keeps `data` a Float32Array of count × dims, equal to the input, on wasm memory of its own', () => {
    const small = floats(3 * 5, 1);
    const m1 = matrix(small, 3, 5);
    expect(m1.data).toBeInstanceOf(Float32Array);
    expect(m1.data.buffer).not.toBe(small.buffer); // copied into WebAssembly memory
    expect(m1.data).toEqual(small);
    // A second, much larger matrix (≈ 8 MB: many pages) gets its own memory; the first stays valid.
    const rows = 4100;
    const dims = 515;
    const big = floats(rows * dims, 2);
    const m2 = matrix(big, rows, dims);
    expect(m2.wasm).toBe(true);
    expect(m2.data.length).toBe(big.length);
    expect(m2.data.every((v, i) => Object.is(v, big[i]))).toBe(true);
    const q = floats(dims, 3);
    expect(m2.scan(q, 7)).toEqual(matrix(big, rows, dims, false).scan(q, 7));
    expect(m2.scan(q, 7).map((h) => h.index)).toEqual(
      referenceScan(big, rows, dims, q, 7).map((h) => h.index),
    );
    expect(m1.data.length).toBe(15); // not detached
    expect(m1.data).toEqual(small);
    expect(m1.scan(floats(5, 4), 2)).toEqual(matrix(small, 3, 5, false).scan(floats(5, 4), 2));
  });

  it('uses a buffer from allocateScanData as is; a data length ≠ count × dims takes the JS path', () => {
    const data = allocateScanData(6, 10);
    expect(data.length).toBe(60);
    expect(data.every((v) => v === 0)).toBe(true);
    data.set(floats(60, 12));
    const m = matrix(data, 6, 10);
    expect(m.data).toBe(data);
    expect(m.wasm).toBe(true);
    const q = floats(10, 13);
    expect(m.scan(q, 4)).toEqual(matrix(data.slice(), 6, 10, false).scan(q, 4));
    const odd = matrix(floats(61, 12), 6, 10);
    expect(odd.wasm).toBe(false);
    expect(odd.scan(q, 4)).toEqual(m.scan(q, 4));
  });
});
