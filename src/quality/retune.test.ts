import { describe, it, expect } from 'vitest';
import { retune } from './retune.js';

describe('retune', () => {
  const s = [0.1, 0.5, -0.2, 0.9, 0.0];
  it('§6.5: reproduces the reference fused values and order', () => {
    const r = retune(['a', 'b', 'c', 'd', 'e'], s);
    expect(r.map((x) => x.index)).toEqual([0, 1, 3, 2, 4]);
    const byIndex = [...r].sort((a, b) => a.index - b.index).map((x) => x.fused);
    [0.0206989, 0.0204918, 0.0200353, 0.0200397, 0.0195933].forEach((v, i) =>
      expect(byIndex[i]).toBeCloseTo(v, 7),
    );
    expect(r[0]!.hit).toBe('a');
    expect(r[0]!.tuned).toBe(0.1);
  });
  it('gives the same order at alpha 0.5 and 1.0 for that input', () => {
    for (const alpha of [0.5, 1])
      expect(retune([1, 2, 3, 4, 5], s, { alpha }).map((x) => x.index)).toEqual([0, 1, 3, 2, 4]);
  });
  it('alpha 0 keeps the incoming order; equal learned scores keep it too', () => {
    expect(retune([1, 2, 3], [0, 5, 9], { alpha: 0 }).map((x) => x.index)).toEqual([0, 1, 2]);
    expect(retune([1, 2, 3], [1, 1, 1]).map((x) => x.index)).toEqual([0, 1, 2]);
  });
  it('empty input and length mismatch', () => {
    expect(retune([], [])).toEqual([]);
    expect(() => retune([1], [])).toThrow(/one learned score per hit/);
  });
});
