/**
 * Fusing a learned order into the baseline order, gently: the learned ranker only nudges.
 */

import { QuiverError } from '../errors.js';

export const DEFAULT_RETUNE_ALPHA = 0.25;
export const DEFAULT_RETUNE_RRF_K = 60;

export interface RetuneOptions {
  /** Weight of the learned order. Defaults to 0.25 (moves an item about one place). */
  alpha?: number;
  /** RRF constant. Defaults to 60. */
  rrfK?: number;
}

/** A hit after retuning, with its original position, learned score and fused score. */
export interface Retuned<T> {
  hit: T;
  index: number;
  tuned: number;
  fused: number;
}

/**
 * `fused_i = 1/(rrfK + i) + alpha/(rrfK + lrank_i)`, i the 0-based incoming position and lrank_i the
 * 0-based position of hit i when hits are sorted by learned score descending (ties keep incoming
 * order). Returns the hits sorted by fused descending (stable). Empty → []. Length mismatch →
 * BAD_INPUT. Does not mutate its inputs.
 *
 * @example retune(['a','b','c','d','e'], [0.1, 0.5, -0.2, 0.9, 0]).map(r => r.index) // [0, 1, 3, 2, 4]
 */
export function retune<T>(
  hits: readonly T[],
  learnedScores: readonly number[],
  options: RetuneOptions = {},
): Retuned<T>[] {
  if (hits.length !== learnedScores.length) {
    throw new QuiverError(
      'BAD_INPUT',
      `quiver: retune needs one learned score per hit, got ${learnedScores.length} for ${hits.length}`,
    );
  }
  const alpha = options.alpha ?? DEFAULT_RETUNE_ALPHA;
  const k = options.rrfK ?? DEFAULT_RETUNE_RRF_K;
  const order = hits.map((_, i) => i).sort((a, b) => learnedScores[b]! - learnedScores[a]! || a - b);
  const lrank = new Array<number>(hits.length);
  order.forEach((i, pos) => (lrank[i] = pos));
  return hits
    .map((hit, i) => ({
      hit,
      index: i,
      tuned: learnedScores[i]!,
      fused: 1 / (k + i) + alpha / (k + lrank[i]!),
    }))
    .sort((a, b) => b.fused - a.fused || a.index - b.index);
}
