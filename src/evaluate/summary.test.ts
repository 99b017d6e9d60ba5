import { describe, expect, it } from 'vitest';
import type { QuestionResult } from './eval-result.js';
import { measureGrounding } from './grounding.js';
import { createFactIdJudge } from './judges/fact-id.js';
import {
  buildEvalResult,
  compareConfigs,
  defaultLowerIsBetter,
  groundingRow,
  latencySummary,
  summarizeMetric,
  summarizeQuestions,
} from './summary.js';

const m = (value: number | null) =>
  value === null
    ? { num: 0, den: 0, value: null, undefinedReason: 'no claims' }
    : { num: value, den: 1, value };

function rows(values: (number | null)[], prefix = 'q'): QuestionResult[] {
  return values.map((v, i) => ({
    id: `${prefix}${i}`,
    faithfulness: m(v),
    latency_ms: { retrieve: 10 + i },
  }));
}

describe('summarizeMetric', () => {
  it('averages the defined values and counts Undefined apart (never as 0)', () => {
    const s = summarizeMetric([m(1), m(0), m(null), null, undefined, 1, Number.NaN]);
    expect(s.mean).toBeCloseTo(2 / 3, 12);
    expect(s.n).toBe(3);
    expect(s.undefined).toBe(4);
    expect(s.ci![0]).toBeLessThanOrEqual(s.mean!);
    expect(s.ci![1]).toBeGreaterThanOrEqual(s.mean!);
  });
  it('all Undefined → mean and ci null', () => {
    expect(summarizeMetric([null, m(null)])).toEqual({ mean: null, n: 0, undefined: 2, ci: null });
  });
  it('is seeded: the same input gives the same interval', () => {
    const xs = [0.1, 0.9, 0.4, 0.7, 0.3];
    expect(summarizeMetric(xs)).toEqual(summarizeMetric(xs));
  });
});

describe('summarizeQuestions', () => {
  it('finds every metric and skips id, latency and tokens', () => {
    const qs: QuestionResult[] = [
      { id: 'a', recall: m(1), faithfulness: m(0.5), tokens: { prompt: 1, completion: 2 } },
    ];
    expect(Object.keys(summarizeQuestions(qs))).toEqual(['recall', 'faithfulness']);
  });
});

describe('compareConfigs', () => {
  const base = rows([0.2, 0.3, 0.1, 0.2, 0.25, 0.3, 0.2, 0.1, 0.15, 0.2]);
  const better = rows([0.8, 0.9, 0.7, 0.85, 0.9, 0.8, 0.75, 0.9, 0.8, 0.85]);

  it('compares each config with the first, matching questions by id', () => {
    const shuffled = [...better].reverse();
    const [c] = compareConfigs(
      [
        { name: 'topk', questions: base },
        { name: 'mmr', questions: shuffled },
      ],
      { metrics: ['faithfulness'] },
    );
    expect(c).toMatchObject({ a: 'mmr', b: 'topk', metric: 'faithfulness', verdict: 'better', n: 10 });
    expect(c!.meanDiff).toBeCloseTo(0.625, 12); // (8.25 − 2.0) / 10
  });

  it('drops Undefined pairwise and leaves out unmatched questions', () => {
    const a = rows([1, null, 0.5, 0.5]);
    const b = [...rows([0, 0.5, null, 0.5]), { id: 'extra', faithfulness: m(1) }];
    const [c] = compareConfigs([
      { name: 'b', questions: b },
      { name: 'a', questions: a },
    ]);
    expect(c!.n).toBe(2);
    expect(c!.meanDiff).toBeCloseTo(0.5, 12);
  });

  it("'all' compares every pair; a metric where lower is better flips the verdict", () => {
    const lat = (v: number[]) => v.map((x, i) => ({ id: `q${i}`, noiseAt10: m(x) }));
    const cs = compareConfigs(
      [
        { name: 'x', questions: lat([0.5, 0.6, 0.5, 0.55, 0.6, 0.5]) },
        { name: 'y', questions: lat([0.1, 0.1, 0.0, 0.1, 0.05, 0.1]) },
        { name: 'z', questions: lat([0.5, 0.6, 0.5, 0.55, 0.6, 0.5]) },
      ],
      { pairs: 'all' },
    );
    expect(cs.map((c) => `${c.a}-${c.b}:${c.verdict}`)).toEqual([
      'y-x:better',
      'z-x:no difference',
      'z-y:worse',
    ]);
    expect(defaultLowerIsBetter('noise@10')).toBe(true);
    expect(defaultLowerIsBetter('recall@10')).toBe(false);
  });
});

describe('latencySummary', () => {
  it('p50 and p95 per stage with linear interpolation', () => {
    const qs: QuestionResult[] = Array.from({ length: 21 }, (_, i) => ({
      id: `q${i}`,
      latency_ms: { retrieve: i, generate: 100 },
    }));
    const s = latencySummary(qs);
    expect(s.retrieve).toEqual({ n: 21, mean: 10, p50: 10, p95: 19, min: 0, max: 20 });
    expect(s.generate!.p95).toBe(100);
    expect(latencySummary([{ id: 'x' }])).toEqual({});
  });
});

describe('groundingRow / buildEvalResult', () => {
  it('turns grounding measurements into question metrics and builds a full result', async () => {
    const g = await measureGrounding({
      retrieved: [{ id: 'S1', relevant: true, factIds: ['day'] }],
      claims: [{ text: 'Tuesday.', factIds: ['day'], citations: [] }],
      requiredFacts: [],
      answerText: 'Tuesday.',
      judge: createFactIdJudge(),
    });
    const row = groundingRow(g);
    expect(row.citationPrecision).toEqual({ num: 0, den: 0, value: null, undefinedReason: 'no citations' });
    expect(row.faithfulness).toEqual({ num: 1, den: 1, value: 1 });
    const q: QuestionResult = { id: 'q1', ...row, latency_ms: { retrieve: 3 } };
    const r = buildEvalResult({
      configs: [
        { name: 'a', settings: {}, questions: [q] },
        { name: 'b', settings: {}, questions: [q] },
      ],
      meta: { dataset: 'd', startedAt: '2025-01-01T00:00:00Z', durationMs: 1, machine: 'test' },
      options: { resamples: 200 },
    });
    expect(r.formatVersion).toBe(1);
    expect(r.configs[0]!.summary.completeness).toEqual({ mean: null, n: 0, undefined: 1, ci: null });
    expect(r.comparisons).toHaveLength(7);
    expect(r.comparisons.every((c) => c.verdict === 'no difference')).toBe(true);
  });
});
