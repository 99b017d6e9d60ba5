/**
 * Bootstrap statistics over questions: the paired bootstrap that compares two configs, and the
 * percentile confidence interval of a mean. Seeded (`src/math/prng.ts`), so a report is
 * reproducible. Undefined values (null, NaN) are dropped, pairwise for the paired test.
 */
import { QuiverError } from '../errors.js';
import { createPrng } from '../math/prng.js';

/** Bootstrap resamples of the question set. */
export const DEFAULT_BOOTSTRAP_RESAMPLES = 5000;
/** 1 − confidence: 0.05 gives the 95% percentile interval (2.5th to 97.5th percentile). */
export const DEFAULT_BOOTSTRAP_ALPHA = 0.05;
export const DEFAULT_BOOTSTRAP_SEED = 0;

export interface BootstrapOptions {
  /** Defaults to `DEFAULT_BOOTSTRAP_RESAMPLES` (5000). */
  resamples?: number;
  /** Defaults to `DEFAULT_BOOTSTRAP_ALPHA` (0.05). */
  alpha?: number;
  /** Defaults to `DEFAULT_BOOTSTRAP_SEED` (0). */
  seed?: number;
}

export interface PairedBootstrapOptions extends BootstrapOptions {
  /** For metrics where lower is better (latency, noise@k) pass false: the verdict flips. Default true. */
  higherIsBetter?: boolean;
}

/** Whether config a is better or worse than b, or the interval contains 0. */
export type Verdict = 'better' | 'worse' | 'no difference';

export interface PairedBootstrapResult {
  /** Pairs used: questions where both values are defined. */
  n: number;
  /** Pairs dropped because either value was Undefined (null or NaN). */
  dropped: number;
  /** mean(a − b) over the n pairs; null when n = 0. */
  meanDiff: number | null;
  /** Percentile interval of the resampled mean difference; null when n = 0. */
  lo: number | null;
  hi: number | null;
  /** Two-sided p = min(1, 2·min(P(boot ≤ 0), P(boot ≥ 0))); null when n = 0. */
  p: number | null;
  verdict: Verdict;
}

const isValue = (x: number | null | undefined): x is number => typeof x === 'number' && !Number.isNaN(x);

function checkOptions(resamples: number, alpha: number): void {
  if (!Number.isInteger(resamples) || resamples < 1) {
    throw new QuiverError('BAD_INPUT', `quiver: resamples must be an integer ≥ 1, got ${resamples}`);
  }
  if (!(alpha > 0 && alpha < 1))
    throw new QuiverError('BAD_INPUT', `quiver: alpha must be in (0, 1), got ${alpha}`);
}

/**
 * The q-quantile (q in [0, 1]) of ascending `sorted` values by linear interpolation between
 * closest ranks (numpy's default): position q·(n − 1). Empty input → NaN.
 */
export function percentile(sorted: readonly number[], q: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const pos = q * (n - 1);
  const i = Math.floor(pos);
  const frac = pos - i;
  const a = sorted[i]!;
  return i + 1 < n ? a + frac * (sorted[i + 1]! - a) : a;
}

/** Means of `resamples` bootstrap resamples (with replacement, same size) of `values`, ascending. */
function bootMeans(values: readonly number[], resamples: number, seed: number): number[] {
  const rng = createPrng(seed);
  const n = values.length;
  const means = new Array<number>(resamples);
  for (let r = 0; r < resamples; r++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += values[rng.int(n)]!;
    means[r] = s / n;
  }
  return means.sort((x, y) => x - y);
}

/**
 * Paired bootstrap over questions: d_i = a_i − b_i for the questions where both are defined; the
 * question set is resampled `resamples` times; the interval is the alpha/2 and 1 − alpha/2
 * percentiles of the resampled mean differences. Verdict: 'better' when the whole interval is above
 * 0 (below 0 when lower is better), 'worse' when on the other side, 'no difference' when it
 * contains 0 (also when n = 0). Identical inputs give [0, 0], p = 1.
 *
 * @example pairedBootstrap([1, 0, 1, 1, 0], [0, 0, 1, 0, 0]) // meanDiff 0.4, CI [0, 0.8], p ≈ 0.15, 'no difference'
 */
export function pairedBootstrap(
  a: readonly (number | null)[],
  b: readonly (number | null)[],
  options: PairedBootstrapOptions = {},
): PairedBootstrapResult {
  if (a.length !== b.length) {
    throw new QuiverError(
      'BAD_INPUT',
      `quiver: paired samples must have equal length, got ${a.length} and ${b.length}`,
    );
  }
  const resamples = options.resamples ?? DEFAULT_BOOTSTRAP_RESAMPLES;
  const alpha = options.alpha ?? DEFAULT_BOOTSTRAP_ALPHA;
  checkOptions(resamples, alpha);
  const diffs: number[] = [];
  a.forEach((x, i) => {
    const y = b[i];
    if (isValue(x) && isValue(y)) diffs.push(x - y);
  });
  const n = diffs.length;
  const dropped = a.length - n;
  if (n === 0) return { n, dropped, meanDiff: null, lo: null, hi: null, p: null, verdict: 'no difference' };

  const meanDiff = diffs.reduce((s, d) => s + d, 0) / n;
  const means = bootMeans(diffs, resamples, options.seed ?? DEFAULT_BOOTSTRAP_SEED);
  const lo = percentile(means, alpha / 2);
  const hi = percentile(means, 1 - alpha / 2);
  const le = means.filter((m) => m <= 0).length / resamples;
  const ge = means.filter((m) => m >= 0).length / resamples;
  const p = Math.min(1, 2 * Math.min(le, ge));
  let verdict: Verdict = 'no difference';
  const higherIsBetter = options.higherIsBetter ?? true;
  if (lo > 0) verdict = higherIsBetter ? 'better' : 'worse';
  else if (hi < 0) verdict = higherIsBetter ? 'worse' : 'better';
  return { n, dropped, meanDiff, lo, hi, p, verdict };
}

/**
 * Mean of the defined values and its bootstrap percentile interval. Null/NaN values are skipped;
 * with none left, mean and ci are null.
 */
export function bootstrapMean(
  values: readonly (number | null)[],
  options: BootstrapOptions = {},
): { mean: number | null; n: number; ci: [number, number] | null } {
  const resamples = options.resamples ?? DEFAULT_BOOTSTRAP_RESAMPLES;
  const alpha = options.alpha ?? DEFAULT_BOOTSTRAP_ALPHA;
  checkOptions(resamples, alpha);
  const xs = values.filter(isValue);
  if (xs.length === 0) return { mean: null, n: 0, ci: null };
  const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
  const means = bootMeans(xs, resamples, options.seed ?? DEFAULT_BOOTSTRAP_SEED);
  return { mean, n: xs.length, ci: [percentile(means, alpha / 2), percentile(means, 1 - alpha / 2)] };
}
