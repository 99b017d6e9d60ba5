/**
 * Dartboard selection (seed 001; Pickett et al., "Better RAG using Relevant Information Gain").
 * Picks candidates that are relevant to the query *and* cover different parts of the space: a
 * candidate that duplicates an earlier pick adds almost no coverage, so it loses to a relevant one
 * elsewhere. Pure and deterministic.
 */
import { QuiverError } from '../../errors.js';
import {
  checkInput,
  checkRange,
  dotAt,
  gramUpper,
  scratch,
  SLOT_EXP_TABLE,
  SLOT_LOG_TABLE,
  SLOT_UNITS,
  unitRows,
} from './_input.js';
import { minMax01 } from './mmr.js';
import type { Pick, SelectInput } from './selector.js';

/** Kernel width σ of the Gaussian log-density over cosine distance (the seed's value). */
export const DEFAULT_SIGMA = 0.1;
/** σ below this is clamped: smaller widths only overflow the log-densities. */
export const MIN_SIGMA = 1e-5;
/** Weight of the coverage (diversity) term. */
export const DEFAULT_DIVERSITY_WEIGHT = 1;
/** Weight of the relevance term. */
export const DEFAULT_RELEVANCE_WEIGHT = 1;
/** `'seed'`: d = 1 − cos (seed 001). `'paper'`: d = (1 − cos)/2 (the paper's code). */
export const DEFAULT_DARTBOARD_DISTANCE: DartboardDistance = 'seed';
/** Where the relevance term Q comes from; `'cosine'` is the seed's. To be settled by measurement. */
export const DEFAULT_DARTBOARD_RELEVANCE: DartboardRelevance = 'cosine';
/** Softmax temperature for `relevance: 'scores'`. */
export const DEFAULT_DARTBOARD_TEMPERATURE = 0.1;
/** How external scores are scaled before the softmax for `relevance: 'scores'`. */
export const DEFAULT_DARTBOARD_SCORE_SCALE: DartboardScoreScale = 'minmax';

export type DartboardDistance = 'seed' | 'paper';
export type DartboardRelevance = 'cosine' | 'scores';
export type DartboardScoreScale = 'minmax' | 'raw';

/** Options for {@link dartboard}; every field has a `DEFAULT_…` constant. */
export interface DartboardOptions {
  /** Kernel width σ > 0, clamped below at {@link MIN_SIGMA}. Defaults to 0.1. */
  sigma?: number;
  /** Coverage weight ≥ 0. Defaults to 1. */
  diversityWeight?: number;
  /** Relevance weight ≥ 0. Defaults to 1. */
  relevanceWeight?: number;
  /** Cosine distance variant. Defaults to `'seed'` (d = 1 − cos). */
  distance?: DartboardDistance;
  /**
   * Relevance source. `'cosine'` (default, the seed): `Q_j = lognorm(d(q, c_j))`.
   * `'scores'`: `Q_j = log softmax(s_j / temperature)` over `input.relevance` (required), i.e.
   * log-probabilities that mix with the log-densities P; coverage still comes from the vectors.
   */
  relevance?: DartboardRelevance;
  /** Softmax temperature > 0 for `'scores'`. Defaults to 0.1. */
  temperature?: number;
  /**
   * Scaling of the scores before the softmax for `'scores'`: `'minmax'` (default) maps them to
   * [0, 1] (all equal → all 1) so the temperature means the same for RRF, cosine or BM25 scores;
   * `'raw'` uses them as given.
   */
  scoreScale?: DartboardScoreScale;
}

/** The defaults, as one object. */
export const DEFAULT_DARTBOARD: Readonly<Required<DartboardOptions>> = {
  sigma: DEFAULT_SIGMA,
  diversityWeight: DEFAULT_DIVERSITY_WEIGHT,
  relevanceWeight: DEFAULT_RELEVANCE_WEIGHT,
  distance: DEFAULT_DARTBOARD_DISTANCE,
  relevance: DEFAULT_DARTBOARD_RELEVANCE,
  temperature: DEFAULT_DARTBOARD_TEMPERATURE,
  scoreScale: DEFAULT_DARTBOARD_SCORE_SCALE,
};

/** Below this a gain sum may have lost terms to underflow, so the greedy step re-ranks in log space. */
const TINY = 2 ** -960;
/** Tile edge for the cache-friendly mirror of the upper triangle. */
const TILE = 32;

/**
 * Gaussian log-density of a distance: `lognorm(d) = −ln σ − ½ ln(2π) − d²/(2σ²)` (σ as given).
 */
export function lognorm(d: number, sigma: number): number {
  return -Math.log(sigma) - 0.5 * Math.log(2 * Math.PI) - (d * d) / (2 * sigma * sigma);
}

/**
 * Dartboard greedy selection, exactly as in `design/retrieval.md`:
 *
 * 1. Normalise all vectors; `dq_j = d(q, c_j)`, `D_ij = d(c_i, c_j)` with `d = 1 − cos`
 *    (`'paper'`: `(1 − cos)/2`). A zero vector has cos 0 with everything, itself included.
 * 2. `Q_j = lognorm(dq_j)` (or log softmax of the external scores), `P_ij = lognorm(D_ij)`.
 * 3. First pick `argmax_j Q_j`; `cover = P[first]`.
 * 4. Until `min(k, N)` picks: `score_i = logsumexp_j(w_div·max(cover_j, P_ij) + w_rel·Q_j)`,
 *    picked → −∞, pick the argmax, `cover = max(cover, P_pick)`.
 *
 * Ties go to the lowest index. `stepScore` is the pick's logsumexp score (null for the first pick).
 * Math is float64 with a max-shifted logsumexp. Since `exp` is monotone, `score_i = log(B + Δ_i)`
 * with `B = Σ_j exp(w_div·cover_j + w_rel·Q_j)` common to all i and `Δ_i ≥ 0` candidate i's gain,
 * so the argmax is taken over Δ_i: the same ordering as the score in exact arithmetic, but it still
 * separates candidates when σ is so small that every score rounds to the same double (σ → 0 then
 * behaves like top-k on spread-out candidates). With `diversityWeight = 0` every remaining
 * candidate ties (the score no longer depends on i), so picks after the first follow index order.
 *
 * Cost: O(N²·dim) to build the N×N log-density matrix once (O(N²) memory, two Float64Arrays),
 * then O(k·N²) cheap operations with no allocation per step. Fine for N up to a few thousand.
 * The two matrices live in module-level scratch buffers reused across calls (up to 8 MB each).
 *
 * Edge cases: `k ≤ 0` or no candidates → []; `k ≥ N` → all N; σ < 1e-5 is clamped; negative
 * weights, σ ≤ 0 or non-finite, temperature ≤ 0 → BAD_INPUT; `relevance: 'scores'` without `input.relevance`
 * → BAD_INPUT (with `'cosine'`, `input.relevance` is ignored).
 *
 * @example
 * dartboard({ query, candidates, k: 5 }, { sigma: 0.1 }).map((p) => p.index);
 */
export function dartboard(input: SelectInput, options: DartboardOptions = {}): Pick[] {
  const sigma = options.sigma ?? DEFAULT_SIGMA;
  const wd = options.diversityWeight ?? DEFAULT_DIVERSITY_WEIGHT;
  const wr = options.relevanceWeight ?? DEFAULT_RELEVANCE_WEIGHT;
  const distance = options.distance ?? DEFAULT_DARTBOARD_DISTANCE;
  const source = options.relevance ?? DEFAULT_DARTBOARD_RELEVANCE;
  const temperature = options.temperature ?? DEFAULT_DARTBOARD_TEMPERATURE;
  const scoreScale = options.scoreScale ?? DEFAULT_DARTBOARD_SCORE_SCALE;
  if (!(sigma > 0) || !Number.isFinite(sigma)) {
    throw new QuiverError('BAD_INPUT', `quiver: dartboard sigma must be a finite number > 0, got ${sigma}`);
  }
  checkRange('dartboard diversityWeight', wd, 0);
  checkRange('dartboard relevanceWeight', wr, 0);
  if (distance !== 'seed' && distance !== 'paper') {
    throw new QuiverError(
      'BAD_INPUT',
      `quiver: dartboard distance must be 'seed' or 'paper', got ${String(distance)}`,
    );
  }
  if (source !== 'cosine' && source !== 'scores') {
    throw new QuiverError(
      'BAD_INPUT',
      `quiver: dartboard relevance must be 'cosine' or 'scores', got ${String(source)}`,
    );
  }
  if (source === 'scores') {
    if (!(temperature > 0) || !Number.isFinite(temperature)) {
      throw new QuiverError(
        'BAD_INPUT',
        `quiver: dartboard temperature must be a finite number > 0, got ${temperature}`,
      );
    }
    if (input.relevance === undefined) {
      throw new QuiverError('BAD_INPUT', "quiver: dartboard relevance 'scores' needs input.relevance");
    }
  }
  const take = checkInput(input);
  if (take === 0) return [];

  const n = input.candidates.length;
  const dim = input.query.length;
  const s = Math.max(sigma, MIN_SIGMA);
  const kernel: Kernel = {
    c0: -Math.log(s) - 0.5 * Math.log(2 * Math.PI),
    twoS2: 2 * s * s,
    half: distance === 'paper',
  };

  // Relevance Q.
  const units = unitRows(input.candidates, dim, scratch(SLOT_UNITS, n * dim));
  const Q = new Float64Array(n);
  if (source === 'cosine') {
    const q = unitRows([input.query], dim);
    for (let j = 0; j < n; j++) Q[j] = logDensity(dotAt(q, 0, units, j * dim, dim), kernel);
  } else {
    const raw = input.relevance!;
    const scaled = scoreScale === 'raw' ? Float64Array.from(raw) : minMax01(raw);
    logSoftmaxInto(scaled, temperature, Q);
  }

  // X_ij = w_div·P_ij + w_rel·Q_j (log domain) and E_ij = exp(X_ij − shift) (linear domain).
  const X = scratch(SLOT_LOG_TABLE, n * n);
  gramUpper(units, n, dim, X);
  fillLogTable(X, Q, n, wd, wr, kernel);
  const E = scratch(SLOT_EXP_TABLE, n * n);
  expShifted(X, E);

  // First pick: argmax Q, lowest index on ties.
  let first = 0;
  for (let j = 1; j < n; j++) if (Q[j]! > Q[first]!) first = j;
  const picked = new Uint8Array(n);
  picked[first] = 1;
  const picks: Pick[] = [{ index: first, stepScore: null }];
  // Cover, with weights folded in: Y_j = w_div·cover_j + w_rel·Q_j and C_j = exp(Y_j − shift).
  const Y = X.slice(first * n, first * n + n);
  const C = E.slice(first * n, first * n + n);

  while (picks.length < take) {
    let best = argmaxGain(E, C, picked, n);
    if (best < 0) best = argmaxLogGain(X, Y, picked, n);
    picks.push({ index: best, stepScore: rowLogSumExp(X, Y, best, n) });
    picked[best] = 1;
    const o = best * n;
    for (let j = 0; j < n; j++) {
      if (X[o + j]! > Y[j]!) {
        Y[j] = X[o + j]!;
        C[j] = E[o + j]!;
      }
    }
  }
  return picks;
}

/** Precomputed pieces of `lognorm`: `c0 = −ln σ − ½ ln(2π)`, `twoS2 = 2σ²`, and the distance variant. */
interface Kernel {
  c0: number;
  twoS2: number;
  half: boolean;
}

/** `lognorm(d(cos))`, evaluated in the same order as {@link lognorm}. */
function logDensity(cos: number, k: Kernel): number {
  const d = k.half ? (1 - cos) / 2 : 1 - cos;
  return k.c0 - (d * d) / k.twoS2;
}

/**
 * Turns the Gram upper triangle in X into the full `X_ij = w_div·P_ij + w_rel·Q_j`: densities on
 * the upper triangle row by row, a tiled mirror to the lower one, then the relevance column term.
 * Every pass walks memory in order or in cache-sized tiles (a plain transposed write is ~5× slower
 * at N = 1,000).
 */
function fillLogTable(X: Float64Array, Q: Float64Array, n: number, wd: number, wr: number, k: Kernel): void {
  for (let i = 0; i < n; i++) {
    for (let j = i; j < n; j++) X[i * n + j] = wd * logDensity(X[i * n + j]!, k);
  }
  for (let bi = 0; bi < n; bi += TILE) {
    for (let bj = bi; bj < n; bj += TILE) {
      const iEnd = Math.min(bi + TILE, n);
      const jEnd = Math.min(bj + TILE, n);
      for (let i = bi; i < iEnd; i++) {
        for (let j = Math.max(bj, i + 1); j < jEnd; j++) X[j * n + i] = X[i * n + j]!;
      }
    }
  }
  for (let i = 0; i < n; i++) {
    const o = i * n;
    for (let j = 0; j < n; j++) X[o + j] = X[o + j]! + wr * Q[j]!;
  }
}

/** `E = exp(X − max X)`; every entry of X is finite. */
function expShifted(X: Float64Array, E: Float64Array): void {
  let shift = -Infinity;
  for (let t = 0; t < X.length; t++) if (X[t]! > shift) shift = X[t]!;
  for (let t = 0; t < X.length; t++) E[t] = Math.exp(X[t]! - shift);
}

/**
 * Fast path: the unpicked i maximising the gain `Δ_i = Σ_j max(0, E_ij − C_j)` (lowest index on
 * ties), or −1 when the best gain is below TINY, where underflow may have erased the difference.
 */
function argmaxGain(E: Float64Array, C: Float64Array, picked: Uint8Array, n: number): number {
  let best = -1;
  let bestGain = -1;
  for (let i = 0; i < n; i++) {
    if (picked[i] === 1) continue;
    const o = i * n;
    let g = 0;
    for (let j = 0; j < n; j++) g += Math.max(E[o + j]! - C[j]!, 0);
    if (g > bestGain) {
      bestGain = g;
      best = i;
    }
  }
  return bestGain < TINY ? -1 : best;
}

/** `out_j = z_j − logsumexp(z)` with `z = v / temperature`: log-probabilities summing to 1. */
function logSoftmaxInto(v: Float64Array, temperature: number, out: Float64Array): void {
  let m = -Infinity;
  for (let j = 0; j < v.length; j++) m = Math.max(m, v[j]! / temperature);
  let sum = 0;
  for (let j = 0; j < v.length; j++) sum += Math.exp(v[j]! / temperature - m);
  const lse = m + Math.log(sum);
  for (let j = 0; j < v.length; j++) out[j] = v[j]! / temperature - lse;
}

/** `logsumexp_j max(X_ij, Y_j)`, shifted by the row max: the reported step score of candidate i. */
function rowLogSumExp(X: Float64Array, Y: Float64Array, i: number, n: number): number {
  const o = i * n;
  let m = -Infinity;
  for (let j = 0; j < n; j++) m = Math.max(m, X[o + j]!, Y[j]!);
  if (m === -Infinity) return -Infinity;
  let sum = 0;
  for (let j = 0; j < n; j++) sum += Math.exp(Math.max(X[o + j]!, Y[j]!) - m);
  return m + Math.log(sum);
}

/**
 * Slow path for when every linear-domain gain underflowed (tiny σ): the argmax over unpicked i of
 * `log Σ_{j: X_ij > Y_j} (e^{X_ij} − e^{Y_j})`, each term as `X_ij + ln(−expm1(Y_j − X_ij))`.
 * Candidates with no gain at all rank −∞; ties (including all −∞) go to the lowest index.
 */
function argmaxLogGain(X: Float64Array, Y: Float64Array, picked: Uint8Array, n: number): number {
  let best = -1;
  let bestGain = -Infinity;
  for (let i = 0; i < n; i++) {
    if (picked[i] === 1) continue;
    const o = i * n;
    let m = -Infinity;
    for (let j = 0; j < n; j++) {
      const x = X[o + j]!;
      if (x > Y[j]!) m = Math.max(m, x + Math.log(-Math.expm1(Y[j]! - x)));
    }
    let g = -Infinity;
    if (m > -Infinity) {
      let sum = 0;
      for (let j = 0; j < n; j++) {
        const x = X[o + j]!;
        if (x > Y[j]!) sum += Math.exp(x + Math.log(-Math.expm1(Y[j]! - x)) - m);
      }
      g = m + Math.log(sum);
    }
    if (best === -1 || g > bestGain) {
      best = i;
      bestGain = g;
    }
  }
  return best;
}
