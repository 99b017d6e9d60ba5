import { describe, expect, it } from 'vitest';
import { createPrng, shuffled } from './prng.js';

describe('createPrng', () => {
  it('is deterministic for a seed and differs between seeds', () => {
    const a = createPrng(7);
    const b = createPrng(7);
    const xs = Array.from({ length: 20 }, () => a.next());
    expect(Array.from({ length: 20 }, () => b.next())).toEqual(xs);
    const c = createPrng(8);
    expect(Array.from({ length: 20 }, () => c.next())).not.toEqual(xs);
  });

  it('accepts 0, negative and large seeds and gives distinct streams', () => {
    const first = [0, -1, 1, 2 ** 40, 2 ** 40 + 1].map((s) => createPrng(s).uint32());
    expect(new Set(first).size).toBe(first.length);
  });

  it('next() is in [0, 1) and roughly uniform (10 bins, chi-square)', () => {
    const rng = createPrng(0);
    const n = 100_000;
    const bins = new Array<number>(10).fill(0);
    let outside = 0;
    for (let i = 0; i < n; i++) {
      const x = rng.next();
      if (!(x >= 0 && x < 1)) outside++;
      else bins[Math.floor(x * 10)]!++;
    }
    expect(outside).toBe(0);
    const expected = n / 10;
    const chi2 = bins.reduce((s, o) => s + (o - expected) ** 2 / expected, 0);
    expect(chi2).toBeLessThan(27.88); // p = 0.001 for 9 degrees of freedom
    const mean = bins.reduce((s, o, i) => s + o * (i + 0.5), 0) / n / 10;
    expect(mean).toBeCloseTo(0.5, 2);
  });

  it('int(n) covers [0, n) evenly and rejects bad n', () => {
    const rng = createPrng(3);
    const counts = new Array<number>(6).fill(0);
    for (let i = 0; i < 60_000; i++) counts[rng.int(6)]!++;
    for (const c of counts) expect(Math.abs(c - 10_000)).toBeLessThan(500);
    expect(rng.int(1)).toBe(0);
    expect(() => rng.int(0)).toThrow(/n must be/);
    expect(() => rng.int(2.5)).toThrow(/n must be/);
  });

  it('rejects a non-integer seed', () => {
    expect(() => createPrng(0.5)).toThrow(/seed/);
  });
});

describe('shuffled', () => {
  it('returns a permutation and leaves the input alone', () => {
    const items = [1, 2, 3, 4, 5, 6, 7, 8];
    const out = shuffled(items, createPrng(1));
    expect([...out].sort((a, b) => a - b)).toEqual(items);
    expect(items).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(shuffled(items, createPrng(1))).toEqual(out);
  });
});
