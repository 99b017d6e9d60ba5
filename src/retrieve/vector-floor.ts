import { QuiverError } from '../errors.js';

/**
 * Lowest cosine a vector-leg hit may have when nothing else is configured (`search.minSimilarity`).
 * 0 admits every positive cosine: a hit at cosine ≤ 0 (an orthogonal chunk, or any chunk for a
 * zero query vector) says nothing about the query under any embedder.
 */
export const DEFAULT_MIN_SIMILARITY = 0;

/** What {@link admitVectorHits} decides with. */
export interface VectorFloor {
  /** Hits need `score ≥ minSimilarity` (and `score > 0`). A finite number in [-1, 1]. */
  minSimilarity: number;
  /**
   * The embedder's cosine is surface evidence only (`Embedder.similarity === 'surface'`): hits are
   * kept only when `lexicalMatch` is true.
   */
  surface: boolean;
  /** Whether any word of the query occurs in the documents searched (the lexical leg in `any` mode found a section). */
  lexicalMatch: boolean;
}

/**
 * The vector-leg hits worth fusing. The vector leg is a top-k search: it returns the k nearest
 * chunks however far they are, so without a rule a query about nothing in the vault still gets k
 * "hits". A hit h is kept iff
 *
 *   (¬surface ∨ lexicalMatch) ∧ h.score > 0 ∧ h.score ≥ minSimilarity
 *
 * in the input order (best first stays best first).
 *
 * Why a surface embedder needs `lexicalMatch` rather than a cosine floor: the built-in hashing
 * embedder's cosine between texts that share no word or character n-gram is hash-collision noise,
 * mean ≈ 0 and sd ≈ 1/√dims (0.044 at 512 dims) but heavy-tailed for short queries: over 18,760
 * SciFact chunks a made-up word's best cosine is 0.24–0.29 (z ≈ 5–7 against that query's cosines
 * over the whole vault), while relevant chunks that real queries rank in the vector leg's top 30
 * go down to 0.15, and those in its top 10 down to z ≈ 3.4. No absolute or distribution-relative
 * cosine floor separates the two: a floor of 0.3 (enough to silence made-up words) cut vector-only
 * nDCG@10 on SciFact from 0.635 to 0.540. "Some word of the query occurs in the documents searched"
 * does, and left the nDCG@10 of every question of SciFact, Cranfield and the demo set unchanged.
 *
 * Edge cases: no hits → []; a NaN or infinite score is never kept; `minSimilarity` ≤ 0 leaves only
 * `score > 0`; a hit exactly at a positive `minSimilarity` is kept; `surface` with
 * `lexicalMatch` false → [] whatever the scores. `minSimilarity` outside [-1, 1] or not finite →
 * BAD_INPUT.
 *
 * @example
 * admitVectorHits([{ score: 0.3 }, { score: 0 }], { minSimilarity: 0, surface: false, lexicalMatch: false });
 * // [{ score: 0.3 }]
 */
export function admitVectorHits<T extends { score: number }>(hits: readonly T[], floor: VectorFloor): T[] {
  const min = floor.minSimilarity;
  if (typeof min !== 'number' || !Number.isFinite(min) || min < -1 || min > 1)
    throw new QuiverError(
      'BAD_INPUT',
      `quiver: minSimilarity must be a number in [-1, 1], got ${String(min)}`,
    );
  if (floor.surface && !floor.lexicalMatch) return [];
  return hits.filter((h) => Number.isFinite(h.score) && h.score > 0 && h.score >= min);
}
