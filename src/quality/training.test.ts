import { describe, it, expect } from 'vitest';
import { trainingData } from './training.js';
import type { TrainingRow } from './training.js';
import { Ranker } from './ranker.js';

const row = (
  askId: string,
  docId: string,
  label: number,
  weight: number,
  question = 'q ' + askId,
): TrainingRow => ({
  askId,
  question,
  docId,
  sectionId: `${docId}#1`,
  label,
  weight,
  score: 0.1,
});

const ctx = {
  hitFor: (r: TrainingRow) => ({ text: `text of ${r.docId}` }),
  idf: new Map<string, number>(),
  docInfo: new Map(),
  noiseZ: new Map(),
  nowMs: 0,
};
const PRIOR = 7; // column of `prior`

describe('trainingData', () => {
  it('keeps groups with ≥ 2 rows and both labels, in order of first appearance', () => {
    const rows = [
      row('a', 'd1', 1, 1),
      row('lone', 'd1', 1, 3),
      row('a', 'd2', 0, 0.35),
      row('same', 'd1', 1, 1),
      row('same', 'd2', 1, 1),
      row('b', 'd2', 1, 3),
      row('b', 'd3', 0, 3),
    ];
    const t = trainingData(rows, ctx);
    expect(t.groups).toEqual(['a', 'a', 'b', 'b']);
    expect(t.y).toEqual([1, 0, 1, 0]);
    expect(t.weights).toEqual([1, 0.35, 3, 3]);
    expect(t.X.every((r) => r.length === 21)).toBe(true);
    expect(t.X.map((r) => r[1])).toEqual([1, 0.5, 1, 0.5]); // rank from group order
  });

  it('computes the prior out of fold: a group never sees its own rows', () => {
    // d1 is cited only in group 'a': its prior inside 'a' must be 1 (no other evidence),
    // but inside 'b' it reflects the win from 'a'.
    const rows = [row('a', 'd1', 1, 3), row('a', 'd2', 0, 3), row('b', 'd1', 1, 1), row('b', 'd2', 0, 1)];
    const t = trainingData(rows, ctx);
    const a = t.X.slice(0, 2).map((r) => r[PRIOR]);
    const b = t.X.slice(2).map((r) => r[PRIOR]);
    // inside 'a' the evidence is b's: d1 one cite (1,0) → 1.105932
    expect(a[0]).toBeCloseTo(1.105932, 5);
    expect(a[0]).not.toBeCloseTo(1.178805, 3); // what an in-fold up would have given
    // inside 'b' the evidence is a's: d1 one up (3,0) → 1.178805
    expect(b[0]).toBeCloseTo(1.178805, 5);
  });

  it('respects minGroup and returns empty arrays when nothing is usable', () => {
    const rows = [row('a', 'd1', 1, 1), row('a', 'd2', 0, 1)];
    expect(trainingData(rows, { ...ctx, minGroup: 3 }).X).toEqual([]);
    const empty = trainingData([], ctx);
    expect(empty).toMatchObject({ X: [], groups: [], y: [], weights: [] });
    expect(empty.names.length).toBe(21);
  });

  it('feeds Ranker.fit end to end', () => {
    const rows: TrainingRow[] = [];
    for (let g = 0; g < 6; g++) {
      rows.push({ ...row(`g${g}`, 'good', 1, 1), score: 0.2 });
      rows.push({ ...row(`g${g}`, 'bad', 0, 0.35), score: 0.3 });
    }
    const t = trainingData(rows, {
      ...ctx,
      hitFor: (r) => ({ text: r.docId === 'good' ? 'long '.repeat(50) : 'x' }),
    });
    const r = Ranker.fit({ names: t.names, X: t.X, groups: t.groups, y: t.y, weights: t.weights });
    const s = r.score(t.X);
    expect(s[0]!).toBeGreaterThan(s[1]!);
  });
});
