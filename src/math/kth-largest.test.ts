import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { kthLargest } from './kth-largest.js';

const kth = (xs: number[], k: number) => kthLargest(xs, k, new Float64Array(xs.length));

describe('kthLargest', () => {
  it('equals sorting descending and taking the k-th (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -20, max: 20 }), { minLength: 1, maxLength: 200 }),
        fc.nat(),
        (xs, j) => {
          const k = 1 + (j % xs.length);
          expect(kth(xs, k)).toBe([...xs].sort((a, b) => b - a)[k - 1]);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('leaves the input unchanged and counts ties once each', () => {
    const xs = [3, 1, 3];
    expect(kth(xs, 2)).toBe(3);
    expect(kth(xs, 3)).toBe(1);
    expect(xs).toEqual([3, 1, 3]);
  });

  it('gives +∞ for k ≤ 0, −∞ past the end, and reads NaN as −∞', () => {
    expect(kth([1, 2], 0)).toBe(Infinity);
    expect(kth([1, 2], 3)).toBe(-Infinity);
    expect(kth([], 1)).toBe(-Infinity);
    expect(kth([Number.NaN, 5, 2], 2)).toBe(2);
    expect(kth([Number.NaN, 5, 2], 3)).toBe(-Infinity);
  });
});
