import { describe, expect, it } from 'vitest';
import { isQuiverError } from '../../errors.js';
import { topk } from './topk.js';

const query = [1, 0];
const candidates = [
  [0, 1], // cos 0
  [0.6, 0.8], // cos .6
  [0.8, 0.6], // cos .8
  [0.6, -0.8], // cos .6
];

describe('topk', () => {
  it('orders by cosine to the query, ties by lowest index, stepScore = relevance', () => {
    const picks = topk({ query, candidates, k: 3 });
    expect(picks.map((p) => p.index)).toEqual([2, 1, 3]);
    expect(picks[0]!.stepScore).toBeCloseTo(0.8, 12);
  });

  it('uses external relevance when given', () => {
    expect(topk({ query, candidates, relevance: [5, 1, 1, 2], k: 4 }).map((p) => p.index)).toEqual([
      0, 3, 1, 2,
    ]);
  });

  it('accepts Float32Array vectors; zero vectors score 0', () => {
    const picks = topk({
      query: Float32Array.from(query),
      candidates: [new Float32Array(2), Float32Array.from([-1, 0])],
      k: 2,
    });
    expect(picks).toEqual([
      { index: 0, stepScore: 0 },
      { index: 1, stepScore: -1 },
    ]);
  });

  it('k ≥ N gives all N; k ≤ 0 gives []', () => {
    expect(topk({ query, candidates, k: 99 })).toHaveLength(4);
    expect(topk({ query, candidates, k: -1 })).toEqual([]);
  });

  it('rejects mismatched lengths and non-finite relevance with BAD_INPUT', () => {
    for (const input of [
      { query, candidates: [[1, 0, 0]], k: 1 },
      { query, candidates, relevance: [1, 2], k: 1 },
      { query, candidates, relevance: [1, 2, NaN, 3], k: 1 },
    ]) {
      try {
        topk(input);
        expect.unreachable();
      } catch (e) {
        expect(isQuiverError(e, 'BAD_INPUT')).toBe(true);
      }
    }
  });
});
