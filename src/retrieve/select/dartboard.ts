/**
 * Dartboard selection (seed 001; Pickett et al., "Better RAG using Relevant Information Gain").
 * Picks candidates that are relevant to the query *and* cover different parts of the space: a
 * candidate that duplicates an earlier pick adds almost no coverage, so it loses to a relevant one
 * elsewhere. Pure and deterministic.
 */
import { QuiverError } from '../../errors.js';
import { unitGram } from './_gram.js';
import { checkInput, checkRange, scratch, SLOT_EXP_TABLE, SLOT_LOG_TABLE } from './_input.js';
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
 * Ties go to the lowest index. `stepScore` is the pick's logsumexp score (null for the first pick),
 * always computed exactly in the log domain (float64, max-shifted). Since `exp` is monotone,
 * `score_i = log(B + Δ_i)` with `B = Σ_j exp(w_div·cover_j + w_rel·Q_j)` common to all i and
 * `Δ_i = Σ_j max(0, E_ij − C_j) ≥ 0` candidate i's gain, where `E_ij ≈ exp(X_ij − shift)`,
 * `X_ij = w_div·P_ij + w_rel·Q_j` and `C_j = max_{picked p} E_pj`; so the argmax is taken over Δ_i,
 * with no `exp` in the step loop: the same ordering as the score in exact arithmetic, but it still
 * separates candidates when σ is so small that every score rounds to the same double (σ → 0 then
 * behaves like top-k on spread-out candidates). When the best Δ is below 2^-960, terms may have
 * underflowed (σ = 0.001 on random 512-d vectors; σ ≥ 0.01 stayed fast there) or every gain is
 * exactly 0, and that step re-ranks in log space instead (exact, ~10× slower). With
 * `diversityWeight = 0` every remaining candidate ties (the score no longer depends on i), so picks
 * after the first follow index order.
 *
 * Cost: the O(N²·dim) cosine table runs once in a WebAssembly SIMD kernel (`_gram.ts`, float64,
 * with a bit-identical JS twin where SIMD is missing). Then O(N²) builds the two N×N tables (one
 * `exp` per pair, by symmetry) and the first gains. Later steps evaluate lazily (exact: a gain only
 * shrinks as the cover grows, so a stale gain is an upper bound and only candidates whose bound
 * tops the list are re-evaluated), O(k·N²) at worst and far less in practice, with no allocation per
 * step. Memory O(N²): two Float64Arrays in module-level scratch buffers reused across calls (up to
 * 8 MB each) and the kernel's memory (up to 32 MB kept). Fine for N up to a few thousand.
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

  // Unit vectors and the Gram upper triangle (the O(N²·dim) part; the query rides along as row N).
  const cosineQ = source === 'cosine';
  const { gram, np } = unitGram(cosineQ ? [...input.candidates, input.query] : input.candidates, dim);
  const Q = new Float64Array(n);
  if (cosineQ) {
    for (let j = 0; j < n; j++) Q[j] = logDensity(gram[j * np + n]!, kernel);
  } else {
    const raw = input.relevance!;
    const scaled = scoreScale === 'raw' ? Float64Array.from(raw) : minMax01(raw);
    logSoftmaxInto(scaled, temperature, Q);
  }

  // First pick: argmax Q, lowest index on ties.
  let first = 0;
  for (let j = 1; j < n; j++) if (Q[j]! > Q[first]!) first = j;
  if (take === 1) return [{ index: first, stepScore: null }];

  // X_ij = w_div·P_ij + w_rel·Q_j (log domain) and E_ij ≈ exp(X_ij − shift) (linear domain).
  const X = scratch(SLOT_LOG_TABLE, n * n);
  const E = scratch(SLOT_EXP_TABLE, n * n);
  fillTables(gram, np, X, E, Q, n, wd, wr, kernel);

  const picked = new Uint8Array(n);
  picked[first] = 1;
  const picks: Pick[] = [{ index: first, stepScore: null }];
  // Cover, with weights folded in: Y_j = w_div·cover_j + w_rel·Q_j (log domain) and
  // C_j = E_first,j ≈ exp(Y_j − shift) (linear domain).
  const Y = X.slice(first * n, first * n + n);
  const C = E.slice(first * n, first * n + n);
  // Lazy greedy: bound_i ≥ Δ_i always (gains only shrink as the cover grows); fresh_i marks the
  // bounds computed against the current cover, which are the gains themselves.
  const bound = new Float64Array(n);
  const fresh = new Uint8Array(n).fill(1);
  for (let i = 0; i < n; i++) if (picked[i] === 0) bound[i] = gain(E, C, i, n);

  while (picks.length < take) {
    let best = lazyArgmaxGain(E, C, bound, fresh, picked, n);
    if (bound[best]! < TINY) best = argmaxLogGain(X, Y, picked, n);
    picks.push({ index: best, stepScore: rowLogSumExp(X, Y, best, n) });
    picked[best] = 1;
    fresh.fill(0);
    const o = best * n;
    for (let j = 0; j < n; j++) {
      if (X[o + j]! > Y[j]!) Y[j] = X[o + j]!;
      if (E[o + j]! > C[j]!) C[j] = E[o + j]!;
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
 * Builds the two `n × n` tables from the Gram upper triangle (`gram`, row stride `np`) in one pass
 * over the pairs i ≤ j: `X_ij = L_ij + w_rel·Q_j` with `L_ij = w_div·P_ij` (symmetric), and
 * `E_ij = exp(L_ij − w_div·c0) · exp(w_rel·Q_j − max w_rel·Q)`, in [0, 1]; `w_div·c0 =
 * w_div·lognorm(0)` bounds L from above. Splitting the exponent uses the symmetry of L: one `exp` per
 * pair instead of two. The pass walks cache-sized tiles, writing (i, j) and (j, i) (a plain
 * transposed write is ~5× slower at N = 1,000).
 */
function fillTables(
  gram: Float64Array,
  np: number,
  X: Float64Array,
  E: Float64Array,
  Q: Float64Array,
  n: number,
  wd: number,
  wr: number,
  k: Kernel,
): void {
  const WQ = new Float64Array(n);
  let maxWQ = -Infinity;
  for (let j = 0; j < n; j++) {
    WQ[j] = wr * Q[j]!;
    if (WQ[j]! > maxWQ) maxWQ = WQ[j]!;
  }
  const R = new Float64Array(n);
  for (let j = 0; j < n; j++) R[j] = Math.exp(WQ[j]! - maxWQ);
  const shift = wd * k.c0;
  for (let bi = 0; bi < n; bi += TILE) {
    for (let bj = bi; bj < n; bj += TILE) {
      const iEnd = Math.min(bi + TILE, n);
      const jEnd = Math.min(bj + TILE, n);
      for (let i = bi; i < iEnd; i++) {
        for (let j = Math.max(bj, i); j < jEnd; j++) {
          const l = wd * logDensity(gram[i * np + j]!, k);
          const e = Math.exp(l - shift);
          X[i * n + j] = l + WQ[j]!;
          X[j * n + i] = l + WQ[i]!;
          E[i * n + j] = e * R[j]!;
          E[j * n + i] = e * R[i]!;
        }
      }
    }
  }
}

/**
 * `Δ_i = Σ_j max(0, E_ij − C_j)`, summed left to right (so equal rows give equal gains), as
 * `½·Σ_j (d + |d|)` with `d = E_ij − C_j`: the same value (doubling is exact) without a branch, which
 * random signs would mispredict half the time (~15× slower at N = 1,000).
 */
function gain(E: Float64Array, C: Float64Array, i: number, n: number): number {
  const o = i * n;
  let g = 0;
  for (let j = 0; j < n; j++) {
    const d = E[o + j]! - C[j]!;
    g += d + Math.abs(d);
  }
  return 0.5 * g;
}

/**
 * The unpicked i maximising the gain Δ_i (lowest index on ties), by lazy evaluation (Minoux):
 * take the top of `(bound desc, index asc)`; if its bound is fresh it is its gain and beats every
 * other bound, hence every other gain; otherwise recompute it and look again. Exact, not an
 * approximation: a stale bound is a gain under a smaller cover, and each term `max(0, E_ij − C_j)`
 * only shrinks as C grows, in floating point too (rounding is monotone and the order is fixed).
 * Leaves `bound[best]` = Δ_best.
 */
function lazyArgmaxGain(
  E: Float64Array,
  C: Float64Array,
  bound: Float64Array,
  fresh: Uint8Array,
  picked: Uint8Array,
  n: number,
): number {
  for (;;) {
    let top = -1;
    for (let i = 0; i < n; i++) {
      if (picked[i] === 0 && (top < 0 || bound[i]! > bound[top]!)) top = i;
    }
    if (fresh[top] === 1) return top;
    bound[top] = gain(E, C, top, n);
    fresh[top] = 1;
  }
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
