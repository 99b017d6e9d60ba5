import { describe, it, expect } from 'vitest';
import { Ranker, RANKER_FORMAT_VERSION } from './ranker.js';
import { isQuiverError } from '../errors.js';

const X = [
  [1, 0.2],
  [0.5, 0.9],
  [0.1, 0.1],
  [0.9, 0.5],
  [0.2, 0.8],
  [0.3, 0.3],
];
const groups = ['a', 'a', 'a', 'b', 'b', 'b'];
const y = [1, 0, 0, 1, 0, 0];
const weights = [1, 0.35, 0.35, 3, 1, 0.35];
const names = ['f1', 'f2'];

describe('Ranker', () => {
  it('A6: weighted fit with l2 = 1 matches the reference', () => {
    const r = Ranker.fit({ names, X, groups, y, weights, l2: 1 });
    expect(r.fitted).toBe(true);
    expect(r.w![0]).toBeCloseTo(0.329193, 5);
    expect(r.w![1]).toBeCloseTo(-0.113522, 5);
    expect(r.mu[0]).toBeCloseTo(0.5, 6);
    expect(r.mu[1]).toBeCloseTo(0.466667, 6);
    expect(r.sd[0]).toBeCloseTo(0.341565, 6);
    expect(r.sd[1]).toBeCloseTo(0.298142, 6);
    expect(r.meta).toEqual({ nPairs: 4, nRows: 6, nGroups: 2, l2: 1 });
    [0.583427, -0.164998, -0.245898, 0.372819, -0.416055, -0.129295].forEach((v, i) =>
      expect(r.score(X)[i]).toBeCloseTo(v, 5),
    );
  });

  it('A6: unweighted fit with l2 = 0.01 matches the reference', () => {
    const r = Ranker.fit({ names, X, groups, y, l2: 0.01 });
    expect(r.w![0]).toBeCloseTo(2.21895, 4);
    expect(r.w![1]).toBeCloseTo(-0.457512, 5);
  });

  it('no pairs → unfitted, scores 0, still stores mu and sd', () => {
    const r = Ranker.fit({ names, X, groups, y: [0, 0, 0, 0, 0, 0] });
    expect(r.fitted).toBe(false);
    expect(r.score(X)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(r.mu[0]).toBeCloseTo(0.5, 9);
    expect(r.weights()).toEqual([]);
  });

  it('weights() sorts by |w|', () => {
    const r = Ranker.fit({ names, X, groups, y, weights, l2: 1 });
    expect(r.weights().map((e) => e[0])).toEqual(['f1', 'f2']);
  });

  it('pairs only form within a group', () => {
    // every group is single-label: no pair, even though labels differ across groups
    const r = Ranker.fit({ names, X, groups: ['a', 'a', 'a', 'b', 'b', 'b'], y: [1, 1, 1, 0, 0, 0] });
    expect(r.fitted).toBe(false);
  });

  it('samples pairs deterministically above maxPairs', () => {
    const a = Ranker.fit({ names, X, groups, y, weights, maxPairs: 3 });
    const b = Ranker.fit({ names, X, groups, y, weights, maxPairs: 3 });
    expect(a.meta.nPairs).toBe(3);
    expect(a.w).toEqual(b.w);
  });

  it('round-trips through JSON and rejects unknown versions and malformed bodies with SCHEMA', () => {
    const r = Ranker.fit({ names, X, groups, y, weights });
    const json = JSON.parse(JSON.stringify(r.toJSON())) as unknown;
    const back = Ranker.fromJSON(json);
    expect(back.score(X)).toEqual(r.score(X));
    expect(r.toJSON().formatVersion).toBe(RANKER_FORMAT_VERSION);
    for (const bad of [{ ...r.toJSON(), formatVersion: 99 }, { ...r.toJSON(), mu: [1] }, null, 'x']) {
      try {
        Ranker.fromJSON(bad);
        expect.unreachable();
      } catch (e) {
        expect(isQuiverError(e, 'SCHEMA')).toBe(true);
      }
    }
    const unfitted = Ranker.fromJSON(Ranker.fit({ names, X, groups, y: [0, 0, 0, 0, 0, 0] }).toJSON());
    expect(unfitted.fitted).toBe(false);
  });

  it('rejects ragged input and wrong column counts with BAD_INPUT', () => {
    expect(() => Ranker.fit({ names, X, groups: ['a'], y })).toThrow(/ranker fit/);
    const r = Ranker.fit({ names, X, groups, y, weights });
    try {
      r.score([[1, 2, 3]]);
      expect.unreachable();
    } catch (e) {
      expect(isQuiverError(e, 'BAD_INPUT')).toBe(true);
    }
  });
});
