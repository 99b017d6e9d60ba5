import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { entropy, idf, idfTokens, kmeans, knn, rankNormalize, toFloat16Round } from './primitives.js';
import { normalize } from '../../math/vector.js';
import { Prng } from '../prng.js';

function close(a: number[][], b: number[][], eps = 1e-6): void {
  expect(a.length).toBe(b.length);
  a.forEach((row, i) => row.forEach((v, j) => expect(v).toBeCloseTo(b[i]![j]!, -Math.log10(eps))));
}

describe('rankNormalize', () => {
  it('A1: average ranks, constant column 0', () => {
    close(
      rankNormalize([
        [1, 5, 2],
        [2, 5, 2],
        [3, 5, 7],
        [3, 5, 1],
      ]),
      [
        [-1.73, 0, 0],
        [-0.576667, 0, 0],
        [1.153333, 0, 1.73],
        [1.153333, 0, -1.73],
      ],
    );
  });
  it('fewer than 3 rows gives zeros; empty gives []', () => {
    expect(
      rankNormalize([
        [1, 9],
        [2, 3],
      ]),
    ).toEqual([
      [0, 0],
      [0, 0],
    ]);
    expect(rankNormalize([])).toEqual([]);
  });
  it('stays within ±1.73, preserves order, and ignores monotone transforms', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -50, max: 50 }), { minLength: 3, maxLength: 40 }), (xs) => {
        const z = rankNormalize(xs.map((x) => [x])).map((r) => r[0]!);
        const z2 = rankNormalize(xs.map((x) => [x * x * x + 7])).map((r) => r[0]!);
        return (
          z.every((v) => Math.abs(v) <= 1.73 + 1e-12) &&
          xs.every((x, i) => xs.every((y, j) => (x < y ? z[i]! < z[j]! : x === y ? z[i] === z[j] : true))) &&
          z.every((v, i) => Math.abs(v - z2[i]!) < 1e-12)
        );
      }),
    );
  });
});

describe('entropy', () => {
  it('A2 vectors', () => {
    expect(entropy([0.5, 0.5])).toBeCloseTo(1, 9);
    expect(entropy([1, 0])).toBeLessThan(1e-6);
    expect(entropy([1, 0])).toBeGreaterThan(0);
    expect(entropy([0.75, 0.25])).toBeCloseTo(0.811278, 6);
    expect(entropy([1 / 3, 1 / 3, 1 / 3])).toBeCloseTo(1, 9);
  });
  it('one column or empty gives 0', () => {
    expect(entropy([1])).toBe(0);
    expect(entropy([])).toBe(0);
  });
});

describe('idf', () => {
  it('A3 vector', () => {
    const m = idf(['the cat sat', 'the dog sat', "the cat's hat", 'A B_c 9']);
    expect(m.get('the')).toBeCloseTo(0, 12);
    expect(m.get('sat')).toBeCloseTo(0.287682, 6);
    for (const w of ['cat', 'dog', 'hat', "cat's", 'a', 'b_c', '9'])
      expect(m.get(w)).toBeCloseTo(Math.LN2, 6);
    expect(m.size).toBe(9);
  });
  it('a token in every text is negative; empty input is empty', () => {
    expect(idf(['x', 'x y']).get('x')).toBeCloseTo(Math.log(2 / 3), 12);
    expect(idf([]).size).toBe(0);
    expect(idfTokens('Café, naïve!')).toEqual(['caf', 'na', 've']);
  });
});

describe('knn', () => {
  const rows = [
    [1, 0, 0],
    [0.99, 0.1, 0],
    [0, 1, 0],
    [0, 0.9, 0.1],
    [0, 0, 1],
    [0.5, 0.5, 0.5],
  ].map((r) => normalize(r));
  it('A4: exact neighbours and similarities, self excluded', () => {
    const { idx, sim } = knn(rows, 2);
    expect(idx).toEqual([
      [1, 5],
      [0, 5],
      [3, 5],
      [2, 5],
      [5, 3],
      [3, 1],
    ]);
    close(sim, [
      [0.994937, 0.57735],
      [0.994937, 0.63245],
      [0.993884, 0.57735],
      [0.993884, 0.637577],
      [0.57735, 0.110432],
      [0.637577, 0.63245],
    ]);
  });
  it('ties go to the lower index; k is capped at n − 1; tiny inputs give empty lists', () => {
    const same = [1, 2, 3, 4].map(() => normalize([1, 0]));
    expect(knn(same, 10).idx).toEqual([
      [1, 2, 3],
      [0, 2, 3],
      [0, 1, 3],
      [0, 1, 2],
    ]);
    expect(knn(rows.slice(0, 2), 1)).toEqual({ idx: [[], []], sim: [[], []] });
    expect(knn(rows, 0).idx.every((r) => r.length === 0)).toBe(true);
  });
});

describe('kmeans', () => {
  function blobs(seed: number): Float32Array[] {
    const r = new Prng(seed);
    const centres = [
      [1, 0, 0, 0],
      [0, 1, 0, 0],
      [0, 0, 1, 0],
    ];
    const out: Float32Array[] = [];
    for (let i = 0; i < 60; i++) {
      const c = centres[i % 3]!;
      out.push(normalize(c.map((x) => x + 0.05 * r.normal())));
    }
    return out;
  }
  it('n ≤ 8 gives the normalised mean; empty gives []', () => {
    const c = kmeans([normalize([1, 0]), normalize([0, 1])], 64);
    expect(c.length).toBe(1);
    expect(c[0]![0]).toBeCloseTo(Math.SQRT1_2, 6);
    expect(kmeans([], 4)).toEqual([]);
  });
  it('is deterministic for a seed and finds separated clusters', () => {
    const V = blobs(1);
    const a = kmeans(V, 3, 0);
    const b = kmeans(V, 3, 0);
    expect(a).toEqual(b);
    expect(a.length).toBe(3);
    // every true centre is matched by some centroid with cosine > 0.99
    for (let t = 0; t < 3; t++) expect(Math.max(...a.map((c) => c[t]!))).toBeGreaterThan(0.99);
    for (const c of a) expect(Math.hypot(...c)).toBeCloseTo(1, 5);
  });
  it('caps k at n/4 and at least 2', () => {
    expect(kmeans(blobs(2), 64, 0).length).toBeLessThanOrEqual(15);
    expect(kmeans(blobs(2).slice(0, 9), 1, 0).length).toBe(2);
  });
});

describe('toFloat16Round', () => {
  it('rounds to the nearest half-precision value', () => {
    expect(toFloat16Round(0.1)).toBe(0.0999755859375);
    expect(toFloat16Round(1)).toBe(1);
    expect(toFloat16Round(0.9)).toBe(0.89990234375);
    expect(toFloat16Round(0.99)).toBe(0.990234375);
    expect(toFloat16Round(-0.12)).toBe(-0.1199951171875);
    expect(toFloat16Round(1 + 2 ** -11)).toBe(1); // tie → even
    expect(toFloat16Round(1 + 3 * 2 ** -11)).toBe(1 + 2 ** -9); // tie → even (up)
    expect(toFloat16Round(2 ** -25)).toBe(0); // tie with 0 → even
    expect(toFloat16Round(3 * 2 ** -26)).toBe(2 ** -24); // subnormal
    expect(toFloat16Round(70000)).toBe(Infinity);
    expect(toFloat16Round(0)).toBe(0);
    expect(toFloat16Round(Number.NaN)).toBeNaN();
  });
});
