import { describe, it, expect } from 'vitest';
import { Prng } from './prng.js';
import { isQuiverError } from '../errors.js';

function moments(draw: () => number, n: number): { mean: number; variance: number } {
  let s = 0;
  let s2 = 0;
  for (let i = 0; i < n; i++) {
    const x = draw();
    s += x;
    s2 += x * x;
  }
  const mean = s / n;
  return { mean, variance: s2 / n - mean * mean };
}

describe('Prng', () => {
  it('is deterministic per seed and differs across seeds', () => {
    const a = new Prng(42);
    const b = new Prng(42);
    const c = new Prng(43);
    const sa = Array.from({ length: 5 }, () => a.random());
    const sb = Array.from({ length: 5 }, () => b.random());
    const sc = Array.from({ length: 5 }, () => c.random());
    expect(sa).toEqual(sb);
    expect(sa).not.toEqual(sc);
  });

  it('random() stays in [0, 1) and is roughly uniform', () => {
    const r = new Prng(1);
    let lo = 1;
    let hi = 0;
    const { mean, variance } = moments(() => {
      const x = r.random();
      lo = Math.min(lo, x);
      hi = Math.max(hi, x);
      return x;
    }, 50_000);
    expect(lo).toBeGreaterThanOrEqual(0);
    expect(hi).toBeLessThan(1);
    expect(mean).toBeCloseTo(0.5, 2);
    expect(variance).toBeCloseTo(1 / 12, 2);
  });

  it('int(n) covers 0..n-1 and rejects bad n', () => {
    const r = new Prng(3);
    const seen = new Set<number>();
    for (let i = 0; i < 1000; i++) seen.add(r.int(5));
    expect([...seen].sort()).toEqual([0, 1, 2, 3, 4]);
    expect(() => r.int(0)).toThrow(/int\(n\)/);
    expect(() => r.int(2.5)).toThrow();
  });

  it('rejects non-finite seeds with BAD_INPUT', () => {
    try {
      new Prng(Number.NaN);
      expect.unreachable();
    } catch (e) {
      expect(isQuiverError(e, 'BAD_INPUT')).toBe(true);
    }
  });

  it('normal() has mean 0 and variance 1', () => {
    const r = new Prng(5);
    const { mean, variance } = moments(() => r.normal(), 100_000);
    expect(Math.abs(mean)).toBeLessThan(0.02);
    expect(Math.abs(variance - 1)).toBeLessThan(0.02);
  });

  it.each([0.3, 1, 2.5, 9])('gamma(%s) has mean and variance equal to the shape', (shape) => {
    const r = new Prng(11);
    const { mean, variance } = moments(() => r.gamma(shape), 100_000);
    expect(Math.abs(mean - shape) / shape).toBeLessThan(0.02);
    expect(Math.abs(variance - shape) / shape).toBeLessThan(0.05);
  });

  it('gamma rejects shape <= 0', () => {
    expect(() => new Prng(0).gamma(0)).toThrow(/shape/);
    expect(() => new Prng(0).gamma(-1)).toThrow(/shape/);
  });

  it.each([
    [1, 1],
    [2, 5],
    [0.5, 0.5],
    [11, 1],
    [1, 21],
    [4, 1.35],
  ])('beta(%s, %s) matches the Beta mean and variance', (a, b) => {
    const r = new Prng(2024);
    const n = 60_000;
    let outside = 0;
    const { mean, variance } = moments(() => {
      const x = r.beta(a, b);
      if (!(x >= 0 && x <= 1)) outside++;
      return x;
    }, n);
    expect(outside).toBe(0);
    const mu = a / (a + b);
    const v = (a * b) / ((a + b) ** 2 * (a + b + 1));
    // standard error of the mean is sqrt(v/n); allow 5 of them, and 5% on the variance
    expect(Math.abs(mean - mu)).toBeLessThan(5 * Math.sqrt(v / n));
    expect(Math.abs(variance - v) / v).toBeLessThan(0.05);
  });
});
