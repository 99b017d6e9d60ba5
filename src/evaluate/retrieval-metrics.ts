/**
 * Retrieval metrics over one ranked list. Pure and total: bad `k` throws, and a metric that does
 * not apply (no relevant items, nothing returned) is `null` (Undefined), never 0 or 1.
 *
 * Conventions shared by every function: `k` is a non-negative integer; only the first `k` entries
 * of the ranking count; an id repeated in the ranking counts once (at its first position; later
 * copies keep their slot but earn nothing).
 */
import { QuiverError } from '../errors.js';
import { fold } from '../text/tokens.js';

/** Graded relevance judgements: id → grade (0 or absent = not relevant; grades ≤ 0 count as 0). */
export type Gains = Readonly<Record<string, number>>;

function checkK(k: number): void {
  if (!Number.isInteger(k) || k < 0)
    throw new QuiverError('BAD_INPUT', `quiver: k must be an integer ≥ 0, got ${k}`);
}

function toSet(relevant: ReadonlySet<string> | readonly string[]): ReadonlySet<string> {
  return relevant instanceof Set ? relevant : new Set(relevant as readonly string[]);
}

/** The first `k` ids of `ranked` with later duplicates replaced by null (they earn nothing). */
function topK(ranked: readonly string[], k: number): (string | null)[] {
  const seen = new Set<string>();
  return ranked.slice(0, k).map((id) => {
    if (seen.has(id)) return null;
    seen.add(id);
    return id;
  });
}

/** Ids with a positive grade. */
export function relevantIds(gains: Gains): Set<string> {
  return new Set(Object.keys(gains).filter((id) => (gains[id] ?? 0) > 0));
}

/**
 * nDCG@k with graded gains: DCG = Σ_{i<k} g(rᵢ) / log2(i + 2) (linear gain = the grade; the
 * exponential `2^g − 1` variant is not used), divided by the DCG of the ideal order, which sorts
 * **all** judged relevant items by grade (not only the retrieved ones), cut at k.
 * Null when there is no relevant item or k = 0. In [0, 1].
 *
 * @example ndcgAtK(['c', 'x', 'a'], {a: 3, b: 2, c: 1}, 3) // (1 + 3/2) / (3 + 2/log2 3 + 1/2) ≈ 0.525
 */
export function ndcgAtK(ranked: readonly string[], gains: Gains, k: number): number | null {
  checkK(k);
  const grade = (id: string | null): number => (id === null ? 0 : Math.max(0, gains[id] ?? 0));
  let dcg = 0;
  topK(ranked, k).forEach((id, i) => (dcg += grade(id) / Math.log2(i + 2)));
  const ideal = Object.values(gains)
    .filter((g) => g > 0)
    .sort((a, b) => b - a)
    .slice(0, k);
  let idcg = 0;
  ideal.forEach((g, i) => (idcg += g / Math.log2(i + 2)));
  return idcg === 0 ? null : dcg / idcg;
}

/**
 * nDCG@k as the reference vault computes it (quality-reference §7.3, Appendix A7): `rels` are the
 * gains of the retrieved list in rank order (binary there), and the **ideal order is the retrieved
 * list re-sorted**, so relevant items that were not retrieved do not lower the score. Kept only to
 * reproduce the reference's numbers; prefer `ndcgAtK`. No relevant item retrieved → 0, as in the
 * reference (known-item: 1/log2(rank + 1) when the gold doc is retrieved, else 0).
 *
 * @example ndcgAtKRetrievedIdeal([0, 1, 0, 0], 10) // 1/log2(3) ≈ 0.630930
 */
export function ndcgAtKRetrievedIdeal(rels: readonly number[], k: number): number {
  checkK(k);
  const top = rels.slice(0, k).map((g) => Math.max(0, g));
  const dcgOf = (gs: readonly number[]): number => gs.reduce((s, g, i) => s + g / Math.log2(i + 2), 0);
  const idcg = dcgOf([...top].sort((a, b) => b - a));
  return idcg === 0 ? 0 : dcgOf(top) / idcg;
}

/**
 * recall@k = |relevant ∩ first k distinct ids| / |relevant|. Null when there is no relevant item.
 * Monotone non-decreasing in k.
 */
export function recallAtK(
  ranked: readonly string[],
  relevant: ReadonlySet<string> | readonly string[],
  k: number,
): number | null {
  checkK(k);
  const rel = toSet(relevant);
  if (rel.size === 0) return null;
  return topK(ranked, k).filter((id) => id !== null && rel.has(id)).length / rel.size;
}

/**
 * precision@k = relevant ids among the first k / k (the TREC convention: a list shorter than k is
 * padded with non-relevant results). Null when k = 0.
 */
export function precisionAtK(
  ranked: readonly string[],
  relevant: ReadonlySet<string> | readonly string[],
  k: number,
): number | null {
  checkK(k);
  if (k === 0) return null;
  const rel = toSet(relevant);
  return topK(ranked, k).filter((id) => id !== null && rel.has(id)).length / k;
}

/**
 * MRR@k for one query: 1 / (1-based rank of the first relevant id within the first k), 0 when none
 * is there. Null when there is no relevant item.
 */
export function mrrAtK(
  ranked: readonly string[],
  relevant: ReadonlySet<string> | readonly string[],
  k: number,
): number | null {
  checkK(k);
  const rel = toSet(relevant);
  if (rel.size === 0) return null;
  const i = topK(ranked, k).findIndex((id) => id !== null && rel.has(id));
  return i < 0 ? 0 : 1 / (i + 1);
}

/** Normalise a result text for uniqueness: fold, drop punctuation and symbols, collapse whitespace. */
export function normalizeResultText(text: string): string {
  return fold(text)
    .replace(/[\p{P}\p{S}]+/gu, ' ')
    .replace(/\s+/gu, ' ')
    .trim();
}

/**
 * unique results@k = distinct normalised texts among the first min(k, n) results / min(k, n),
 * where n is the number returned (so a short list of distinct results scores 1; shortness is
 * recall's business). Null when nothing is considered (k = 0 or an empty list).
 */
export function uniqueResultsAtK(texts: readonly string[], k: number): number | null {
  checkK(k);
  const top = texts.slice(0, k);
  if (top.length === 0) return null;
  return new Set(top.map(normalizeResultText)).size / top.length;
}

/**
 * noise@k = results from noisy documents among the first min(k, n) / min(k, n) (the share of
 * returned hits, as in the reference). `docIds` holds the document of each result, in rank order,
 * and may repeat (several sections of one document are several hits). Null when nothing is returned
 * or k = 0.
 */
export function noiseAtK(docIds: readonly string[], noisy: ReadonlySet<string>, k: number): number | null {
  checkK(k);
  const top = docIds.slice(0, k);
  if (top.length === 0) return null;
  return top.filter((d) => noisy.has(d)).length / top.length;
}

/**
 * ROC AUC by the Mann–Whitney rank statistic with average ranks for ties:
 * (Σ ranks of positives − P(P+1)/2) / (P·N). Constant scores → 0.5; a single class (P = 0 or N = 0)
 * → NaN. Labels are true/1 (positive) or false/0.
 *
 * @example auc([0.1, 0.4, 0.4, 0.8, 0.2], [0, 1, 0, 1, 0]) // 0.916667
 */
export function auc(scores: readonly number[], labels: readonly (boolean | number)[]): number {
  if (scores.length !== labels.length) {
    throw new QuiverError(
      'BAD_INPUT',
      `quiver: scores and labels must have the same length, got ${scores.length} and ${labels.length}`,
    );
  }
  if (scores.some((s) => Number.isNaN(s)))
    throw new QuiverError('BAD_INPUT', 'quiver: scores must not contain NaN');
  const n = scores.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => scores[a]! - scores[b]!);
  const ranks = new Array<number>(n);
  for (let i = 0; i < n;) {
    let j = i;
    while (j + 1 < n && scores[order[j + 1]!] === scores[order[i]!]) j++;
    const avg = (i + j) / 2 + 1;
    for (let t = i; t <= j; t++) ranks[order[t]!] = avg;
    i = j + 1;
  }
  let pos = 0;
  let rankSum = 0;
  labels.forEach((l, i) => {
    if (l === true || l === 1) {
      pos++;
      rankSum += ranks[i]!;
    }
  });
  const neg = n - pos;
  if (pos === 0 || neg === 0) return Number.NaN;
  return (rankSum - (pos * (pos + 1)) / 2) / (pos * neg);
}
