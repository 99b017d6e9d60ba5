/**
 * How well a page's extracted text matches a human-written article body: word 4-gram shingle
 * precision, recall and F1, defined as the article-extraction benchmark (scrapinghub,
 * `evaluate.py`) defines them, so quiver's figures sit beside the published ones. Used by
 * `bench/html-extraction.ts`; internal (not re-exported).
 */

/** Shingle length in words. Defaults to 4, as the benchmark. */
export const DEFAULT_SHINGLE_WORDS = 4;

/** One page's true positives, false positives and false negatives, normalised to sum to 1 (or all 0). */
export interface ShingleMatch {
  tp: number;
  fp: number;
  fn: number;
}

/** Mean precision and recall over pages, and the F1 of those two means. */
export interface ExtractionScore {
  precision: number;
  recall: number;
  f1: number;
}

export interface ShingleOptions {
  /** Words per shingle. Defaults to {@link DEFAULT_SHINGLE_WORDS}. */
  n?: number;
  /** Lower-case words first. Defaults to false (the benchmark compares words as written). */
  lowerCase?: boolean;
  /** Count each distinct shingle once (sets) instead of as often as it occurs. Defaults to false. */
  sets?: boolean;
}

const WORD = /[\p{L}\p{N}_]+/gu;

/**
 * The words of `text`: runs of letters, digits and `_` (Python's `\w+`, which the benchmark uses).
 *
 * @example words('It’s 9:30, ok?') // ['It', 's', '9', '30', 'ok']
 */
export function words(text: string): string[] {
  return text.match(WORD) ?? [];
}

/**
 * Shingles of `text` with their counts: each run of `n` consecutive words, joined by a space. A
 * text of 1 to `n - 1` words is one shorter shingle (all its words); no words → no shingles.
 *
 * @example shingles('a b c d e', { n: 4 }) // Map { 'a b c d' => 1, 'b c d e' => 1 }
 */
export function shingles(text: string, options: ShingleOptions = {}): Map<string, number> {
  const n = options.n ?? DEFAULT_SHINGLE_WORDS;
  const ws = words(options.lowerCase === true ? text.toLowerCase() : text);
  const out = new Map<string, number>();
  if (ws.length === 0) return out;
  const last = Math.max(1, ws.length - n + 1);
  for (let i = 0; i < last; i++) {
    const key = ws.slice(i, i + n).join(' ');
    out.set(key, options.sets === true ? 1 : (out.get(key) ?? 0) + 1);
  }
  return out;
}

/**
 * Match the shingles of `predicted` against those of `truth`: for each shingle with counts t (truth)
 * and p (predicted), tp += min(t, p), fp += max(0, p − t), fn += max(0, t − p); then all three are
 * divided by their sum so that a long page weighs no more than a short one. Both texts without
 * words → all zero.
 *
 * @example shingleMatch('a b c d e', 'a b c d') // { tp: 0.5, fp: 0, fn: 0.5 }
 */
export function shingleMatch(truth: string, predicted: string, options: ShingleOptions = {}): ShingleMatch {
  const t = shingles(truth, options);
  const p = shingles(predicted, options);
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const [key, tc] of t) {
    const pc = p.get(key) ?? 0;
    tp += Math.min(tc, pc);
    fn += Math.max(0, tc - pc);
  }
  for (const [key, pc] of p) fp += Math.max(0, pc - (t.get(key) ?? 0));
  const sum = tp + fp + fn;
  return sum > 0 ? { tp: tp / sum, fp: fp / sum, fn: fn / sum } : { tp, fp, fn };
}

/**
 * Precision of one page: 1 when fp = fn = 0, 0 when tp = fp = 0, else tp / (tp + fp).
 * Recall likewise: 1 when fp = fn = 0, 0 when tp = fn = 0, else tp / (tp + fn).
 */
export function pagePrecision(m: ShingleMatch): number {
  if (m.fp === 0 && m.fn === 0) return 1;
  if (m.tp === 0 && m.fp === 0) return 0;
  return m.tp / (m.tp + m.fp);
}

/** See {@link pagePrecision}. */
export function pageRecall(m: ShingleMatch): number {
  if (m.fp === 0 && m.fn === 0) return 1;
  if (m.tp === 0 && m.fn === 0) return 0;
  return m.tp / (m.tp + m.fn);
}

/**
 * The benchmark's score over pages: precision = mean of {@link pagePrecision} over the pages with
 * tp + fp > 0 (a page that predicted nothing has no precision), recall = mean of
 * {@link pageRecall} over the pages with tp + fn > 0, F1 = 2PR / (P + R) of those means (not the mean
 * of per-page F1s). No page with a precision (or recall) → that mean is NaN, and so is F1; P + R = 0 → F1 0.
 */
export function extractionScore(matches: readonly ShingleMatch[]): ExtractionScore {
  const ps = matches.filter((m) => m.tp + m.fp > 0).map(pagePrecision);
  const rs = matches.filter((m) => m.tp + m.fn > 0).map(pageRecall);
  const mean = (xs: number[]): number => (xs.length === 0 ? NaN : xs.reduce((a, b) => a + b, 0) / xs.length);
  const precision = mean(ps);
  const recall = mean(rs);
  const f1 =
    Number.isNaN(precision) || Number.isNaN(recall)
      ? NaN
      : precision + recall > 0
        ? (2 * precision * recall) / (precision + recall)
        : 0;
  return { precision, recall, f1 };
}
