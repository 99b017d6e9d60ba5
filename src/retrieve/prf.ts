import type { TermStats } from '../store/store.js';
import { STOPWORDS } from '../text/stopwords.js';
import { stem, words } from '../text/tokens.js';

/**
 * Pseudo-relevance feedback for the lexical leg: the best few sections of a first BM25 pass lend
 * their distinctive words to a second query, whose BM25 score is added to the first at a small
 * weight. Measured in `bench/retrieval-quality.ts` (Cranfield and SciFact); the defaults below are
 * the middle of a flat region of that sweep (feedback sections 5–10, terms 20–30, weight 0.2–0.25
 * all scored within 0.003 of each other on both sets).
 */

/** Sections of the first pass that lend terms. */
export const DEFAULT_PRF_DOCS = 10;
/** Expansion terms added by the second query. */
export const DEFAULT_PRF_TERMS = 20;
/** Weight β of the expansion query's BM25 score (0 switches feedback off). */
export const DEFAULT_PRF_WEIGHT = 0.2;
/**
 * Expansion stems found in more than this share of sections are skipped: they carry little weight
 * and widen the second pass (a cap of 0.2 scored as well as none on both sets; 0.1 cost Cranfield
 * 0.008).
 */
export const PRF_MAX_DF_SHARE = 0.2;
/** Candidate stems whose document frequency is looked up (see {@link feedbackCandidates}). */
export const PRF_CANDIDATES = 100;
/** Rows each pass fetches at least, so the two score lists overlap enough to add them. */
export const PRF_MIN_FETCH = 100;

/** One section of the first pass: its BM25 score (higher is better) and its words. */
export interface FeedbackSection {
  score: number;
  text: string;
}

/** A word that can lend meaning: not a stop-word, at least 3 letters, not a bare number. */
function isCandidate(word: string): boolean {
  return word.length >= 3 && !STOPWORDS.has(word) && !/^\d+$/.test(word);
}

/** A candidate stem: its feedback weight before idf, and the first surface word seen for it. */
export interface FeedbackCandidate {
  stem: string;
  surface: string;
  /** Σ_d p(d) · tf(t, d) / |d| (see {@link feedbackCandidates}). */
  weight: number;
}

/**
 * The stems the feedback sections lend, best first, at most `limit` (so the index is asked for
 * few document frequencies, each of which costs a doclist walk):
 *   w(t) = Σ_d p(d) · tf(t, d) / |d|,   p(d) = exp(s_d − s_max) / Σ_e exp(s_e − s_max)
 * over the feedback sections d (BM25 scores s, a softmax so a clear winner dominates), |d| counting
 * candidate words only (not stop-words, at least 3 letters, not bare numbers). Stems of the query
 * itself are left out. Keeping the top 100 before idf scored as well as keeping all (Cranfield,
 * SciFact); 60 or fewer cost Cranfield ~0.004. No sections or limit ≤ 0 → []; ties keep the order
 * stems were first met.
 */
export function feedbackCandidates(
  queryTerms: readonly string[],
  sections: readonly FeedbackSection[],
  limit: number = PRF_CANDIDATES,
): FeedbackCandidate[] {
  if (sections.length === 0 || limit <= 0) return [];
  const inQuery = new Set(queryTerms.map((t) => stem(t)));
  const top = Math.max(...sections.map((s) => s.score));
  const mass = sections.map((s) => Math.exp(s.score - top));
  const total = mass.reduce((a, b) => a + b, 0);
  const out = new Map<string, FeedbackCandidate>();
  sections.forEach((s, i) => {
    const { bag, length } = candidateBag(s.text);
    const p = mass[i]! / total;
    for (const [st, { surface, tf }] of bag) {
      if (inQuery.has(st)) continue;
      const c = out.get(st);
      if (c === undefined) out.set(st, { stem: st, surface, weight: (p * tf) / length });
      else c.weight += (p * tf) / length;
    }
  });
  return [...out.values()].sort((a, b) => b.weight - a.weight).slice(0, limit);
}

/** A text's candidate words by stem: the first surface word and the count; `length` = Σ counts. */
interface CandidateBag {
  bag: ReadonlyMap<string, { surface: string; tf: number }>;
  length: number;
}

/**
 * Bags memoised by the text itself: the same few sections lend terms to many queries, and
 * splitting and stemming their words was most of the feedback pass's cost (a Map hashes a string
 * far faster than the regex and the stemmer walk it). Bounded: cleared at `BAGS_MAX` texts.
 */
const BAGS = new Map<string, CandidateBag>();
const BAGS_MAX = 5_000;

function candidateBag(text: string): CandidateBag {
  let b = BAGS.get(text);
  if (b !== undefined) return b;
  const bag = new Map<string, { surface: string; tf: number }>();
  let length = 0;
  for (const w of words(text)) {
    if (!isCandidate(w)) continue;
    const st = stem(w);
    const e = bag.get(st);
    if (e === undefined) bag.set(st, { surface: w, tf: 1 });
    else e.tf += 1;
    length += 1;
  }
  b = { bag, length };
  if (BAGS.size >= BAGS_MAX) BAGS.clear();
  BAGS.set(text, b);
  return b;
}

/**
 * Expansion terms, best first: the top `n` candidates by w(t) · ln(N / df(t)). Returned as surface
 * words (the index stems them again).
 *
 * Edge cases: stems seen in fewer than 2 sections of the corpus (typos, ids: they cannot
 * generalise), in more than `PRF_MAX_DF_SHARE` of them, or unknown to the index are skipped; no
 * candidates, no documents or n ≤ 0 → []; ties keep the candidates' order.
 */
export function expansionTerms(
  candidates: readonly FeedbackCandidate[],
  stats: TermStats,
  n: number,
): string[] {
  if (candidates.length === 0 || n <= 0 || stats.docs <= 0) return [];
  return candidates
    .flatMap((c) => {
      const df = stats.df.get(c.stem) ?? 0;
      return df < 2 || df > PRF_MAX_DF_SHARE * stats.docs
        ? []
        : [{ surface: c.surface, score: c.weight * Math.log(stats.docs / df) }];
    })
    .sort((a, b) => b.score - a.score)
    .slice(0, n)
    .map((c) => c.surface);
}

/**
 * The feedback score of each key: s(d) = s₁(d) + β · s₂(d), with a score absent from a list taken as
 * 0 (a section the first pass did not reach scored at most its last row, so this under-rates it
 * slightly). Sorted best first, ties by first appearance (first-pass order, then second-pass).
 * β = 0 returns the first list unchanged.
 */
export function combineFeedback<T extends { key: string; score: number }>(
  first: readonly T[],
  second: readonly T[],
  beta: number,
): { item: T; score: number }[] {
  const out = new Map<string, { item: T; score: number; order: number }>();
  first.forEach((h, i) => out.set(h.key, { item: h, score: h.score, order: i }));
  if (beta !== 0)
    second.forEach((h, i) => {
      const e = out.get(h.key);
      if (e === undefined) out.set(h.key, { item: h, score: beta * h.score, order: first.length + i });
      else e.score += beta * h.score;
    });
  return [...out.values()]
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .map(({ item, score }) => ({ item, score }));
}
