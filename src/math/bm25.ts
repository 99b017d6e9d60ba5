/**
 * BM25 exactly as SQLite FTS5's built-in `bm25()` computes it, so a lexical index outside SQL
 * (`store/sqlite/lexical-index.ts`) ranks and scores like FTS5 does.
 */

/** FTS5's k1 and b. */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;
/** FTS5 clamps a non-positive IDF (a term in more than half the rows) to this. */
export const BM25_MIN_IDF = 1e-6;

/**
 * idf = ln((N − n + 0.5) / (n + 0.5)) for N rows of which n contain the phrase; a value ≤ 0 (n ≥
 * N/2) becomes {@link BM25_MIN_IDF}, so a matching row always scores above 0. n = 0 gives the
 * largest idf (the caller never needs it: nothing matches). N = 0 → the clamp.
 */
export function bm25Idf(rows: number, hits: number): number {
  const idf = Math.log((rows - hits + 0.5) / (hits + 0.5));
  return idf > 0 ? idf : BM25_MIN_IDF;
}

/**
 * One phrase's share of a row's score: idf · f(k1 + 1) / (f + k1(1 − b + b·D/avgdl)), where f is
 * the phrase's column-weighted frequency in the row (Σ over hits of the hit's column weight), D
 * the row's token count over all columns and avgdl the mean over rows. f = 0 → 0; D = 0 is fine
 * (the denominator stays ≥ f + k1(1 − b) > 0 for f > 0). avgdl must be > 0 (some row has tokens).
 */
export function bm25Term(idf: number, f: number, docTokens: number, avgTokens: number): number {
  return idf * ((f * (BM25_K1 + 1)) / (f + BM25_K1 * (1 - BM25_B + (BM25_B * docTokens) / avgTokens)));
}
