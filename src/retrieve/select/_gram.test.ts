import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { kernelBytes } from './_gram-kernel.js';
import { gramJs, unitGram } from './_gram.js';

/** Deterministic vectors (Park–Miller) in [−1, 1], as Float32Array like real embeddings. */
function vectors(count: number, dim: number, seed: number): Float32Array[] {
  let x = seed;
  const rnd = () => ((x = (x * 48271) % 2147483647) / 2147483647) * 2 - 1;
  return Array.from({ length: count }, () => Float32Array.from({ length: dim }, rnd));
}

/** Cosine by the textbook formula, in float64 (0 for a zero vector). */
function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let t = 0; t < a.length; t++) {
    ab += a[t]! * b[t]!;
    aa += a[t]! * a[t]!;
    bb += b[t]! * b[t]!;
  }
  return aa === 0 || bb === 0 ? 0 : ab / Math.sqrt(aa * bb);
}

/** The upper triangle of a GramTable as a plain n × n array (j ≥ i), copied out of the shared buffer. */
function upper(vs: ArrayLike<number>[], dim: number, useWasm: boolean): number[][] {
  const { gram, np } = unitGram(vs, dim, useWasm);
  return vs.map((_, i) => vs.map((__, j) => (j >= i ? gram[i * np + j]! : NaN)));
}

describe('unitGram', () => {
  it('the WebAssembly SIMD kernel validates in this runtime', () => {
    expect(WebAssembly.validate(kernelBytes())).toBe(true);
  });

  it('wasm and the JS twin agree bit for bit, and both match the textbook cosine (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 13 }),
        fc.integer({ min: 0, max: 37 }),
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        (n, dim, seed) => {
          const vs = vectors(n, dim, seed);
          const wasmUnits = unitGram(vs, dim, true).units.slice();
          expect(unitGram(vs, dim, false).units).toEqual(wasmUnits);
          const w = upper(vs, dim, true);
          const js = upper(vs, dim, false);
          expect(w).toEqual(js); // toEqual is Object.is on numbers: bit-identical (NaN below the diagonal)
          for (let i = 0; i < n; i++) {
            for (let j = i; j < n; j++)
              expect(Math.abs(w[i]![j]! - cosine(vs[i]!, vs[j]!))).toBeLessThan(1e-14);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('pads odd dimensions and row counts with zeros (stride, padded count)', () => {
    const { ds, np, units } = unitGram(vectors(5, 3, 1), 3);
    expect(ds).toBe(4);
    expect(np).toBe(8);
    for (let r = 0; r < 5; r++) expect(units[r * ds + 3]).toBe(0);
    for (let t = 5 * ds; t < np * ds; t++) expect(units[t]).toBe(0);
    expect(unitGram([], 0).np).toBe(4); // never empty: the kernel's loops run at least once
  });

  it('divides by the norm (correctly rounded): 1-d vectors become exactly ±1, so their cosines tie', () => {
    for (const useWasm of [true, false]) {
      const { units, ds } = unitGram([[0.3], [-7.1], [1e-100], [3]], 1, useWasm);
      expect([0, 1, 2, 3].map((r) => units[r * ds])).toEqual([1, -1, 1, 1]);
    }
  });

  it('a zero vector has cosine 0 with everything, itself included', () => {
    const [a, b] = vectors(2, 6, 3);
    const g = upper([a!, new Float32Array(6), b!], 6, true);
    expect(g[0]![1]).toBe(0);
    expect(g[1]![1]).toBe(0);
    expect(g[1]![2]).toBe(0);
    expect(g[0]![0]).toBeCloseTo(1, 15);
  });

  it('equal rows give bit-identical entries wherever they sit (ties stay exact ties)', () => {
    const [v, w] = vectors(2, 19, 5);
    const rows = [v!, w!, v!, w!, v!, w!, v!, w!, v!, w!];
    const g = upper(rows, 19, true);
    for (let i = 0; i < rows.length; i++) {
      for (let j = i; j < rows.length; j++) {
        const want = i % 2 !== j % 2 ? g[0]![1]! : i % 2 === 0 ? g[0]![0]! : g[1]![1]!;
        expect(g[i]![j]).toBe(want);
      }
    }
  });

  it('accepts plain number arrays and large inputs (a one-off memory above the kept size)', () => {
    const small = upper(
      [
        [3, 4],
        [4, 3],
      ],
      2,
      true,
    );
    expect(small[0]![1]).toBeCloseTo(24 / 25, 15);
    // 2,100 rows: the Gram matrix alone is 35 MB, above the 32 MB kept between calls.
    const vs = vectors(2100, 2, 11);
    const { gram, np } = unitGram(vs, 2);
    for (const [i, j] of [
      [0, 1],
      [5, 2099],
      [2098, 2099],
      [2099, 2099],
    ] as const) {
      expect(Math.abs(gram[i * np + j]! - cosine(vs[i]!, vs[j]!))).toBeLessThan(1e-14);
    }
  });

  it('gramJs fills the upper triangle of padded rows', () => {
    const u = Float64Array.from([1, 0, 0, 1, 1, 0, 0, 0]); // 4 rows × 2: e0, e1, e0, zero
    const g = new Float64Array(16).fill(NaN);
    gramJs(u, 4, 2, g);
    expect(Array.from(g.subarray(0, 4))).toEqual([1, 0, 1, 0]);
    expect(Array.from(g.subarray(5, 8))).toEqual([1, 0, 0]);
    expect(Array.from(g.subarray(10, 12))).toEqual([1, 0]);
    expect(g[15]).toBe(0);
  });
});
