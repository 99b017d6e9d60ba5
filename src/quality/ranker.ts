/**
 * The pairwise linear model behind `fit_ranker` and `fit_noise`: a logistic loss over
 * (better, worse) pairs within groups, fitted by Newton's method.
 */

import { QuiverError } from '../errors.js';
import { Prng } from './prng.js';

/** Version of {@link RankerJSON}; {@link Ranker.fromJSON} rejects any other. */
export const RANKER_FORMAT_VERSION = 1;
export const DEFAULT_RANKER_L2 = 1;
export const DEFAULT_RANKER_MAX_PAIRS = 200_000;
export const RANKER_MAX_STEPS = 25;
export const RANKER_STEP_TOL = 1e-7;

export interface RankerMeta {
  nPairs: number;
  nRows: number;
  nGroups: number;
  l2: number;
}

/** Stored form of a {@link Ranker}. `w` is null for an unfitted model. */
export interface RankerJSON {
  formatVersion: number;
  names: string[];
  w: number[] | null;
  mu: number[];
  sd: number[];
  meta: RankerMeta;
}

export interface RankerFitInput {
  /** Feature names, one per column. */
  names: readonly string[];
  X: readonly (readonly number[])[];
  /** Group id per row: pairs are formed only within a group (one question, or 'all'). */
  groups: readonly string[];
  /** Label per row; a pair (a, b) is formed when y[a] > y[b]. */
  y: readonly number[];
  /** Row weights (defaults to 1); a pair weighs min(w[a], w[b]). */
  weights?: readonly number[];
  /** L2 penalty. Defaults to 1. */
  l2?: number;
  /** Above this many pairs a seeded uniform sample (seed 0) is used. Defaults to 200 000. */
  maxPairs?: number;
}

const sigmoid = (z: number): number => 1 / (1 + Math.exp(-Math.min(30, Math.max(-30, z))));

/** Solve A x = b by Gaussian elimination with partial pivoting (A is small and SPD here). */
function solve(A: number[][], b: number[]): number[] {
  const n = b.length;
  const M = A.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(M[r]![c]!) > Math.abs(M[p]![c]!)) p = r;
    if (Math.abs(M[p]![c]!) < 1e-300)
      throw new QuiverError('INTERNAL', 'quiver: ranker Hessian is singular (use l2 > 0)');
    [M[c], M[p]] = [M[p]!, M[c]!];
    for (let r = c + 1; r < n; r++) {
      const f = M[r]![c]! / M[c]![c]!;
      if (f !== 0) for (let t = c; t <= n; t++) M[r]![t]! -= f * M[c]![t]!;
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let s = M[r]![n]!;
    for (let t = r + 1; t < n; t++) s -= M[r]![t]! * x[t]!;
    x[r] = s / M[r]![r]!;
  }
  return x;
}

/**
 * A linear scorer `s(x) = ((x − mu)/sd)·w` fitted on pairs.
 *
 * Fit: mu = column mean, sd = population sd + 1e-9, Z = (X − mu)/sd. Pairs (a, b) within a group
 * with y[a] > y[b], weight pw = min(w[a], w[b]), d = Z[a] − Z[b]. Loss
 * `L(w) = (1/n) Σ pw·ln(1 + e^(−d·w)) + (l2/2)‖w‖²` (n = number of pairs), minimised by Newton from
 * w = 0: μ = σ(D w) (z clipped to ±30), g = Dᵀ(pw∘(μ − 1))/n + l2·w,
 * H = Dᵀ diag(pw∘μ∘(1 − μ)) D / n + l2·I, w ← w − H⁻¹g, ≤ 25 steps, stop when ‖step‖ < 1e-7.
 * No pair → an unfitted model (mu and sd are still stored) that scores every row 0.
 */
export class Ranker {
  readonly names: string[];
  readonly w: number[] | null;
  readonly mu: number[];
  readonly sd: number[];
  readonly meta: RankerMeta;

  private constructor(json: Omit<RankerJSON, 'formatVersion'>) {
    this.names = json.names;
    this.w = json.w;
    this.mu = json.mu;
    this.sd = json.sd;
    this.meta = json.meta;
  }

  /** True when the fit found at least one pair. */
  get fitted(): boolean {
    return this.w !== null;
  }

  /** Fit on grouped, labelled rows (see the class docs). Throws BAD_INPUT on ragged input. */
  static fit(input: RankerFitInput): Ranker {
    const { X, groups, y, names } = input;
    const n = X.length;
    const d = names.length;
    const l2 = input.l2 ?? DEFAULT_RANKER_L2;
    const wt = input.weights ?? X.map(() => 1);
    if (groups.length !== n || y.length !== n || wt.length !== n || X.some((r) => r.length !== d)) {
      throw new QuiverError(
        'BAD_INPUT',
        `quiver: ranker fit needs ${n} groups, labels and weights and ${d} columns per row`,
      );
    }
    if (!(l2 >= 0)) throw new QuiverError('BAD_INPUT', `quiver: l2 must be ≥ 0, got ${l2}`);
    const mu = new Array<number>(d).fill(0);
    const sd = new Array<number>(d).fill(0);
    for (const r of X) r.forEach((v, j) => (mu[j]! += v / n));
    for (const r of X) r.forEach((v, j) => (sd[j]! += (v - mu[j]!) ** 2 / n));
    for (let j = 0; j < d; j++) sd[j] = (n > 0 ? Math.sqrt(sd[j]!) : 0) + 1e-9;
    const Z = X.map((r) => r.map((v, j) => (v - mu[j]!) / sd[j]!));

    const byGroup = new Map<string, number[]>();
    groups.forEach((g, i) => {
      const list = byGroup.get(g) ?? [];
      list.push(i);
      byGroup.set(g, list);
    });
    let pairs: [number, number][] = [];
    for (const rows of byGroup.values())
      for (const a of rows) for (const b of rows) if (y[a]! > y[b]!) pairs.push([a, b]);
    pairs.sort((p, q) => p[0] - q[0] || p[1] - q[1]);
    const maxPairs = input.maxPairs ?? DEFAULT_RANKER_MAX_PAIRS;
    if (pairs.length > maxPairs) {
      const rng = new Prng(0);
      const pick = pairs.map((_, i) => i);
      for (let i = 0; i < maxPairs; i++) {
        const j = i + rng.int(pick.length - i);
        [pick[i], pick[j]] = [pick[j]!, pick[i]!];
      }
      pairs = pick
        .slice(0, maxPairs)
        .sort((a, b) => a - b)
        .map((i) => pairs[i]!);
    }
    const meta: RankerMeta = { nPairs: pairs.length, nRows: n, nGroups: byGroup.size, l2 };
    if (pairs.length === 0) return new Ranker({ names: [...names], w: null, mu, sd, meta });

    const D = pairs.map(([a, b]) => Z[a]!.map((v, j) => v - Z[b]![j]!));
    const pw = pairs.map(([a, b]) => Math.min(wt[a]!, wt[b]!));
    const np = pairs.length;
    let w = new Array<number>(d).fill(0);
    for (let step = 0; step < RANKER_MAX_STEPS; step++) {
      const g = w.map((v) => l2 * v);
      const H = w.map((_, i) => w.map((__, j) => (i === j ? l2 : 0)));
      D.forEach((row, p) => {
        const m = sigmoid(row.reduce((s, v, j) => s + v * w[j]!, 0));
        const gi = (pw[p]! * (m - 1)) / np;
        const hi = (pw[p]! * m * (1 - m)) / np;
        for (let i = 0; i < d; i++) {
          g[i]! += row[i]! * gi;
          for (let j = 0; j < d; j++) H[i]![j]! += row[i]! * row[j]! * hi;
        }
      });
      const delta = solve(H, g);
      w = w.map((v, i) => v - delta[i]!);
      if (Math.hypot(...delta) < RANKER_STEP_TOL) break;
    }
    return new Ranker({ names: [...names], w, mu, sd, meta });
  }

  /** `((x − mu)/sd)·w` per row; an unfitted model scores 0. Rows must have `names.length` columns. */
  score(X: readonly (readonly number[])[]): number[] {
    const w = this.w;
    return X.map((r) => {
      if (r.length !== this.names.length) {
        throw new QuiverError(
          'BAD_INPUT',
          `quiver: ranker expects ${this.names.length} columns, got ${r.length}`,
        );
      }
      return w === null ? 0 : r.reduce((s, v, j) => s + ((v - this.mu[j]!) / this.sd[j]!) * w[j]!, 0);
    });
  }

  /** `[name, weight]` pairs, largest |weight| first (empty when unfitted). */
  weights(): [string, number][] {
    const w = this.w;
    if (w === null) return [];
    return this.names
      .map((n, j): [string, number] => [n, w[j]!])
      .sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]));
  }

  toJSON(): RankerJSON {
    return {
      formatVersion: RANKER_FORMAT_VERSION,
      names: [...this.names],
      w: this.w === null ? null : [...this.w],
      mu: [...this.mu],
      sd: [...this.sd],
      meta: { ...this.meta },
    };
  }

  /**
   * Rebuild a stored model. An unknown `formatVersion` throws SCHEMA; a malformed body (missing
   * arrays, lengths that disagree with `names`, non-finite numbers) throws SCHEMA too.
   */
  static fromJSON(json: unknown): Ranker {
    const o = (typeof json === 'object' && json !== null ? json : {}) as Record<string, unknown>;
    if (o['formatVersion'] !== RANKER_FORMAT_VERSION) {
      throw new QuiverError(
        'SCHEMA',
        `quiver: ranker formatVersion must be ${RANKER_FORMAT_VERSION}, got ${JSON.stringify(o['formatVersion'])}`,
      );
    }
    const names = o['names'];
    const nums = (v: unknown): v is number[] =>
      Array.isArray(v) &&
      v.every((x) => typeof x === 'number' && Number.isFinite(x)) &&
      v.length === (names as unknown[]).length;
    const meta = o['meta'] as Record<string, unknown> | undefined;
    if (
      !Array.isArray(names) ||
      !names.every((n) => typeof n === 'string') ||
      !(o['w'] === null || nums(o['w'])) ||
      !nums(o['mu']) ||
      !nums(o['sd']) ||
      typeof meta !== 'object' ||
      meta === null ||
      !['nPairs', 'nRows', 'nGroups', 'l2'].every((k) => typeof meta[k] === 'number')
    ) {
      throw new QuiverError('SCHEMA', 'quiver: stored ranker is malformed');
    }
    return new Ranker({
      names: names as string[],
      w: o['w'] as number[] | null,
      mu: o['mu'] as number[],
      sd: o['sd'] as number[],
      meta: meta as unknown as RankerMeta,
    });
  }
}
