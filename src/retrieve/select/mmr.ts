import { checkInput, checkRange, dotAt, queryCosines, scratch, SLOT_UNITS, unitRows } from './_input.js';
import type { Pick, SelectInput } from './selector.js';

/** MMR's default trade-off λ: equal weight on relevance and novelty. */
export const DEFAULT_MMR_LAMBDA = 0.5;

/** Options for {@link mmr}. */
export interface MmrOptions {
  /** λ in [0, 1]: 1 is pure relevance (top-k), 0 pure novelty. Defaults to {@link DEFAULT_MMR_LAMBDA}. */
  lambda?: number;
}

/**
 * Maximal Marginal Relevance (Carbonell & Goldstein, 1998). Greedily picks the candidate maximising
 *
 *   `MMR(c) = λ·rel(c) − (1 − λ)·max_{s ∈ S} cos(c, s)`
 *
 * where S is the set picked so far (the penalty is 0 while S is empty). `rel(c)` is `cos(q, c)`, or,
 * when `input.relevance` is given, the scores min-max normalised to [0, 1] (all equal → all 1), so
 * they sit on the same scale as the cosine penalty. Ties go to the lowest index. `stepScore` is the
 * MMR value of the pick (for the first pick, `λ·rel`). Zero vectors have cosine 0 with everything.
 *
 * Edge cases: `k ≤ 0` or no candidates → []; `k ≥ N` → all N. Cost O(k·N) after O(N²·dim) for the
 * pairwise cosines.
 *
 * @example
 * mmr({ query: [1, 0], candidates: [[1, 0], [1, 0], [0.6, 0.8]], k: 2 }); // indices 0, then 2
 */
export function mmr(input: SelectInput, options: MmrOptions = {}): Pick[] {
  const lambda = options.lambda ?? DEFAULT_MMR_LAMBDA;
  checkRange('mmr lambda', lambda, 0, 1);
  const take = checkInput(input);
  if (take === 0) return [];
  const n = input.candidates.length;
  const rel = input.relevance === undefined ? queryCosines(input) : minMax01(input.relevance);
  const dim = input.query.length;
  const units = unitRows(input.candidates, dim, scratch(SLOT_UNITS, n * dim));
  // Running max similarity to the picked set; −∞ while nothing is picked (penalty counts as 0).
  const maxSim = new Float64Array(n).fill(-Infinity);
  const picked = new Uint8Array(n);
  const picks: Pick[] = [];
  for (let step = 0; step < take; step++) {
    let best = -1;
    let bestScore = -Infinity;
    for (let i = 0; i < n; i++) {
      if (picked[i] === 1) continue;
      const penalty = step === 0 ? 0 : maxSim[i]!;
      const score = lambda * rel[i]! - (1 - lambda) * penalty;
      if (best === -1 || score > bestScore) {
        best = i;
        bestScore = score;
      }
    }
    picked[best] = 1;
    picks.push({ index: best, stepScore: bestScore });
    for (let i = 0; i < n; i++) {
      if (picked[i] === 1) continue;
      const s = dotAt(units, i * dim, units, best * dim, dim);
      if (s > maxSim[i]!) maxSim[i] = s;
    }
  }
  return picks;
}

/** Min-max normalisation to [0, 1]; all-equal (or a single) input maps to all 1. */
export function minMax01(values: readonly number[]): Float64Array {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  const out = new Float64Array(values.length);
  const span = hi - lo;
  for (let i = 0; i < values.length; i++) out[i] = span > 0 ? (values[i]! - lo) / span : 1;
  return out;
}
