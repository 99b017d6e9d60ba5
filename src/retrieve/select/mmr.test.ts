import { describe, expect, it } from 'vitest';
import { isQuiverError } from '../../errors.js';
import { DEFAULT_MMR_LAMBDA, minMax01, mmr } from './mmr.js';

// Pythagorean unit vectors so every cosine is exact: rel = cos(q, c) = .8, .6, .8, 0;
// pairwise: c0·c1 .48, c0·c2 .64, c0·c3 .36, c1·c2 .96, c1·c3 .64, c2·c3 .48.
const query = [1, 0, 0];
const candidates = [
  [0.8, 0.6, 0],
  [0.6, 0, 0.8],
  [0.8, 0, 0.6],
  [0, 0.6, 0.8],
];
const indices = (p: { index: number }[]) => p.map((x) => x.index);

describe('mmr', () => {
  it('hand-computed case, λ = 0.5', () => {
    const picks = mmr({ query, candidates, k: 4 });
    // step 1: .5·rel = .4, .3, .4, 0 → c0 (tie with c2: lowest index)
    // step 2: c1 .3 − .5·.48 = .06, c2 .4 − .5·.64 = .08, c3 0 − .5·.36 = −.18 → c2
    // step 3: c1 .3 − .5·.96 = −.18, c3 0 − .5·.48 = −.24 → c1
    // step 4: c3 0 − .5·.64 = −.32
    expect(indices(picks)).toEqual([0, 2, 1, 3]);
    [0.4, 0.08, -0.18, -0.32].forEach((s, i) => expect(picks[i]!.stepScore).toBeCloseTo(s, 12));
  });

  it('λ = 1 is top-k by relevance; λ = 0 is pure novelty', () => {
    expect(indices(mmr({ query, candidates, k: 4 }, { lambda: 1 }))).toEqual([0, 2, 1, 3]);
    // λ = 0: first pick all tie at 0 → c0; then least similar to c0: c3 (.36); then c1 (max .64 vs c2 .64 → tie → c1)
    expect(indices(mmr({ query, candidates, k: 3 }, { lambda: 0 }))).toEqual([0, 3, 1]);
  });

  it('external relevance replaces cos(q, c), min-max normalised to [0, 1]', () => {
    // relevance [10, 0, 5, 0] → [1, 0, .5, 0]; step 1: .5, 0, .25, 0 → c0;
    // step 2: c1 0 − .24, c2 .25 − .32 = −.07, c3 0 − .18 → c2
    const picks = mmr({ query, candidates, relevance: [10, 0, 5, 0], k: 2 });
    expect(indices(picks)).toEqual([0, 2]);
    expect(picks[1]!.stepScore).toBeCloseTo(-0.07, 12);
  });

  it('minMax01: all equal (or one) value maps to 1', () => {
    expect(Array.from(minMax01([3, 3, 3]))).toEqual([1, 1, 1]);
    expect(Array.from(minMax01([7]))).toEqual([1]);
    expect(Array.from(minMax01([2, 4, 3]))).toEqual([0, 1, 0.5]);
  });

  it('drops an exact duplicate behind a distinct candidate', () => {
    const picks = mmr({ query, candidates: [candidates[0]!, candidates[0]!, candidates[1]!], k: 2 });
    // step 2: duplicate .4 − .5·1 = −.1 vs c1 .3 − .24 = .06
    expect(indices(picks)).toEqual([0, 2]);
  });

  it('zero vectors have cosine 0 with everything', () => {
    const picks = mmr({ query, candidates: [[0, 0, 0], candidates[1]!], k: 2 });
    expect(indices(picks)).toEqual([1, 0]);
    expect(picks[1]!.stepScore).toBeCloseTo(0, 12); // .5·0 − .5·0
  });

  it('k ≥ N gives all N; k ≤ 0 or no candidates give []', () => {
    expect(indices(mmr({ query, candidates, k: 10 })).sort()).toEqual([0, 1, 2, 3]);
    expect(mmr({ query, candidates, k: 0 })).toEqual([]);
    expect(mmr({ query, candidates: [], k: 3 })).toEqual([]);
  });

  it('rejects λ outside [0, 1] with BAD_INPUT', () => {
    expect(DEFAULT_MMR_LAMBDA).toBe(0.5);
    for (const lambda of [-0.1, 1.5, NaN]) {
      try {
        mmr({ query, candidates, k: 2 }, { lambda });
        expect.unreachable();
      } catch (e) {
        expect(isQuiverError(e, 'BAD_INPUT')).toBe(true);
      }
    }
  });
});
