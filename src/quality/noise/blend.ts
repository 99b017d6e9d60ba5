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

/** Weights of the content-intrinsic features (intrinsic.ts), the same in every quiver blend. */
export const INTRINSIC_NOISE_WEIGHTS: Readonly<Record<string, number>> = {
  stop_density: 0.5,
  sentence_share: 1.0,
  mean_sentence_len: 2.0,
  link_like: 2.0,
  boiler_lexicon: 2.0,
};

/**
 * quiver's default weights (what `suggest_noisy` uses unless a fitted blend is switched on): the
 * reference nine re-weighted for the built-in lexical embedder, plus the content-intrinsic
 * features, which carry the score on real pages where boilerplate does not repeat across documents.
 *
 * Chosen by measurement (issue 7; bench/noise-tune.ts on generated seeds 1–10, reported on held-out
 * seeds 11–20 and the article-extraction real-page set by bench/noise.ts, RESULTS.md "Noise score"):
 * - `off_centre` and `spread_chunk` weigh 0. Their sign depends on the embedder's geometry: with
 *   lexical hashing, boilerplate that repeats across documents forms the tightest cluster of the
 *   corpus, so it sits near the centroid and its softmax over k-means centroids is concentrated
 *   (mean AUC 0.16 and 0.32 on the tuning seeds, 0.34 and 0.45 on real pages). A neural encoder
 *   puts boilerplate off-topic instead (reference 0.88 / 0.98), so they are dropped, not flipped.
 * - `low_idf` is re-oriented (−0.3, the reference's magnitude). It does not use the embedder: mean
 *   idf over token occurrences is dominated by function words, and boilerplate has fewer of them on
 *   real pages (about 25% vs 37% of tokens) and, in the generated footers, ones the topical text
 *   never uses (this, our, your, we), while the topical frames repeat "the"; so
 *   boilerplate has the *higher* mean idf (AUC 0.00–0.01 generated, 0.17 real as oriented).
 * - `hub` is halved (0.5): under lexical hashing boilerplate is its own cluster rather than a bridge
 *   between topics, so in-degree is weak (mean AUC 0.69; reference 0.98), and on the weakest seeds
 *   the documents outranking boilerplate were topical notes with the highest in-degree.
 * Tuning seeds: blend AUC mean 0.992, min 0.957 (first default: 0.964, min 0.900); surveys ≤ −0.17.
 * Held out (seeds 11–20): mean 0.989, min 0.967 (first default 0.950, min 0.904); real pages 0.995
 * (first default 0.991). Built-in embedder; a neural one may favour the reference's geometry.
 * The remaining choices in a 144-set family differ by ≤ 0.006 min AUC (1–3 of 512 pairs), i.e.
 * within seed noise. The reference's own blend stays available as {@link REFERENCE_NOISE_WEIGHTS}.
 * Σ|w| = 9.7.
 */
export const NOISE_WEIGHTS: Readonly<Record<string, number>> = {
  ...REFERENCE_NOISE_WEIGHTS,
  hub: 0.5,
  off_centre: 0.0,
  spread_chunk: 0.0,
  low_idf: -0.3,
  ...INTRINSIC_NOISE_WEIGHTS,
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
