import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dotsInt8Js, Int8Scan, paddedDims, quantizeInt8 } from './int8-scan.js';
import { int8KernelBytes } from './int8-scan-kernel.js';
import { INT8_MIN_ROWS, int8Candidates, VectorMatrix } from './vector-cache.js';

/** Deterministic float32 values (Park–Miller) in [−1, 1]. */
function floats(length: number, seed: number): Float32Array {
  let x = seed;
  const rnd = () => ((x = (x * 48271) % 2147483647) / 2147483647) * 2 - 1;
  return Float32Array.from({ length }, rnd);
}

/** Rows of unit length (as vaults store them). */
function unitRows(rows: number, dims: number, seed: number): Float32Array {
  const data = floats(rows * dims, seed);
  for (let r = 0; r < rows; r++) {
    let n = 0;
    for (let t = 0; t < dims; t++) n += data[r * dims + t]! ** 2;
    const s = 1 / Math.sqrt(n);
    for (let t = 0; t < dims; t++) data[r * dims + t]! *= s;
  }
  return data;
}

describe('quantizeInt8', () => {
  it('maps the largest magnitude to ±127 and keeps every value within half a step', () => {
    fc.assert(
      fc.property(
        fc.array(fc.float({ min: -10, max: 10, noNaN: true }), { minLength: 1, maxLength: 40 }),
        (xs) => {
          const out = new Int8Array(xs.length);
          const s = quantizeInt8(xs, 0, xs.length, out, 0);
          const max = Math.max(...xs.map(Math.abs));
          if (max === 0) {
            expect(s).toBe(0);
            expect([...out].every((v) => v === 0)).toBe(true);
            return;
          }
          expect(s).toBeCloseTo(max / 127, 12);
          xs.forEach((x, i) => expect(Math.abs(x - s * out[i]!)).toBeLessThanOrEqual(s / 2 + 1e-12));
          expect(Math.max(...[...out].map(Math.abs))).toBe(127);
        },
      ),
    );
  });

  it('gives scale 0 and zero codes for an empty, all-zero or NaN vector, at the offsets asked', () => {
    const out = new Int8Array(6).fill(5);
    expect(quantizeInt8([0, 0], 0, 2, out, 1)).toBe(0);
    expect([...out]).toEqual([5, 0, 0, 5, 5, 5]);
    expect(quantizeInt8([], 0, 0, out, 0)).toBe(0);
    expect(quantizeInt8([Number.NaN, 2], 0, 2, out, 4)).toBeCloseTo(2 / 127);
    expect([...out.subarray(4)]).toEqual([0, 127]);
  });
});

describe('the int8 kernel', () => {
  it('is valid WebAssembly and agrees with its JS twin exactly (property)', () => {
    expect(WebAssembly.validate(int8KernelBytes())).toBe(true);
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 1, max: 1e6 }),
        (rows, dims, seed) => {
          const data = floats(rows * dims, seed);
          const wasm = new Int8Scan(data, rows, dims);
          const js = new Int8Scan(data, rows, dims, false);
          expect(wasm.wasm).toBe(true);
          expect(js.wasm).toBe(false);
          const q = floats(dims, seed + 1);
          expect([...wasm.dots(q)]).toEqual([...js.dots(q)]);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('computes Σ q8 · x8 over padded rows', () => {
    const m8 = Int8Array.from([1, 2, 3, 0, -1, -2, -3, 0]);
    const out = new Int32Array(2);
    dotsInt8Js(Int8Array.from([1, 1, 1, 0]), m8, 2, 4, out);
    expect([...out]).toEqual([6, -6]);
    expect(paddedDims(0)).toBe(0);
    expect(paddedDims(1)).toBe(16);
    expect(paddedDims(512)).toBe(512);
  });
});

describe('VectorMatrix.scan above INT8_MIN_ROWS', () => {
  const rows = INT8_MIN_ROWS + 37;
  const dims = 64;
  const data = unitRows(rows, dims, 11);
  const m = new VectorMatrix(
    Float64Array.from({ length: rows }, (_, i) => i),
    [],
    [],
    data,
    dims,
  );

  it('returns the exact scan’s rows and scores for real-looking queries', () => {
    expect(m.int8Ready).toBe(false);
    for (let i = 0; i < 20; i++) {
      const q = data.slice(i * 97 * dims, (i * 97 + 1) * dims); // a stored row: its copy is the top hit
      expect(m.scan(q, 10)).toEqual(m.scanExact(q, 10));
      const noisy = Float32Array.from(q, (v, t) => v + 0.05 * Math.sin(t + i));
      expect(m.scan(noisy, 25)).toEqual(m.scanExact(noisy, 25));
    }
    expect(m.int8Ready).toBe(true);
  });

  it('asks `allow` and skips rows the way the exact scan does', () => {
    const q = data.slice(5 * dims, 6 * dims);
    const allow = (r: number) => r % 3 !== 0;
    expect(m.scan(q, 15, allow)).toEqual(m.scanExact(q, 15, allow));
    expect(m.scan(q, 0)).toEqual([]);
    expect(m.scan(new Float32Array(dims + 1), 5)).toEqual([]);
  });

  it('keeps max(2 · limit, limit + 64) candidates', () => {
    expect(int8Candidates(10)).toBe(74);
    expect(int8Candidates(100)).toBe(200);
  });
});
