/**
 * The eval result format (`quiver eval --json`), read by the HTML report and by other tools.
 *
 * ```json
 * {
 *   "formatVersion": 1,
 *   "configs": [{
 *     "name": "mmr", "settings": {"select": "mmr"},
 *     "summary": {"faithfulness": {"mean": 0.9, "n": 40, "undefined": 2, "ci": [0.85, 0.95]}},
 *     "questions": [{
 *       "id": "q1",
 *       "faithfulness": {"num": 3, "den": 3, "value": 1},
 *       "citationPrecision": {"num": 0, "den": 0, "value": null, "undefinedReason": "no citations"},
 *       "latency_ms": {"retrieve": 12.5, "generate": 840},
 *       "tokens": {"prompt": 1200, "completion": 80}
 *     }]
 *   }],
 *   "comparisons": [{"a": "mmr", "b": "topk", "metric": "faithfulness", "meanDiff": 0.05,
 *                    "ci": [0.01, 0.09], "p": 0.02, "verdict": "better", "n": 38}],
 *   "meta": {"dataset": "questions.jsonl", "startedAt": "2025-01-01T00:00:00Z", "durationMs": 5000,
 *            "machine": {"cpu": "…", "node": "v20.19.0"}}
 * }
 * ```
 *
 * Every key of a question other than `id`, `latency_ms`, `tokens` and `error` (why its answer
 * failed, when it did; its answer metrics are then Undefined with that reason) is a metric:
 * `{num, den, value}` where `value` is null for Undefined (`undefinedReason` says why). Metrics that
 * are not fractions (nDCG) use `num = value, den = 1` (see `metricValue`). A summary's `mean` and
 * `ci` are null when every question is Undefined. A comparison's verdict is about `a` relative to
 * `b`; `meanDiff` = mean(a − b) over the `n` questions where both are defined.
 */
import { z } from 'zod';
import { QuiverError } from '../errors.js';
import type { Verdict } from './bootstrap.js';

/** The version this module writes and reads. */
export const EVAL_RESULT_FORMAT_VERSION = 1;

/** One metric for one question: a Measurement, or a plain score wrapped by `metricValue`. */
export interface MetricValue {
  num: number;
  den: number;
  value: number | null;
  undefinedReason?: string;
}

export interface TokenUsage {
  prompt: number;
  completion: number;
}

/** One question's row: its id, one key per metric, and optional latency (per stage) and tokens. */
export interface QuestionResult {
  id: string;
  latency_ms?: Record<string, number>;
  tokens?: TokenUsage;
  /** Why the question's answer failed (a remote error); absent when it did not. */
  error?: string;
  [metric: string]: MetricValue | string | Record<string, number> | TokenUsage | undefined;
}

/** A metric summarised over the questions of one config. */
export interface MetricSummary {
  /** Mean of the defined values (a macro average over questions); null when none is defined. */
  mean: number | null;
  /** Questions with a defined value. */
  n: number;
  /** Questions where the metric is Undefined. */
  undefined: number;
  /** Bootstrap percentile interval of the mean; null when n = 0. */
  ci: [number, number] | null;
}

export interface ConfigResult {
  name: string;
  settings: Record<string, unknown>;
  summary: Record<string, MetricSummary>;
  questions: QuestionResult[];
}

export interface Comparison {
  a: string;
  b: string;
  metric: string;
  meanDiff: number | null;
  ci: [number, number] | null;
  p: number | null;
  verdict: Verdict;
  n: number;
}

export interface EvalMeta {
  dataset: string;
  startedAt: string;
  durationMs: number;
  machine: string | Record<string, unknown>;
  /** Free-form notes shown on the report (e.g. "judge: lexical-proxy (a proxy, not entailment)"). */
  notes?: string[];
}

export interface EvalResult {
  formatVersion?: number;
  configs: ConfigResult[];
  comparisons: Comparison[];
  meta: EvalMeta;
}

/** Keys of a question row that are not metrics. */
export const QUESTION_RESERVED_KEYS: ReadonlySet<string> = new Set(['id', 'latency_ms', 'tokens', 'error']);

/** Wrap a plain score (nDCG, MRR, …) as a metric value: `{num: v, den: 1, value: v}`, or Undefined. */
export function metricValue(value: number | null, undefinedReason = 'not applicable'): MetricValue {
  return value === null || Number.isNaN(value)
    ? { num: 0, den: 0, value: null, undefinedReason }
    : { num: value, den: 1, value };
}

function isMetricValue(x: unknown): x is MetricValue {
  return (
    typeof x === 'object' &&
    x !== null &&
    'value' in x &&
    'num' in x &&
    'den' in x &&
    (typeof x.value === 'number' || x.value === null)
  );
}

/** The metric of a question row, or undefined when the row does not have it. */
export function questionMetric(q: QuestionResult, metric: string): MetricValue | undefined {
  if (QUESTION_RESERVED_KEYS.has(metric)) return undefined;
  const v = q[metric];
  return isMetricValue(v) ? v : undefined;
}

/** Every metric name that appears in the rows, in order of first appearance. */
export function metricNames(questions: readonly QuestionResult[]): string[] {
  const names = new Set<string>();
  for (const q of questions) {
    for (const [k, v] of Object.entries(q))
      if (!QUESTION_RESERVED_KEYS.has(k) && isMetricValue(v)) names.add(k);
  }
  return [...names];
}

const metricValueSchema = z.object({
  num: z.number(),
  den: z.number(),
  value: z.number().nullable(),
  undefinedReason: z.string().optional(),
});
const interval = z.tuple([z.number(), z.number()]).nullable();

/** Zod schema of the format; `parseEvalResult` is the checked entry point. */
export const evalResultSchema = z.object({
  formatVersion: z.number().int().optional(),
  configs: z.array(
    z.object({
      name: z.string(),
      settings: z.record(z.string(), z.unknown()),
      summary: z.record(
        z.string(),
        z.object({
          mean: z.number().nullable(),
          n: z.number().int(),
          undefined: z.number().int(),
          ci: interval,
        }),
      ),
      questions: z.array(
        z
          .object({
            id: z.string(),
            latency_ms: z.record(z.string(), z.number()).optional(),
            tokens: z.object({ prompt: z.number(), completion: z.number() }).optional(),
            error: z.string().optional(),
          })
          .catchall(metricValueSchema),
      ),
    }),
  ),
  comparisons: z.array(
    z.object({
      a: z.string(),
      b: z.string(),
      metric: z.string(),
      meanDiff: z.number().nullable(),
      ci: interval,
      p: z.number().nullable(),
      verdict: z.enum(['better', 'worse', 'no difference']),
      n: z.number().int(),
    }),
  ),
  meta: z.object({
    dataset: z.string(),
    startedAt: z.string(),
    durationMs: z.number(),
    machine: z.union([z.string(), z.record(z.string(), z.unknown())]),
    notes: z.array(z.string()).optional(),
  }),
});

/**
 * Validate parsed JSON as an `EvalResult`. Throws `SCHEMA` for an unknown (newer) formatVersion and
 * `BAD_INPUT` naming the first offending path otherwise.
 */
export function parseEvalResult(json: unknown): EvalResult {
  const res = evalResultSchema.safeParse(json);
  if (!res.success) {
    const issue = res.error.issues[0];
    const path = issue === undefined ? '' : issue.path.join('.');
    throw new QuiverError(
      'BAD_INPUT',
      `quiver: eval result ${path || '(root)'} is invalid: ${issue?.message ?? ''}`,
    );
  }
  const v = res.data.formatVersion;
  if (v !== undefined && v !== EVAL_RESULT_FORMAT_VERSION) {
    throw new QuiverError(
      'SCHEMA',
      `quiver: eval result formatVersion must be ${EVAL_RESULT_FORMAT_VERSION}, got ${v}`,
    );
  }
  return res.data as EvalResult;
}
