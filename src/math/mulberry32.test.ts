import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mulberry32 } from './mulberry32.js';

describe('mulberry32', () => {
  it('is deterministic per seed, stays in [0, 1), and different seeds give different sequences', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 32 - 1 }), (seed) => {
        const a = mulberry32(seed);
        const b = mulberry32(seed);
        const xs = Array.from({ length: 50 }, () => a());
        expect(Array.from({ length: 50 }, () => b())).toEqual(xs);
        for (const x of xs) expect(x >= 0 && x < 1).toBe(true);
        const other = mulberry32(seed + 1);
        expect(Array.from({ length: 50 }, () => other())).not.toEqual(xs);
      }),
    );
  });

  it('takes the seed modulo 2^32 and gives the reference first value for seed 1', () => {
    expect(mulberry32(2 ** 32 + 5)()).toBe(mulberry32(5)());
    expect(mulberry32(1)()).toBeCloseTo(0.6270739405881613, 15);
  });

  it('is roughly uniform (mean of 10,000 draws within 0.01 of 0.5)', () => {
    const r = mulberry32(42);
    let sum = 0;
    for (let i = 0; i < 10_000; i++) sum += r();
    expect(Math.abs(sum / 10_000 - 0.5)).toBeLessThan(0.01);
  });
});
