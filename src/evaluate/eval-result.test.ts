import { describe, expect, it } from 'vitest';
import { isQuiverError } from '../errors.js';
import { metricNames, metricValue, parseEvalResult, questionMetric } from './eval-result.js';
import type { EvalResult } from './eval-result.js';

const sample: EvalResult = {
  formatVersion: 1,
  configs: [
    {
      name: 'topk',
      settings: { select: 'topk' },
      summary: { faithfulness: { mean: 0.5, n: 2, undefined: 1, ci: [0, 1] } },
      questions: [
        {
          id: 'q1',
          faithfulness: { num: 1, den: 2, value: 0.5 },
          citationPrecision: { num: 0, den: 0, value: null, undefinedReason: 'no citations' },
          latency_ms: { retrieve: 3 },
          tokens: { prompt: 10, completion: 2 },
        },
      ],
    },
  ],
  comparisons: [
    {
      a: 'x',
      b: 'topk',
      metric: 'faithfulness',
      meanDiff: 0,
      ci: [0, 0],
      p: 1,
      verdict: 'no difference',
      n: 2,
    },
  ],
  meta: { dataset: 'd.jsonl', startedAt: '2025-01-01T00:00:00Z', durationMs: 10, machine: { node: 'v20' } },
};

describe('eval result format', () => {
  it('round-trips through JSON and validates', () => {
    expect(parseEvalResult(JSON.parse(JSON.stringify(sample)))).toEqual(sample);
  });

  it('rejects a malformed metric with the path, and a newer formatVersion with SCHEMA', () => {
    const bad = structuredClone(sample) as unknown as { configs: { questions: Record<string, unknown>[] }[] };
    bad.configs[0]!.questions[0]!.faithfulness = { value: 'high' };
    expect(() => parseEvalResult(bad)).toThrow(/configs\.0\.questions\.0\.faithfulness/);
    let err: unknown;
    try {
      parseEvalResult({ ...sample, formatVersion: 2 });
    } catch (e) {
      err = e;
    }
    expect(isQuiverError(err, 'SCHEMA')).toBe(true);
  });

  it('questionMetric / metricNames read only metric keys', () => {
    const q = sample.configs[0]!.questions[0]!;
    expect(metricNames([q])).toEqual(['faithfulness', 'citationPrecision']);
    expect(questionMetric(q, 'faithfulness')?.value).toBe(0.5);
    expect(questionMetric(q, 'tokens')).toBeUndefined();
    expect(questionMetric(q, 'missing')).toBeUndefined();
  });

  it('metricValue wraps plain scores and Undefined', () => {
    expect(metricValue(0.7)).toEqual({ num: 0.7, den: 1, value: 0.7 });
    expect(metricValue(null, 'no relevant items')).toEqual({
      num: 0,
      den: 0,
      value: null,
      undefinedReason: 'no relevant items',
    });
    expect(metricValue(Number.NaN).value).toBeNull();
  });
});
