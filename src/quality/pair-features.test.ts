import { describe, it, expect } from 'vitest';
import { PAIR_FEATURES, pairFeatures } from './pair-features.js';
import { idf } from './noise/primitives.js';

const texts = ['the cat sat on the mat', 'a dog barked', 'cats and dogs'];
const base = {
  question: 'cat mat',
  idf: idf(texts),
  prior: new Map([['d1', 1.1]]),
  docInfo: new Map([
    ['d1', { kind: 'note', addedAtMs: Date.parse('2024-01-01T00:00:00Z') }],
    ['d2', { kind: 'html', addedAtMs: Date.parse('2024-01-11T00:00:00Z') }],
  ]),
  noiseZ: new Map([['d2', [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]]]),
  nowMs: Date.parse('2024-01-11T00:00:00Z'),
};

describe('pairFeatures', () => {
  it('has the 21 reference columns', () => {
    expect(PAIR_FEATURES.length).toBe(21);
    expect(PAIR_FEATURES.slice(0, 12)).toEqual([
      'score',
      'rank',
      'gap',
      'overlap',
      'idf_overlap',
      'cos',
      'len',
      'prior',
      'is_code',
      'is_web',
      'is_note',
      'age',
    ]);
  });

  it('computes every column for a two-hit list', () => {
    const X = pairFeatures({
      ...base,
      queryVector: [1, 0],
      hits: [
        { text: texts[0]!, score: 0.5, docId: 'd1', sectionId: 'd1#1', vector: [1, 0] },
        { text: texts[1]!, score: 0.25, docId: 'd2', sectionId: 'd2#1', vector: [0, 1] },
      ],
    });
    const idfCat = Math.log(3 / 2);
    const idfMat = Math.log(3 / 2);
    const [a, b] = X as [number[], number[]];
    expect(a.length).toBe(21);
    expect(a.slice(0, 3)).toEqual([0.5, 1, 1]);
    expect(a[3]).toBe(1);
    expect(a[4]).toBeCloseTo((idfCat + idfMat) / (idfCat + idfMat), 12);
    expect(a[5]).toBeCloseTo(1, 12);
    expect(a[6]).toBeCloseTo(Math.log(1 + 22), 12);
    expect(a.slice(7, 11)).toEqual([1.1, 0, 0, 1]);
    expect(a[11]).toBeCloseTo(Math.log(11), 12); // 10 days, UTC
    expect(a.slice(12)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(b.slice(0, 6)).toEqual([0.25, 0.5, 0.5, 0, 0, 0]);
    expect(b.slice(7, 12)).toEqual([1, 0, 1, 0, 0]); // default prior 1, is_web, age 0
    expect(b.slice(12)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('handles no hits, zero scores, missing vectors and unknown docs', () => {
    expect(pairFeatures({ ...base, hits: [] })).toEqual([]);
    const [r] = pairFeatures({
      ...base,
      question: '',
      hits: [{ text: '', score: 0, docId: 'zz', sectionId: 'zz#1' }],
    });
    expect(r!.slice(0, 8)).toEqual([0, 1, 0, 0, 0, 0, 0, 1]);
    expect(r![11]).toBe(0);
  });

  it('counts length in code points', () => {
    const [r] = pairFeatures({ ...base, hits: [{ text: '😀😀', score: 1, docId: 'd1', sectionId: 'x' }] });
    expect(r![6]).toBeCloseTo(Math.log(3), 12);
  });

  it('a doc added in the future has age 0', () => {
    const [r] = pairFeatures({
      ...base,
      nowMs: 0,
      hits: [{ text: 'x', score: 1, docId: 'd1', sectionId: 'x' }],
    });
    expect(r![11]).toBe(0);
  });
});
