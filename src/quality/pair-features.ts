/**
 * The ranker's design matrix: features of one (question, section) pair that exist when the section
 * is retrieved (quality-reference §6.1), in {@link PAIR_FEATURES} order.
 */

import { cosine } from '../math/vector.js';
import { codePointLength } from '../text/tokens.js';
import { NOISE_FEATURES } from './noise/features.js';
import { idfTokens } from './noise/primitives.js';

/** The 21 columns, in order. The last nine are the doc's rank-normalised noise features. */
export const PAIR_FEATURES: readonly string[] = [
  'score',
  'rank',
  'gap',
  'overlap',
  'idf_overlap',
  'cos',
  'len',
  'prior',
  'is_code',
  'is_web',
  'is_note',
  'age',
  ...NOISE_FEATURES,
];

const DAY_MS = 86_400_000;

/** One retrieved section, as the ranker sees it. */
export interface PairHit {
  /** The section text. Pass the same text in training and in serving (e.g. the section's text capped at one length). */
  text: string;
  /** Retrieval score (non-finite → 0). */
  score: number;
  docId: string;
  sectionId: string;
  /** The section's vector (normalised mean of its chunk vectors), if known. */
  vector?: ArrayLike<number>;
}

/** What the ranker knows about a document. */
export interface PairDocInfo {
  /** Document kind: `code` → is_code; `html` or `web` → is_web; `note` → is_note. */
  kind: string;
  /** First-ingest time in ms since the epoch, UTC (e.g. `Date.parse(addedAt)` of an ISO-8601 'Z' string). */
  addedAtMs: number;
}

export interface PairFeaturesInput {
  question: string;
  /** The hits in the order they were shown; the position sets `rank`. */
  hits: readonly PairHit[];
  /** Token idf (./noise/primitives.ts `idf` over the chunk texts). */
  idf: ReadonlyMap<string, number>;
  /** The question's embedding; `cos` is 0 without it. */
  queryVector?: ArrayLike<number>;
  /** Document prior multipliers; absent docs use 1. */
  prior: ReadonlyMap<string, number>;
  docInfo: ReadonlyMap<string, PairDocInfo>;
  /** Each doc's rank-normalised noise values in NOISE_FEATURES order (first 9 used; absent → 0s). */
  noiseZ: ReadonlyMap<string, readonly number[]>;
  /** "Now" in ms since the epoch (UTC), injected for repeatability. */
  nowMs: number;
}

/**
 * One row per hit (position i, 1-based):
 * score; rank = 1/i; gap = score/top (top = the max score, or 1 when that max is 0); overlap = |qt ∩ ht| / max(|qt|, 1) over idf token sets; idf_overlap =
 * Σ_{w∈qt∩ht} idf(w) / qw (qw = Σ_{w∈qt} idf(w), 1 when 0; may be negative); cos = cosine(query,
 * section vector) (0 when either is missing or dims differ); len = ln(1 + code points); prior
 * (default 1); is_code / is_web / is_note; age = ln(1 + max(now − added, 0)/1 day) (unknown doc →
 * 0); then the nine noise values. No hits → [].
 */
export function pairFeatures(input: PairFeaturesInput): number[][] {
  const { hits, idf } = input;
  if (hits.length === 0) return [];
  const qt = new Set(idfTokens(input.question));
  let qw = 0;
  for (const w of qt) qw += idf.get(w) ?? 0;
  if (qw === 0) qw = 1;
  const scores = hits.map((h) => (Number.isFinite(h.score) ? h.score : 0));
  const max = Math.max(...scores);
  const top = max === 0 ? 1 : max;
  const q = input.queryVector;
  return hits.map((h, i) => {
    const ht = new Set(idfTokens(h.text));
    let shared = 0;
    let sharedIdf = 0;
    for (const w of qt)
      if (ht.has(w)) {
        shared++;
        sharedIdf += idf.get(w) ?? 0;
      }
    const v = h.vector;
    const cos =
      q !== undefined && v !== undefined && q.length === v.length && q.length > 0 ? cosine(q, v) : 0;
    const info = input.docInfo.get(h.docId);
    const kind = info?.kind ?? '';
    const age =
      info === undefined || !Number.isFinite(info.addedAtMs)
        ? 0
        : Math.log(1 + Math.max(input.nowMs - info.addedAtMs, 0) / DAY_MS);
    const z = input.noiseZ.get(h.docId) ?? [];
    return [
      scores[i]!,
      1 / (i + 1),
      scores[i]! / top,
      shared / Math.max(qt.size, 1),
      sharedIdf / qw,
      cos,
      Math.log(1 + codePointLength(h.text)),
      input.prior.get(h.docId) ?? 1,
      kind === 'code' ? 1 : 0,
      kind === 'html' || kind === 'web' ? 1 : 0,
      kind === 'note' ? 1 : 0,
      age,
      ...NOISE_FEATURES.map((_, j) => z[j] ?? 0),
    ];
  });
}
