import { describe, it, expect } from 'vitest';
import { docPrior, docStats, priorRange } from './prior.js';
import { Prng } from './prng.js';
import { isQuiverError } from '../errors.js';

describe('docStats', () => {
  it('sums weighted wins and losses per document, skipping excluded asks and empty doc ids', () => {
    const s = docStats([
      { docId: 'a', askId: 'x', label: 1, weight: 1 },
      { docId: 'a', askId: 'x', label: 0, weight: 0.35 },
      { docId: 'a', askId: 'y', label: 1, weight: 3 },
      { docId: 'b', askId: 'y', label: 0, weight: 3 },
      { docId: '', askId: 'y', label: 1, weight: 3 },
      { docId: null, askId: 'y', label: 1, weight: 3 },
    ]);
    expect(s.get('a')).toEqual({ wins: 4, losses: 0.35 });
    expect(s.get('b')).toEqual({ wins: 0, losses: 3 });
    expect(s.size).toBe(2);
    const oof = docStats(
      [
        { docId: 'a', askId: 'x', label: 1, weight: 1 },
        { docId: 'b', askId: 'y', label: 1, weight: 1 },
      ],
      new Set(['x']),
    );
    expect([...oof.keys()]).toEqual(['b']);
  });

  it('counts a weight of 0 or a missing weight as 1, and a missing label as a loss (reference parity)', () => {
    const s = docStats([
      { docId: 'a', askId: 'x', label: 1, weight: 0 },
      { docId: 'a', askId: 'x', label: null, weight: undefined },
    ]);
    expect(s.get('a')).toEqual({ wins: 1, losses: 1 });
  });
});

describe('docPrior', () => {
  // A9: the worked means table of quality-reference §4 (gamma 0.35, explore 0).
  it.each([
    [1, 0, 1.105932],
    [0, 0.35, 0.94512],
    [3, 0, 1.178805],
    [0, 3, 0.72564],
    [0, 6, 0.615572],
    [10, 0, 1.23633],
    [0, 20, 0.6],
  ])('A9: wins %s, losses %s → %s', (wins, losses, expected) => {
    const m = docPrior(new Map([['d', { wins, losses }]]), { explore: 0 });
    expect(m.get('d')).toBeCloseTo(expected, 6);
  });

  it('leaves documents without feedback out of the map', () => {
    expect(docPrior(new Map(), { explore: 0 }).size).toBe(0);
  });

  it('gamma 0 gives 1 everywhere', () => {
    const m = docPrior(new Map([['d', { wins: 0, losses: 50 }]]), { explore: 0, gamma: 0 });
    expect(m.get('d')).toBe(1);
  });

  it('never exceeds 2^gamma with the defaults, so hi never binds', () => {
    expect(priorRange()[1]).toBeCloseTo(2 ** 0.35, 12);
    expect(priorRange()[1]).toBeCloseTo(1.2746, 4);
    const m = docPrior(new Map([['d', { wins: 1e6, losses: 0 }]]), { explore: 0 });
    expect(m.get('d')!).toBeLessThan(1.2746);
    expect(priorRange(1, 0.6, 1.6)).toEqual([0.6, 1.6]);
  });

  it('Thompson draws are repeatable with the same seed and stay in range', () => {
    const stats = new Map([
      ['a', { wins: 1, losses: 0 }],
      ['b', { wins: 0, losses: 2 }],
    ]);
    const m1 = docPrior(stats, { rng: new Prng(9) });
    const m2 = docPrior(stats, { rng: new Prng(9) });
    expect([...m1]).toEqual([...m2]);
    for (const v of m1.values()) expect(v >= 0.6 && v <= 2 ** 0.35).toBe(true);
    // a draw differs from the mean for at least one of a few seeds
    const mean = docPrior(stats, { explore: 0 }).get('a');
    const draws = [1, 2, 3].map((s) => docPrior(stats, { rng: new Prng(s) }).get('a'));
    expect(draws.some((d) => d !== mean)).toBe(true);
  });

  it('refuses unseeded exploration and bad options', () => {
    const stats = new Map([['a', { wins: 1, losses: 0 }]]);
    for (const opts of [{}, { explore: 1.5 }, { explore: 0, gamma: -1 }, { explore: 0, lo: 2, hi: 1 }]) {
      try {
        docPrior(stats, opts);
        expect.unreachable();
      } catch (e) {
        expect(isQuiverError(e, 'BAD_INPUT')).toBe(true);
      }
    }
  });
});
