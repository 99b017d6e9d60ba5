import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isQuiverError } from '../errors.js';
import {
  auc,
  mrrAtK,
  ndcgAtK,
  ndcgAtKRetrievedIdeal,
  noiseAtK,
  normalizeResultText,
  precisionAtK,
  recallAtK,
  relevantIds,
  uniqueResultsAtK,
} from './retrieval-metrics.js';

/** Ids r0, r1, … for a list of 0/1 relevance flags, and the set of relevant ones. */
function fromFlags(flags: number[]): { ranked: string[]; relevant: Set<string> } {
  const ranked = flags.map((_, i) => `r${i}`);
  return { ranked, relevant: new Set(ranked.filter((_, i) => flags[i] === 1)) };
}

describe('Appendix A7 of quality-reference.md', () => {
  it('auc([.1,.4,.4,.8,.2],[0,1,0,1,0]) = 0.916667', () => {
    expect(auc([0.1, 0.4, 0.4, 0.8, 0.2], [0, 1, 0, 1, 0])).toBeCloseTo(0.916667, 6);
  });
  it('a constant score gives 0.5 and a single class gives NaN', () => {
    expect(auc([3, 3, 3, 3], [1, 0, 0, 1])).toBe(0.5);
    expect(auc([0.1, 0.2], [1, 1])).toBeNaN();
    expect(auc([0.1, 0.2], [false, false])).toBeNaN();
    expect(auc([], [])).toBeNaN();
  });
  // The reference's ndcg: binary gains, ideal order = the retrieved list re-sorted.
  it('ndcg([0,1,0,0]) = 0.630930 and ndcg([1,0,1,0]) = 0.919721 (retrieved-ideal variant)', () => {
    expect(ndcgAtKRetrievedIdeal([0, 1, 0, 0], 10)).toBeCloseTo(0.63093, 6);
    expect(ndcgAtKRetrievedIdeal([1, 0, 1, 0], 10)).toBeCloseTo(0.919721, 6);
    expect(ndcgAtKRetrievedIdeal([0, 0, 0], 10)).toBe(0);
  });
  it('the same numbers from ndcgAtK when the judged relevant items are exactly the retrieved ones', () => {
    const a = fromFlags([0, 1, 0, 0]);
    expect(ndcgAtK(a.ranked, { r1: 1 }, 10)).toBeCloseTo(0.63093, 6);
    expect(ndcgAtK(fromFlags([1, 0, 1, 0]).ranked, { r0: 1, r2: 1 }, 10)).toBeCloseTo(0.919721, 6);
  });
  it('mrr([0,0,1]) = 1/3 and recall([1,0,1], n_rel=4) = 0.5', () => {
    const m = fromFlags([0, 0, 1]);
    expect(mrrAtK(m.ranked, m.relevant, 10)).toBeCloseTo(1 / 3, 12);
    const r = fromFlags([1, 0, 1]);
    expect(recallAtK(r.ranked, new Set([...r.relevant, 'unretrieved1', 'unretrieved2']), 10)).toBe(0.5);
  });
});

describe('ndcgAtK', () => {
  const gains = { a: 3, b: 2, c: 1, d: 0 };
  it('graded, hand computed: (1 + 3/2) / (3 + 2/log2 3 + 1/2) = 0.525005', () => {
    expect(ndcgAtK(['c', 'x', 'a'], gains, 3)).toBeCloseTo(0.525005, 6);
  });
  it('the ideal comes from all judged relevant items, not only the retrieved ones', () => {
    // Only b retrieved at rank 2; the ideal still has a then b.
    expect(ndcgAtK(['x', 'b'], gains, 2)).toBeCloseTo(0.296082, 6);
    expect(ndcgAtKRetrievedIdeal([0, 2], 2)).toBeCloseTo(2 / Math.log2(3) / 2, 12);
  });
  it('is 1 for the ideal ranking and null without relevant items or at k = 0', () => {
    expect(ndcgAtK(['a', 'b', 'c'], gains, 3)).toBe(1);
    expect(ndcgAtK(['a', 'b'], { a: 0 }, 3)).toBeNull();
    expect(ndcgAtK(['a'], {}, 3)).toBeNull();
    expect(ndcgAtK(['a'], gains, 0)).toBeNull();
  });
  it('an id repeated in the ranking earns once', () => {
    expect(ndcgAtK(['a', 'a'], { a: 1, b: 1 }, 2)).toBeCloseTo(1 / (1 + 1 / Math.log2(3)), 12);
  });
  it('an empty ranking scores 0 when relevant items exist', () => {
    expect(ndcgAtK([], gains, 5)).toBe(0);
  });
});

describe('recall, precision, mrr', () => {
  const ranked = ['a', 'x', 'b', 'a', 'y'];
  const rel = new Set(['a', 'b', 'c']);
  it('hand computed', () => {
    expect(recallAtK(ranked, rel, 1)).toBeCloseTo(1 / 3, 12);
    expect(recallAtK(ranked, rel, 5)).toBeCloseTo(2 / 3, 12); // the second 'a' counts once
    expect(precisionAtK(ranked, rel, 4)).toBe(0.5);
    expect(precisionAtK(ranked, rel, 10)).toBe(0.2); // a short list is padded with misses
    expect(mrrAtK(ranked, rel, 5)).toBe(1);
    expect(mrrAtK(['x', 'y', 'b'], rel, 2)).toBe(0);
    expect(mrrAtK(['x', 'y', 'b'], [...rel], 3)).toBeCloseTo(1 / 3, 12);
  });
  it('k = 0 and empty lists', () => {
    expect(recallAtK(ranked, rel, 0)).toBe(0);
    expect(precisionAtK(ranked, rel, 0)).toBeNull();
    expect(mrrAtK(ranked, rel, 0)).toBe(0);
    expect(recallAtK([], rel, 5)).toBe(0);
    expect(precisionAtK([], rel, 5)).toBe(0);
  });
  it('no relevant items → null for recall and mrr', () => {
    expect(recallAtK(ranked, new Set(), 5)).toBeNull();
    expect(mrrAtK(ranked, [], 5)).toBeNull();
    expect(relevantIds({ a: 2, b: 0, c: -1 })).toEqual(new Set(['a']));
  });
  it('a bad k throws BAD_INPUT', () => {
    for (const k of [-1, 1.5, Number.NaN]) {
      let err: unknown;
      try {
        recallAtK(ranked, rel, k);
      } catch (e) {
        err = e;
      }
      expect(isQuiverError(err, 'BAD_INPUT')).toBe(true);
    }
  });
});

describe('uniqueResultsAtK / noiseAtK', () => {
  it('counts distinct texts after folding, punctuation removal and whitespace collapse', () => {
    const texts = ['Hello, World!', 'hello   world', 'Héllo world.', 'Other text', 'x'];
    expect(normalizeResultText(' Héllo,\n World! ')).toBe('hello world');
    expect(uniqueResultsAtK(texts, 4)).toBe(0.5);
    expect(uniqueResultsAtK(texts, 2)).toBe(0.5);
  });
  it('divides by min(k, returned); nothing returned → null', () => {
    expect(uniqueResultsAtK(['a', 'b'], 10)).toBe(1);
    expect(uniqueResultsAtK([], 10)).toBeNull();
    expect(uniqueResultsAtK(['a'], 0)).toBeNull();
  });
  it('noise: share of returned hits from noisy documents', () => {
    const noisy = new Set(['n1', 'n2']);
    expect(noiseAtK(['d1', 'n1', 'n1', 'd2'], noisy, 10)).toBe(0.5);
    expect(noiseAtK(['n2', 'd1', 'n1', 'd2'], noisy, 2)).toBe(0.5);
    expect(noiseAtK([], noisy, 10)).toBeNull();
  });
});

describe('auc', () => {
  it('perfect, inverted and tied rankings', () => {
    expect(auc([1, 2, 3, 4], [0, 0, 1, 1])).toBe(1);
    expect(auc([4, 3, 2, 1], [0, 0, 1, 1])).toBe(0);
    expect(auc([1, 2, 2, 3], [false, true, false, true])).toBe(0.875);
  });
  it('rejects mismatched lengths and NaN scores', () => {
    expect(() => auc([1], [1, 0])).toThrow(/same length/);
    expect(() => auc([Number.NaN, 1], [1, 0])).toThrow(/NaN/);
  });
  it('property: equals the pair-counting definition', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 5 }), fc.boolean()), { maxLength: 30 }),
        (rows) => {
          const scores = rows.map((r) => r[0]);
          const labels = rows.map((r) => r[1]);
          let wins = 0;
          let pairs = 0;
          rows.forEach(([sp, lp]) => {
            if (!lp) return;
            rows.forEach(([sn, ln]) => {
              if (ln) return;
              pairs++;
              wins += sp > sn ? 1 : sp === sn ? 0.5 : 0;
            });
          });
          const got = auc(scores, labels);
          return pairs === 0 ? Number.isNaN(got) : Math.abs(got - wins / pairs) < 1e-12;
        },
      ),
    );
  });
});

describe('invariants (fast-check)', () => {
  const id = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g');
  const ranking = fc.array(id, { maxLength: 12 });
  const gradeMap = fc.dictionary(id, fc.integer({ min: 0, max: 3 }));
  const k = fc.integer({ min: 0, max: 15 });
  const inUnit = (x: number | null): boolean => x === null || (x >= 0 && x <= 1 + 1e-12);

  it('every metric is in [0, 1] or null', () => {
    fc.assert(
      fc.property(ranking, gradeMap, k, (r, g, kk) => {
        const rel = relevantIds(g);
        return (
          inUnit(ndcgAtK(r, g, kk)) &&
          inUnit(recallAtK(r, rel, kk)) &&
          inUnit(precisionAtK(r, rel, kk)) &&
          inUnit(mrrAtK(r, rel, kk)) &&
          inUnit(uniqueResultsAtK(r, kk)) &&
          inUnit(noiseAtK(r, rel, kk)) &&
          inUnit(
            ndcgAtKRetrievedIdeal(
              r.map((x) => g[x] ?? 0),
              kk,
            ),
          )
        );
      }),
    );
  });

  it('recall is monotone non-decreasing in k', () => {
    fc.assert(
      fc.property(ranking, gradeMap, k, (r, g, kk) => {
        const rel = relevantIds(g);
        const a = recallAtK(r, rel, kk);
        const b = recallAtK(r, rel, kk + 1);
        return a === null ? b === null : b !== null && b >= a;
      }),
    );
  });

  it('nDCG is 1 for the ideal ranking (all relevant items by grade) at every k ≥ 1', () => {
    fc.assert(
      fc.property(gradeMap, fc.integer({ min: 1, max: 10 }), (g, kk) => {
        const ideal = Object.keys(g)
          .filter((x) => (g[x] ?? 0) > 0)
          .sort((x, y) => (g[y] ?? 0) - (g[x] ?? 0));
        const v = ndcgAtK(ideal, g, kk);
        return ideal.length === 0 ? v === null : Math.abs(v! - 1) < 1e-12;
      }),
    );
  });
});
