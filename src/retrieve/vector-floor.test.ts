import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isQuiverError } from '../errors.js';
import { admitVectorHits, DEFAULT_MIN_SIMILARITY, type VectorFloor } from './vector-floor.js';

const hits = (...scores: number[]): { id: number; score: number }[] =>
  scores.map((score, id) => ({ id, score }));
const semantic: VectorFloor = { minSimilarity: DEFAULT_MIN_SIMILARITY, surface: false, lexicalMatch: false };

describe('admitVectorHits', () => {
  it('no hits → []', () => {
    expect(admitVectorHits([], semantic)).toEqual([]);
    expect(admitVectorHits([], { ...semantic, surface: true, lexicalMatch: true })).toEqual([]);
  });

  it('default floor 0: keeps positive cosines, in order; drops 0 (a zero query vector) and negatives', () => {
    expect(admitVectorHits(hits(0.4, 0.2, 0, -0.1, 1e-9), semantic).map((h) => h.id)).toEqual([0, 1, 4]);
    expect(admitVectorHits(hits(0, 0, 0), semantic)).toEqual([]);
  });

  it('a hit exactly at a positive floor is kept; just below it is dropped', () => {
    const f = { ...semantic, minSimilarity: 0.25 };
    expect(admitVectorHits(hits(0.3, 0.25, 0.2499), f).map((h) => h.score)).toEqual([0.3, 0.25]);
  });

  it('a negative floor still needs cosine > 0', () => {
    expect(admitVectorHits(hits(0.1, 0, -0.5), { ...semantic, minSimilarity: -1 }).map((h) => h.id)).toEqual([
      0,
    ]);
  });

  it('NaN and infinite scores are never kept', () => {
    expect(admitVectorHits(hits(Number.NaN, Infinity, -Infinity, 0.5), semantic).map((h) => h.id)).toEqual([
      3,
    ]);
  });

  it('surface similarity without a lexical match → [] whatever the scores', () => {
    expect(admitVectorHits(hits(0.99, 0.9), { ...semantic, surface: true, lexicalMatch: false })).toEqual([]);
  });

  it('surface similarity with a lexical match: the cosine floor alone decides', () => {
    const f = { minSimilarity: 0.5, surface: true, lexicalMatch: true };
    expect(admitVectorHits(hits(0.9, 0.4, 0), f).map((h) => h.id)).toEqual([0]);
  });

  it('a semantic embedder ignores lexicalMatch', () => {
    expect(admitVectorHits(hits(0.2), { ...semantic, lexicalMatch: false })).toHaveLength(1);
    expect(admitVectorHits(hits(0.2), { ...semantic, lexicalMatch: true })).toHaveLength(1);
  });

  it('minSimilarity outside [-1, 1] or not finite → BAD_INPUT naming it', () => {
    for (const minSimilarity of [1.5, -2, Number.NaN, Infinity]) {
      let caught: unknown;
      try {
        admitVectorHits(hits(0.5), { ...semantic, minSimilarity });
      } catch (e) {
        caught = e;
      }
      expect(isQuiverError(caught, 'BAD_INPUT')).toBe(true);
      expect((caught as Error).message).toMatch(/^quiver: minSimilarity must be a number in \[-1, 1\], got /);
    }
  });

  it('equals the naive filter (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -1, max: 1 })),
        fc.double({ min: -1, max: 1, noNaN: true }),
        fc.boolean(),
        fc.boolean(),
        (scores, minSimilarity, surface, lexicalMatch) => {
          const input = hits(...scores);
          const want =
            surface && !lexicalMatch ? [] : input.filter((h) => h.score > 0 && h.score >= minSimilarity);
          expect(admitVectorHits(input, { minSimilarity, surface, lexicalMatch })).toEqual(want);
        },
      ),
    );
  });
});
