import { describe, expect, it } from 'vitest';
import {
  extractionScore,
  pagePrecision,
  pageRecall,
  shingleMatch,
  shingles,
  words,
} from './extraction-score.js';

describe('words and shingles', () => {
  it('splits on anything but letters, digits and _', () => {
    expect(words('It’s 9:30, ok? snake_case Ünïcödé')).toEqual([
      'It',
      's',
      '9',
      '30',
      'ok',
      'snake_case',
      'Ünïcödé',
    ]);
    expect(words('')).toEqual([]);
  });

  it('makes n-word shingles, one shorter shingle for short text, none for no words', () => {
    expect(shingles('a b c d e')).toEqual(
      new Map([
        ['a b c d', 1],
        ['b c d e', 1],
      ]),
    );
    expect(shingles('a b')).toEqual(new Map([['a b', 1]]));
    expect(shingles(' ,. ')).toEqual(new Map());
    expect(shingles('a b a b a b', { n: 2 })).toEqual(
      new Map([
        ['a b', 3],
        ['b a', 2],
      ]),
    );
    expect(shingles('a b a b a b', { n: 2, sets: true })).toEqual(
      new Map([
        ['a b', 1],
        ['b a', 1],
      ]),
    );
    expect(shingles('A b', { lowerCase: true })).toEqual(new Map([['a b', 1]]));
  });
});

describe('shingleMatch', () => {
  it('normalises tp, fp and fn to sum to 1', () => {
    expect(shingleMatch('a b c d e', 'a b c d')).toEqual({ tp: 0.5, fp: 0, fn: 0.5 });
    expect(shingleMatch('a b c d', 'a b c d')).toEqual({ tp: 1, fp: 0, fn: 0 });
    expect(shingleMatch('a b c d', 'w x y z')).toEqual({ tp: 0, fp: 0.5, fn: 0.5 });
  });

  it('counts repeats as multisets and compares case as written', () => {
    const m = shingleMatch('x y x y x', 'x y x y x y x', { n: 2 });
    expect(m.tp).toBeCloseTo(4 / 6); // truth has 4 shingles, prediction 6: 4 shared, 2 extra
    expect(shingleMatch('A b c d', 'a b c d')).toEqual({ tp: 0, fp: 0.5, fn: 0.5 });
  });

  it('is all zero when neither text has words', () => {
    expect(shingleMatch('', '...')).toEqual({ tp: 0, fp: 0, fn: 0 });
  });
});

describe('pagePrecision, pageRecall, extractionScore', () => {
  it('gives 1 for a perfect page and 0 for nothing right', () => {
    expect(pagePrecision({ tp: 1, fp: 0, fn: 0 })).toBe(1);
    expect(pageRecall({ tp: 0, fp: 0, fn: 0 })).toBe(1);
    expect(pagePrecision({ tp: 0, fp: 0, fn: 1 })).toBe(0);
    expect(pageRecall({ tp: 0, fp: 1, fn: 0 })).toBe(0);
    expect(pagePrecision({ tp: 0.5, fp: 0.25, fn: 0.25 })).toBeCloseTo(2 / 3);
  });

  it('averages precision over pages that predicted something and recall over pages with truth', () => {
    const s = extractionScore([
      { tp: 1, fp: 0, fn: 0 },
      { tp: 0, fp: 0, fn: 1 }, // predicted nothing: recall 0, no precision
    ]);
    expect(s.precision).toBe(1);
    expect(s.recall).toBe(0.5);
    expect(s.f1).toBeCloseTo(2 / 3);
  });

  it('is NaN without pages and 0 when both means are 0', () => {
    expect(extractionScore([]).f1).toBeNaN();
    expect(extractionScore([{ tp: 0, fp: 0.5, fn: 0.5 }])).toEqual({ precision: 0, recall: 0, f1: 0 });
  });
});
