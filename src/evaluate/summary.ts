/**
 * From per-question rows to an `EvalResult`: per-metric summaries (mean over questions with a
 * seeded bootstrap interval, Undefined counted separately), latency percentiles per stage, and
 * paired-bootstrap comparisons between configs (questions matched by id).
 *
 * @example
 * const result = buildEvalResult({
 *   configs: [{ name: 'topk', settings: {}, questions: rowsA }, { name: 'mmr', settings: {}, questions: rowsB }],
 *   meta: { dataset: 'q.jsonl', startedAt, durationMs, machine },
 * }); // comparisons: mmr vs topk for every metric
 */
import { DEFAULT_BOOTSTRAP_SEED, bootstrapMean, pairedBootstrap, percentile } from './bootstrap.js';
import type { BootstrapOptions } from './bootstrap.js';
import { EVAL_RESULT_FORMAT_VERSION, metricNames, questionMetric } from './eval-result.js';
import type {
  Comparison,
  ConfigResult,
  EvalMeta,
  EvalResult,
  MetricSummary,
  MetricValue,
  QuestionResult,
} from './eval-result.js';
import { GROUNDING_METRICS } from './grounding.js';
import type { GroundingResult } from './grounding.js';

/** A value to summarise: a metric value or Measurement, a plain number, or missing/Undefined. */
export type SummaryInput = MetricValue | number | null | undefined;

/** Default rule for which metrics improve downwards: names mentioning noise or latency. */
export function defaultLowerIsBetter(metric: string): boolean {
  return /noise|latency/iu.test(metric);
}

export interface CompareOptions extends BootstrapOptions {
  /** Metrics to compare; defaults to every metric in the rows. */
  metrics?: readonly string[];
  /** 'baseline' (default): every config against the first; 'all': every unordered pair (later vs earlier). */
  pairs?: 'baseline' | 'all';
  /** Which metrics improve downwards; defaults to `defaultLowerIsBetter`. */
  lowerIsBetter?: (metric: string) => boolean;
}

const valueOf = (x: SummaryInput): number | null =>
  x === null || x === undefined ? null : typeof x === 'number' ? (Number.isNaN(x) ? null : x) : x.value;

/**
 * Summarise one metric over questions: mean of the defined values, n, the count of Undefined
 * (null, missing or NaN) and a seeded bootstrap percentile interval of the mean.
 */
export function summarizeMetric(
  values: readonly SummaryInput[],
  options: BootstrapOptions = {},
): MetricSummary {
  const xs = values.map(valueOf);
  const { mean, n, ci } = bootstrapMean(xs, options);
  return { mean, n, undefined: xs.length - n, ci };
}

/** Summaries of every metric (or the given ones) over a config's question rows. */
export function summarizeQuestions(
  questions: readonly QuestionResult[],
  options: BootstrapOptions & { metrics?: readonly string[] } = {},
): Record<string, MetricSummary> {
  const out: Record<string, MetricSummary> = {};
  for (const m of options.metrics ?? metricNames(questions)) {
    out[m] = summarizeMetric(
      questions.map((q) => questionMetric(q, m)),
      options,
    );
  }
  return out;
}

/**
 * Paired-bootstrap comparisons between configs for each metric. Questions are matched by id
 * (questions missing from either config are left out); Undefined values are dropped pairwise.
 * Each comparison reads "a relative to b"; in 'baseline' mode b is the first config.
 */
export function compareConfigs(
  configs: readonly Pick<ConfigResult, 'name' | 'questions'>[],
  options: CompareOptions = {},
): Comparison[] {
  const pairs: [number, number][] = [];
  for (let i = 1; i < configs.length; i++) {
    if ((options.pairs ?? 'baseline') === 'baseline') pairs.push([i, 0]);
    else for (let j = 0; j < i; j++) pairs.push([i, j]);
  }
  const lowerIsBetter = options.lowerIsBetter ?? defaultLowerIsBetter;
  const metrics = options.metrics ?? metricNames(configs.flatMap((c) => c.questions));
  const out: Comparison[] = [];
  for (const [ia, ib] of pairs) {
    const A = configs[ia]!;
    const B = configs[ib]!;
    const byId = new Map(B.questions.map((q) => [q.id, q]));
    const matched = A.questions.flatMap((q) => {
      const other = byId.get(q.id);
      return other === undefined ? [] : [[q, other] as const];
    });
    for (const metric of metrics) {
      const a = matched.map(([qa]) => valueOf(questionMetric(qa, metric)));
      const b = matched.map(([, qb]) => valueOf(questionMetric(qb, metric)));
      const r = pairedBootstrap(a, b, {
        ...options,
        seed: options.seed ?? DEFAULT_BOOTSTRAP_SEED,
        higherIsBetter: !lowerIsBetter(metric),
      });
      out.push({
        a: A.name,
        b: B.name,
        metric,
        meanDiff: r.meanDiff,
        ci: r.lo === null || r.hi === null ? null : [r.lo, r.hi],
        p: r.p,
        verdict: r.verdict,
        n: r.n,
      });
    }
  }
  return out;
}

/** Latency of one stage over questions. */
export interface LatencySummary {
  n: number;
  mean: number;
  p50: number;
  p95: number;
  min: number;
  max: number;
}

/** p50/p95 (linear interpolation), mean, min and max of `latency_ms` per stage over the rows. */
export function latencySummary(questions: readonly QuestionResult[]): Record<string, LatencySummary> {
  const byStage = new Map<string, number[]>();
  for (const q of questions) {
    for (const [stage, ms] of Object.entries(q.latency_ms ?? {})) {
      if (!Number.isFinite(ms)) continue;
      const list = byStage.get(stage) ?? [];
      list.push(ms);
      byStage.set(stage, list);
    }
  }
  const out: Record<string, LatencySummary> = {};
  for (const [stage, list] of byStage) {
    const s = [...list].sort((x, y) => x - y);
    out[stage] = {
      n: s.length,
      mean: s.reduce((t, x) => t + x, 0) / s.length,
      p50: percentile(s, 0.5),
      p95: percentile(s, 0.95),
      min: s[0]!,
      max: s[s.length - 1]!,
    };
  }
  return out;
}

/** The grounding measurements as question-row metrics, ready to spread into a `QuestionResult`. */
export function groundingRow(result: GroundingResult): Record<string, MetricValue> {
  const row: Record<string, MetricValue> = {};
  for (const m of GROUNDING_METRICS) row[m] = { ...result[m] };
  return row;
}

/** Summarise every config and compare them: the whole `EvalResult` in one call. */
export function buildEvalResult(input: {
  configs: readonly { name: string; settings: Record<string, unknown>; questions: QuestionResult[] }[];
  meta: EvalMeta;
  options?: CompareOptions;
}): EvalResult {
  const options = input.options ?? {};
  const configs: ConfigResult[] = input.configs.map((c) => ({
    name: c.name,
    settings: c.settings,
    summary: summarizeQuestions(c.questions, options),
    questions: c.questions,
  }));
  return {
    formatVersion: EVAL_RESULT_FORMAT_VERSION,
    configs,
    comparisons: compareConfigs(configs, options),
    meta: input.meta,
  };
}
