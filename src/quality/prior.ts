/**
 * The Beta prior: each document's feedback as a Beta posterior over "this document helps", turned
 * into a bounded multiplier on its retrieval score.
 */

import { QuiverError } from '../errors.js';
import type { Prng } from './prng.js';

/** Defaults of {@link docPrior}. */
export const DEFAULT_PRIOR_GAMMA = 0.35;
export const DEFAULT_PRIOR_EXPLORE = 1;
export const DEFAULT_PRIOR_LO = 0.6;
export const DEFAULT_PRIOR_HI = 1.6;

/** The fields of a feedback row the prior reads. */
export interface PriorRow {
  docId: string | null | undefined;
  askId: string;
  label: number | null | undefined;
  weight: number | null | undefined;
}

/** Weighted wins (label ≥ 0.5) and losses of one document. */
export interface DocStat {
  wins: number;
  losses: number;
}

/**
 * Each document's weighted wins and losses. Per row with a non-empty `docId` whose `askId` is not
 * in `excludeAsk`: `w = weight` when it is a non-zero finite number, else 1 (the reference's
 * `weight or 1.0`: a weight of 0 or a missing weight counts as 1 — kept for parity; every signal
 * in SIGNALS has a positive weight, so this only matters for hand-written rows). A label ≥ 0.5 adds
 * w to wins, anything else (including a missing label) adds w to losses.
 * Documents appear in order of their first row. No rows → empty map.
 */
export function docStats(rows: Iterable<PriorRow>, excludeAsk?: ReadonlySet<string>): Map<string, DocStat> {
  const out = new Map<string, DocStat>();
  for (const r of rows) {
    if (r.docId === null || r.docId === undefined || r.docId === '') continue;
    if (excludeAsk?.has(r.askId) === true) continue;
    const w = typeof r.weight === 'number' && Number.isFinite(r.weight) && r.weight !== 0 ? r.weight : 1;
    let s = out.get(r.docId);
    if (s === undefined) {
      s = { wins: 0, losses: 0 };
      out.set(r.docId, s);
    }
    if ((r.label ?? 0) >= 0.5) s.wins += w;
    else s.losses += w;
  }
  return out;
}

export interface DocPriorOptions {
  /** How hard the prior may push; 0 gives 1 everywhere. Defaults to 0.35. */
  gamma?: number;
  /** Probability in [0, 1] of a Thompson draw instead of the posterior mean. Defaults to 1. */
  explore?: number;
  /** Lower clamp. Defaults to 0.6. */
  lo?: number;
  /** Upper clamp. Defaults to 1.6 (cannot bind with gamma ≤ ln 1.6 / ln 2 ≈ 0.678). */
  hi?: number;
  /**
   * The seeded generator for Thompson draws. Required whenever `explore > 0`: quiver never draws
   * unseeded randomness inside a ranking (seed it per question, or serve with `explore: 0`).
   */
  rng?: Prng;
}

/**
 * The largest multiplier {@link docPrior} can return: `min(hi, 2^gamma)` (p → 1). With the defaults
 * this is 2^0.35 ≈ 1.2746, so `hi = 1.6` never binds. The smallest is `max(lo, 0)` reached when
 * p < lo^(1/gamma)/2 (≈ 0.1162 with the defaults).
 */
export function priorRange(
  gamma = DEFAULT_PRIOR_GAMMA,
  lo = DEFAULT_PRIOR_LO,
  hi = DEFAULT_PRIOR_HI,
): [number, number] {
  return [Math.min(Math.max(0, lo), hi), Math.max(Math.min(hi, 2 ** gamma), lo)];
}

/**
 * Each document's multiplier on its retrieval score. Posterior Beta(a, b), a = 1 + wins,
 * b = 1 + losses; per document (in map order) draw u = rng.random() when explore > 0, and if
 * u < explore take p = rng.beta(a, b) (Thompson), else the mean p = a/(a+b). Nothing is drawn
 * when explore = 0. Multiplier = clamp((p / 0.5)^gamma, lo, hi). Documents with no feedback are
 * absent: callers use 1.
 *
 * Reachable range with the defaults: [0.6, 2^0.35 ≈ 1.2746] (see {@link priorRange}).
 * Worked means (explore 0): 1 cite → 1.105932; one shown → 0.945120; one up → 1.178805;
 * one down → 0.725640; (0, 20) → 0.6 (clamped).
 *
 * Throws BAD_INPUT for gamma < 0, explore outside [0, 1], lo > hi, or explore > 0 without `rng`.
 */
export function docPrior(
  stats: ReadonlyMap<string, DocStat>,
  options: DocPriorOptions = {},
): Map<string, number> {
  const gamma = options.gamma ?? DEFAULT_PRIOR_GAMMA;
  const explore = options.explore ?? DEFAULT_PRIOR_EXPLORE;
  const lo = options.lo ?? DEFAULT_PRIOR_LO;
  const hi = options.hi ?? DEFAULT_PRIOR_HI;
  if (!(gamma >= 0) || !Number.isFinite(gamma)) {
    throw new QuiverError('BAD_INPUT', `quiver: gamma must be a finite number ≥ 0, got ${gamma}`);
  }
  if (!(explore >= 0 && explore <= 1)) {
    throw new QuiverError('BAD_INPUT', `quiver: explore must be in [0, 1], got ${explore}`);
  }
  if (!(lo <= hi)) throw new QuiverError('BAD_INPUT', `quiver: lo must be ≤ hi, got lo ${lo}, hi ${hi}`);
  const rng = options.rng;
  if (explore > 0 && rng === undefined) {
    throw new QuiverError('BAD_INPUT', `quiver: doc prior with explore ${explore} needs a seeded rng`);
  }
  const out = new Map<string, number>();
  for (const [docId, { wins, losses }] of stats) {
    const a = 1 + Math.max(0, wins);
    const b = 1 + Math.max(0, losses);
    let p = a / (a + b);
    if (rng !== undefined && explore > 0 && rng.random() < explore) p = rng.beta(a, b);
    const m = (p / 0.5) ** gamma;
    out.set(docId, Math.min(hi, Math.max(lo, m)));
  }
  return out;
}
