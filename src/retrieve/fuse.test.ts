import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isQuiverError } from '../errors.js';
import { DEFAULT_LEG_FETCH, DEFAULT_RRF_K, rrf, type RrfLeg } from './fuse.js';

const leg = <K>(name: string, keys: K[], weight = 1): RrfLeg<K> => ({
  name,
  weight,
  hits: keys.map((key) => ({ key })),
});

describe('rrf', () => {
  it('hand-computed two-leg case (k = 60, 0-based ranks)', () => {
    const out = rrf([leg('lexical', ['a', 'b', 'c']), leg('vector', ['b', 'd'])]);
    expect(out.map((r) => r.key)).toEqual(['b', 'a', 'd', 'c']);
    expect(out[0]!.score).toBeCloseTo(1 / 61 + 1 / 60, 15); // b: rank 1 lexical, rank 0 vector
    expect(out[1]!.score).toBeCloseTo(1 / 60, 15); // a: rank 0 lexical
    expect(out[2]!.score).toBeCloseTo(1 / 61, 15); // d: rank 1 vector
    expect(out[3]!.score).toBeCloseTo(1 / 62, 15); // c: rank 2 lexical
    expect(out[0]!.ranks).toEqual({ lexical: 1, vector: 0 });
    expect(out[3]!.ranks).toEqual({ lexical: 2, vector: null });
  });

  it('weights scale each leg and k is configurable', () => {
    const out = rrf([leg('lexical', ['a'], 2), leg('vector', ['b'], 0.5)], 10);
    expect(out.map((r) => [r.key, r.score])).toEqual([
      ['a', 2 / 10],
      ['b', 0.5 / 10],
    ]);
  });

  it('ties: best single rank first, then first appearance', () => {
    // p (0 in L, 1 in V) and q (1 in L, 0 in V) have the same score and the same best rank.
    const out = rrf([leg('L', ['p', 'q', 'r']), leg('V', ['q', 'p', 's'])]);
    expect(out.map((r) => r.key)).toEqual(['p', 'q', 'r', 's']); // p, q tie on score and best rank: first appearance
    const byBest = rrf([leg('L', ['m', 'a']), leg('V', ['b'])], 1);
    // a: 1/(1+1) = 0.5, b: 1/(1+0) = 1, m: 1
    expect(byBest.map((r) => r.key)).toEqual(['m', 'b', 'a']);
  });

  it('a weight of 0 keeps the leg in ranks but adds nothing', () => {
    const out = rrf([leg('lexical', ['a', 'b']), leg('vector', ['b', 'z'], 0)]);
    expect(out.map((r) => [r.key, r.score])).toEqual([
      ['a', 1 / 60],
      ['b', 1 / 61],
      ['z', 0],
    ]);
    expect(out[1]!.ranks).toEqual({ lexical: 1, vector: 0 });
  });

  it('empty legs and no legs give []', () => {
    expect(rrf([])).toEqual([]);
    expect(rrf([leg('a', []), leg('b', [])])).toEqual([]);
  });

  it('a duplicate key within a leg counts at its first rank only', () => {
    const out = rrf([leg('L', ['a', 'b', 'a'])]);
    expect(out).toEqual([
      { key: 'a', score: 1 / 60, ranks: { L: 0 } },
      { key: 'b', score: 1 / 61, ranks: { L: 1 } },
    ]);
  });

  it('is generic over the key type (numbers, objects by identity)', () => {
    const o1 = { id: 1 };
    const o2 = { id: 1 };
    const out = rrf([leg('L', [o1, o2]), leg('V', [o2])]);
    expect(out[0]!.key).toBe(o2);
    expect(rrf([leg('L', [3, 1, 2])]).map((r) => r.key)).toEqual([3, 1, 2]);
  });

  it('rejects k ≤ 0, NaN, negative weights and duplicate leg names', () => {
    for (const bad of [-1, 0, NaN, Infinity]) {
      expect(() => rrf([leg('L', ['a'])], bad)).toThrow(/k must be/);
    }
    try {
      rrf([leg('L', ['a'], -1)]);
      expect.unreachable();
    } catch (e) {
      expect(isQuiverError(e, 'BAD_INPUT')).toBe(true);
    }
    expect(() => rrf([leg('L', ['a']), leg('L', ['b'])])).toThrow(/unique/);
  });

  it('DEFAULT_LEG_FETCH is max(3 × limit, 30) and DEFAULT_RRF_K is 60', () => {
    expect(DEFAULT_LEG_FETCH(5)).toBe(30);
    expect(DEFAULT_LEG_FETCH(20)).toBe(60);
    expect(DEFAULT_RRF_K).toBe(60);
  });

  const legsArb = fc
    .array(
      fc.tuple(fc.array(fc.integer({ min: 0, max: 15 }), { maxLength: 12 }), fc.constantFrom(0, 0.5, 1, 2)),
      { maxLength: 4 },
    )
    .map((ls) => ls.map(([keys, w], i) => leg(`leg${i}`, keys, w)));

  it('scores are non-negative, sorted, and every key appears once (property)', () => {
    fc.assert(
      fc.property(legsArb, fc.integer({ min: 1, max: 100 }), (legs, k) => {
        const out = rrf(legs, k);
        const keys = new Set(legs.flatMap((l) => l.hits.map((h) => h.key)));
        expect(out.length).toBe(keys.size);
        for (let i = 0; i < out.length; i++) {
          expect(out[i]!.score).toBeGreaterThanOrEqual(0);
          if (i > 0) expect(out[i]!.score).toBeLessThanOrEqual(out[i - 1]!.score);
        }
      }),
    );
  });

  it('does not depend on the order of the legs (property)', () => {
    fc.assert(
      fc.property(legsArb, (legs) => {
        const reversed = [...legs].reverse();
        const a = new Map(rrf(legs).map((r) => [r.key, r] as const));
        const b = rrf(reversed);
        for (const r of b) {
          expect(a.get(r.key)!.score).toBe(r.score); // bit-identical: summed in a canonical order
          expect(a.get(r.key)!.ranks).toEqual(r.ranks);
        }
        expect(b.map((r) => r.score)).toEqual(rrf(legs).map((r) => r.score));
      }),
    );
  });

  it('a key at rank 0 in every weighted leg comes first (property)', () => {
    fc.assert(
      fc.property(legsArb, (legs) => {
        const weighted = legs.map((l) => ({
          ...l,
          weight: l.weight === 0 ? 1 : l.weight,
          hits: [{ key: 99 }, ...l.hits],
        }));
        if (weighted.length === 0) return;
        expect(rrf(weighted)[0]!.key).toBe(99);
      }),
    );
  });
});
