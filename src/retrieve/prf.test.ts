import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { combineFeedback, expansionTerms, feedbackCandidates } from './prf.js';

const stats = (docs: number, df: Record<string, number>) => ({ docs, df: new Map(Object.entries(df)) });

describe('feedbackCandidates', () => {
  it('keeps one surface word per stem, skips stop-words, short words, numbers and the query’s stems', () => {
    const c = feedbackCandidates(
      ['blade'],
      [{ score: 1, text: 'The turbines and turbine blades at 1200 rpm of it on' }],
    );
    // turbin: tf 2 of 4 candidate words (turbines, turbine, blades, rpm); rpm: 1 of 4.
    expect(c).toEqual([
      { stem: 'turbin', surface: 'turbines', weight: 0.5 },
      { stem: 'rpm', surface: 'rpm', weight: 0.25 },
    ]);
  });

  it('weights sections by a softmax of their scores, so a far better first hit dominates', () => {
    const c = feedbackCandidates(
      ['x'],
      [
        { score: 50, text: 'alpha alpha alpha' },
        { score: 1, text: 'omega omega omega omega' },
      ],
    );
    expect(c.map((x) => x.stem)).toEqual(['alpha', 'omega']);
    expect(c[0]!.weight).toBeCloseTo(1, 12);
  });

  it('keeps at most `limit` candidates, and none without sections', () => {
    const text = 'apple banana cherry damson elder fig grape';
    expect(feedbackCandidates([], [{ score: 1, text }], 3)).toHaveLength(3);
    expect(feedbackCandidates([], [{ score: 1, text }], 0)).toEqual([]);
    expect(feedbackCandidates([], [])).toEqual([]);
  });
});

describe('expansionTerms', () => {
  const sections = [
    { score: 10, text: 'Boundary layer transition on swept wings; transition and suction.' },
    { score: 9, text: 'Suction delays transition of the boundary layer.' },
  ];
  const df = stats(100, { boundari: 10, layer: 20, transit: 5, swept: 2, wing: 30, suction: 4, delai: 50 });

  it('ranks candidates by weight × ln(N/df)', () => {
    const t = expansionTerms(feedbackCandidates(['boundary', 'layer'], sections), df, 3);
    expect(t).toEqual(['transition', 'suction', 'swept']);
  });

  it('skips stems the index does not know or holds only once', () => {
    const t = expansionTerms(
      feedbackCandidates(['boundary'], sections),
      stats(100, { transit: 1, suction: 4 }),
      5,
    );
    expect(t).toEqual(['suction']);
  });

  it('skips stems found in more than a fifth of the sections', () => {
    const t = expansionTerms(
      feedbackCandidates(['boundary'], sections),
      stats(10, { transit: 3, suction: 2 }),
      5,
    );
    expect(t).toEqual(['suction']);
  });

  it('returns nothing without candidates, terms or documents', () => {
    const c = feedbackCandidates(['a'], sections);
    expect(expansionTerms([], df, 5)).toEqual([]);
    expect(expansionTerms(c, df, 0)).toEqual([]);
    expect(expansionTerms(c, stats(0, {}), 5)).toEqual([]);
  });
});

describe('combineFeedback', () => {
  const h = (key: string, score: number) => ({ key, score });

  it('adds β × the second score, taking an absent score as 0', () => {
    const r = combineFeedback([h('a', 10), h('b', 9)], [h('b', 5), h('c', 20)], 0.2);
    // b: 9 + 0.2 × 5 = 10 ties a, and a came first; c: 0.2 × 20.
    expect(r.map((x) => [x.item.key, x.score])).toEqual([
      ['a', 10],
      ['b', 10],
      ['c', 4],
    ]);
  });

  it('β = 0 returns the first list in its order', () => {
    const first = [h('a', 3), h('b', 2), h('c', 1)];
    expect(combineFeedback(first, [h('z', 100)], 0).map((x) => x.item.key)).toEqual(['a', 'b', 'c']);
  });

  it('keeps every key once and sorts by score (property)', () => {
    const list = fc.array(
      fc.tuple(fc.constantFrom('a', 'b', 'c', 'd', 'e'), fc.double({ min: 0, max: 50, noNaN: true })),
      {
        maxLength: 5,
      },
    );
    fc.assert(
      fc.property(list, list, fc.double({ min: 0, max: 1, noNaN: true }), (x, y, beta) => {
        const dedupe = (l: [string, number][]) => [...new Map(l).entries()].map(([k, s]) => h(k, s));
        const a = dedupe(x);
        const b = dedupe(y);
        const r = combineFeedback(a, b, beta);
        const keys = r.map((z) => z.item.key);
        expect(new Set(keys).size).toBe(keys.length);
        expect(new Set(keys)).toEqual(new Set([...a, ...(beta === 0 ? [] : b)].map((z) => z.key)));
        for (let i = 1; i < r.length; i++) expect(r[i - 1]!.score).toBeGreaterThanOrEqual(r[i]!.score);
      }),
    );
  });
});
