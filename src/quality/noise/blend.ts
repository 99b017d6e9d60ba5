/**
 * The unsupervised noise score: a fixed-weight blend of rank-normalised features, and the
 * suggestion list a person reviews.
 */

import { rankNormalize } from './primitives.js';

/** The reference's fixed weights over its nine features (Σ|w| = 4). */
export const REFERENCE_NOISE_WEIGHTS: Readonly<Record<string, number>> = {
  hub: 1.0,
  dup_out: 0.8,
  off_centre: 0.5,
  spread_chunk: 0.8,
  spread_doc: 0.0,
  low_idf: 0.3,
  redundancy: 0.1,
  short: 0.0,
  promiscuity: 0.5,
};

/**
 * quiver's default weights: the reference nine plus the content-intrinsic features, which carry
 * the score on real pages where boilerplate does not repeat across documents. Chosen by
 * measurement (bench/noise-corpus.ts, stand-in embeddings): on 181 real pages + 23 boilerplate
 * docs the blend scored 0.985–0.989 AUC (reference blend 0.50–0.51); on the generated corpora
 * 0.975/0.984/0.988 (hashed) and 0.945/0.977/0.953 (random indexing), surveys ≤ 0.04.
 * `stop_density` is down-weighted (0.835 AUC alone on real pages, 0.51–0.67 on generated ones).
 * Σ|w| = 11.5.
 */
export const NOISE_WEIGHTS: Readonly<Record<string, number>> = {
  ...REFERENCE_NOISE_WEIGHTS,
  stop_density: 0.5,
  sentence_share: 1.0,
  mean_sentence_len: 2.0,
  link_like: 2.0,
  boiler_lexicon: 2.0,
};

export const DEFAULT_SUGGEST_K = 20;
export const DEFAULT_SUGGEST_MIN_SCORE = 1.0;

/** One document's blended noise score with its rank-normalised feature values. */
export interface NoiseScore {
  /** Row index in the feature matrix. */
  index: number;
  docId: string;
  score: number;
  /** Rank-normalised feature values, in `names` order. */
  z: number[];
}

/**
 * Blend: Z = rankNormalize(X); score = Z·w / Σ|w| (Σ|w| = 0 → divide by 1), with w looked up by
 * name (a missing name weighs 0). The fixed blend lies in [−1.73, 1.73]. Sorted by score
 * descending, ties in row order. `docIds[i]` names row i (defaults to the row index as a string).
 */
export function noiseScores(
  X: readonly (readonly number[])[],
  names: readonly string[],
  weights: Readonly<Record<string, number>> = NOISE_WEIGHTS,
  docIds?: readonly string[],
): NoiseScore[] {
  const Z = rankNormalize(X);
  const w = names.map((n) => weights[n] ?? 0);
  const total = w.reduce((a, b) => a + Math.abs(b), 0);
  const div = total === 0 ? 1 : total;
  const out = Z.map((z, index) => ({
    index,
    docId: docIds?.[index] ?? String(index),
    score: z.reduce((a, v, j) => a + v * w[j]!, 0) / div,
    z,
  }));
  return out.sort((a, b) => b.score - a.score || a.index - b.index);
}

export interface SuggestNoisyOptions {
  /** At most this many suggestions. Defaults to 20. */
  k?: number;
  /** Keep scores ≥ this (inclusive). Defaults to 1.0 (about the 79th percentile on every feature). */
  minScore?: number;
}

/**
 * The documents to show a person: scores ≥ minScore whose docId no person has judged (marked noisy
 * or confirmed as a keeper), the first k in score order.
 */
export function suggestNoisy(
  scores: readonly NoiseScore[],
  judged: ReadonlySet<string>,
  options: SuggestNoisyOptions = {},
): NoiseScore[] {
  const k = options.k ?? DEFAULT_SUGGEST_K;
  const minScore = options.minScore ?? DEFAULT_SUGGEST_MIN_SCORE;
  return scores.filter((s) => s.score >= minScore && !judged.has(s.docId)).slice(0, Math.max(0, k));
}
