import { describe, expect, it } from 'vitest';
import { isQuiverError } from '../errors.js';
import { createPrng } from '../math/prng.js';
import { bootstrapMean, pairedBootstrap, percentile } from './bootstrap.js';

describe('pairedBootstrap', () => {
  it('reproduces the reference example up to the RNG: paired([1,0,1,1,0],[0,0,1,0,0])', () => {
    // Reference (numpy default_rng(0)): (0.4, 0.0, 0.8, 0.152). Our PRNG differs, so p is only
    // close: exactly P(all five resampled diffs are 0) = 0.6^5 = 0.0778 per side → p ≈ 0.156.
    const r = pairedBootstrap([1, 0, 1, 1, 0], [0, 0, 1, 0, 0]);
    expect(r.meanDiff).toBeCloseTo(0.4, 12);
    expect(r.lo).toBe(0);
    expect(r.hi).toBeCloseTo(0.8, 12);
    expect(r.p!).toBeGreaterThan(0.13);
    expect(r.p!).toBeLessThan(0.18);
    expect(r.verdict).toBe('no difference'); // the interval touches 0
    expect(r.n).toBe(5);
  });

  it('is deterministic for a seed, and the seed matters', () => {
    const rng = createPrng(5);
    const a = Array.from({ length: 30 }, () => rng.next());
    const b = Array.from({ length: 30 }, () => rng.next());
    expect(pairedBootstrap(a, b, { seed: 1 })).toEqual(pairedBootstrap(a, b, { seed: 1 }));
    expect(pairedBootstrap(a, b, { seed: 1 }).lo).not.toBe(pairedBootstrap(a, b, { seed: 2 }).lo);
  });

  it('detects a clear difference in both directions', () => {
    const rng = createPrng(9);
    const b = Array.from({ length: 40 }, () => rng.next() * 0.5);
    const a = b.map((x) => x + 0.2 + rng.next() * 0.1);
    const better = pairedBootstrap(a, b);
    expect(better.verdict).toBe('better');
    expect(better.lo!).toBeGreaterThan(0.2);
    expect(better.hi!).toBeLessThan(0.3);
    expect(better.p).toBe(0);
    expect(pairedBootstrap(b, a).verdict).toBe('worse');
    // When lower is better (latency), the same numbers read the other way.
    expect(pairedBootstrap(a, b, { higherIsBetter: false }).verdict).toBe('worse');
  });

  it('identical inputs give no difference with CI [0, 0] and p = 1', () => {
    const a = [0.1, 0.5, 0.9, 0.3];
    expect(pairedBootstrap(a, [...a])).toEqual({
      n: 4,
      dropped: 0,
      meanDiff: 0,
      lo: 0,
      hi: 0,
      p: 1,
      verdict: 'no difference',
    });
  });

  it('drops pairs where either value is Undefined and reports n', () => {
    const r = pairedBootstrap([1, null, 0.5, Number.NaN], [0, 0.3, null, 0.2], { resamples: 100 });
    expect(r.n).toBe(1);
    expect(r.dropped).toBe(3);
    expect(r.meanDiff).toBe(1);
    const none = pairedBootstrap([null], [1]);
    expect(none).toMatchObject({
      n: 0,
      meanDiff: null,
      lo: null,
      hi: null,
      p: null,
      verdict: 'no difference',
    });
  });

  it('rejects mismatched lengths and bad options', () => {
    const bad = [
      () => pairedBootstrap([1], [1, 2]),
      () => pairedBootstrap([1], [1], { resamples: 0 }),
      () => pairedBootstrap([1], [1], { alpha: 1 }),
    ];
    for (const f of bad) {
      let err: unknown;
      try {
        f();
      } catch (e) {
        err = e;
      }
      expect(isQuiverError(err, 'BAD_INPUT')).toBe(true);
    }
  });
});

describe('percentile', () => {
  it('interpolates linearly like numpy', () => {
    expect(percentile([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(percentile([1, 2, 3, 4], 0)).toBe(1);
    expect(percentile([1, 2, 3, 4], 1)).toBe(4);
    expect(percentile([0, 10], 0.025)).toBeCloseTo(0.25, 12);
    expect(percentile([], 0.5)).toBeNaN();
  });
});

describe('bootstrapMean', () => {
  it('gives the mean and an interval around it; null values are skipped', () => {
    const r = bootstrapMean([0, 1, 0, 1, null, 1, 0, 1]);
    expect(r.n).toBe(7);
    expect(r.mean).toBeCloseTo(4 / 7, 12);
    expect(r.ci![0]).toBeLessThan(r.mean!);
    expect(r.ci![1]).toBeGreaterThan(r.mean!);
    expect(r.ci![0]).toBeGreaterThanOrEqual(0);
    expect(r.ci![1]).toBeLessThanOrEqual(1);
  });
  it('no defined values → null mean and ci; a constant sample → a zero-width ci', () => {
    expect(bootstrapMean([null, null])).toEqual({ mean: null, n: 0, ci: null });
    expect(bootstrapMean([0.5, 0.5])).toEqual({ mean: 0.5, n: 2, ci: [0.5, 0.5] });
  });
});
