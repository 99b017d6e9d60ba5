import { describe, it, expect } from 'vitest';
import { NOISE_WEIGHTS, REFERENCE_NOISE_WEIGHTS, noiseScores, suggestNoisy } from './blend.js';
import { NOISE_FEATURES } from './features.js';
import { INTRINSIC_FEATURES } from './intrinsic.js';

describe('noiseScores', () => {
  const X = [
    [1, 0],
    [3, 5],
    [2, 5],
    [0, 1],
  ];
  it('blends rank-normalised columns by Σ|w| and sorts descending', () => {
    const s = noiseScores(X, ['a', 'b'], { a: 1, b: -1 }, ['w', 'x', 'y', 'z']);
    // a ranks: w 1, x 3, y 2, z 0; b ranks: w 0, x 2.5, y 2.5, z 1
    const z = (r: number): number => (r / 3 - 0.5) * 3.46;
    const expected = {
      w: (z(1) - z(0)) / 2,
      x: (z(3) - z(2.5)) / 2,
      y: (z(2) - z(2.5)) / 2,
      z: (z(0) - z(1)) / 2,
    };
    for (const r of s) expect(r.score).toBeCloseTo(expected[r.docId as keyof typeof expected], 12);
    expect(s.map((r) => r.docId)).toEqual(['w', 'x', 'y', 'z']);
  });
  it('missing names weigh 0; all-zero weights divide by 1; ties keep row order', () => {
    const s = noiseScores(X, ['a', 'b'], {});
    expect(s.map((r) => [r.index, r.score])).toEqual([
      [0, 0],
      [1, 0],
      [2, 0],
      [3, 0],
    ]);
    expect(s[0]!.docId).toBe('0');
  });
  it('the reference weights sum to 4 and the defaults cover every feature column', () => {
    expect(Object.values(REFERENCE_NOISE_WEIGHTS).reduce((a, b) => a + Math.abs(b), 0)).toBeCloseTo(4, 12);
    for (const n of [...NOISE_FEATURES, ...INTRINSIC_FEATURES]) expect(NOISE_WEIGHTS[n]).toBeTypeOf('number');
  });
  it('the reference weights are the spec table (hub 1, dup_out 0.8, spread_chunk 0.8, …)', () => {
    expect(REFERENCE_NOISE_WEIGHTS).toEqual({
      hub: 1.0,
      dup_out: 0.8,
      off_centre: 0.5,
      spread_chunk: 0.8,
      spread_doc: 0.0,
      low_idf: 0.3,
      redundancy: 0.1,
      short: 0.0,
      promiscuity: 0.5,
    });
  });
  it('the default drops the geometry features, re-orients low_idf, halves hub; Σ|w| = 9.7', () => {
    expect(NOISE_WEIGHTS['off_centre']).toBe(0);
    expect(NOISE_WEIGHTS['spread_chunk']).toBe(0);
    expect(NOISE_WEIGHTS['low_idf']).toBe(-0.3);
    expect(NOISE_WEIGHTS['hub']).toBe(0.5);
    expect(NOISE_WEIGHTS['dup_out']).toBe(REFERENCE_NOISE_WEIGHTS['dup_out']);
    expect(Object.values(NOISE_WEIGHTS).reduce((a, b) => a + Math.abs(b), 0)).toBeCloseTo(9.7, 12);
  });
  it('a negative weight re-orients its column: the largest raw value scores lowest', () => {
    const s = noiseScores(X, ['a', 'b'], { a: -0.3 }, ['w', 'x', 'y', 'z']);
    expect(s.map((r) => r.docId)).toEqual(['z', 'w', 'y', 'x']);
    expect(s[0]!.score).toBeCloseTo(1.73, 12); // −(−1.73)·0.3 / 0.3
    expect(s[3]!.score).toBeCloseTo(-1.73, 12);
  });
  it('the default blend ignores off_centre and spread_chunk: changing them leaves scores unchanged', () => {
    const names = [...NOISE_FEATURES, ...INTRINSIC_FEATURES];
    const rows = [0, 1, 2, 3, 4].map((i) => names.map((_, j) => ((i + 1) * (j + 3)) % 7));
    const moved = rows.map((r, i) =>
      r.map((v, j) => (names[j] === 'off_centre' || names[j] === 'spread_chunk' ? 10 - i : v)),
    );
    const a = noiseScores(rows, names).map((r) => [r.index, r.score]);
    const b = noiseScores(moved, names).map((r) => [r.index, r.score]);
    expect(b).toEqual(a);
  });
  it('empty input gives no scores', () => {
    expect(noiseScores([], ['a'])).toEqual([]);
  });
});

describe('suggestNoisy', () => {
  const scores = [1.5, 1.2, 1.0, 0.99, -1].map((score, index) => ({
    index,
    docId: `d${index}`,
    score,
    z: [],
  }));
  it('keeps unjudged documents with score ≥ minScore (inclusive), at most k', () => {
    expect(suggestNoisy(scores, new Set()).map((s) => s.docId)).toEqual(['d0', 'd1', 'd2']);
    expect(suggestNoisy(scores, new Set(['d1'])).map((s) => s.docId)).toEqual(['d0', 'd2']);
    expect(suggestNoisy(scores, new Set(), { k: 1 }).map((s) => s.docId)).toEqual(['d0']);
    expect(suggestNoisy(scores, new Set(), { minScore: -10 }).length).toBe(5);
    expect(suggestNoisy(scores, new Set(), { k: 0 })).toEqual([]);
  });
});
