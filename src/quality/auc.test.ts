import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { auc, averageRanks } from './auc.js';

function naiveAuc(s: number[], y: number[]): number {
  let num = 0;
  let den = 0;
  for (let i = 0; i < s.length; i++)
    for (let j = 0; j < s.length; j++) {
      if (y[i] !== 1 || y[j] !== 0) continue;
      den++;
      num += s[i]! > s[j]! ? 1 : s[i] === s[j] ? 0.5 : 0;
    }
  return den === 0 ? Number.NaN : num / den;
}

describe('auc', () => {
  it('A7: reference vector', () => {
    expect(auc([0.1, 0.4, 0.4, 0.8, 0.2], [0, 1, 0, 1, 0])).toBeCloseTo(0.916667, 6);
  });
  it('constant scores give 0.5; one class gives NaN; empty gives NaN', () => {
    expect(auc([3, 3, 3, 3], [1, 0, 1, 0])).toBe(0.5);
    expect(auc([1, 2], [1, 1])).toBeNaN();
    expect(auc([1, 2], [false, false])).toBeNaN();
    expect(auc([], [])).toBeNaN();
  });
  it('rejects length mismatch and NaN scores', () => {
    expect(() => auc([1], [1, 0])).toThrow(/as many labels/);
    expect(() => auc([Number.NaN, 1], [1, 0])).toThrow(/NaN/);
  });
  it('average ranks share ties', () => {
    expect(averageRanks([10, 20, 20, 5])).toEqual([2, 3.5, 3.5, 1]);
    expect(averageRanks([])).toEqual([]);
  });
  it('matches the pairwise definition and flips under negation', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: -5, max: 5 }), fc.integer({ min: 0, max: 1 })), {
          minLength: 2,
          maxLength: 30,
        }),
        (rows) => {
          const s = rows.map((r) => r[0]);
          const y = rows.map((r) => r[1]);
          const a = auc(s, y);
          const b = naiveAuc(s, y);
          if (Number.isNaN(b)) return Number.isNaN(a);
          return (
            Math.abs(a - b) < 1e-12 &&
            Math.abs(
              auc(
                s.map((v) => -v),
                y,
              ) -
                (1 - a),
            ) < 1e-12
          );
        },
      ),
    );
  });
});
