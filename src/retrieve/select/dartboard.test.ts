import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isQuiverError } from '../../errors.js';
import { dartboard, DEFAULT_DARTBOARD, lognorm, MIN_SIGMA } from './dartboard.js';
import { topk } from './topk.js';

interface Case {
  n: number;
  k: number;
  sigma: number;
  diversity_weight: number;
  relevance_weight: number;
  query: number[];
  candidates: number[][];
  expected_selected: number[];
  expected_step_scores: (number | null)[];
}

/** The fixture ships in the shared design folder; a copy in test/fixtures wins when present. */
function loadFixture(): { cases: Case[] } {
  const local = fileURLToPath(new URL('../../../test/fixtures/dartboard_reference.json', import.meta.url));
  // Else the shared fixtures beside the project (../shared/fixtures, as in CI).
  const shared = fileURLToPath(
    new URL('../../../../shared/fixtures/dartboard_reference.json', import.meta.url),
  );
  const path = existsSync(local) ? local : shared;
  return JSON.parse(readFileSync(path, 'utf8')) as { cases: Case[] };
}

/** Unit vector along axis `i` of `dim`, rotated toward axis 0 by angle θ (cos θ with e0). */
function offAxis(dim: number, i: number, cos: number): number[] {
  const v = new Array<number>(dim).fill(0);
  v[0] = cos;
  v[i] = Math.sqrt(1 - cos * cos);
  return v;
}

describe('dartboard: parity with the numpy/scipy reference', () => {
  const { cases } = loadFixture();
  it('has the 13 cases', () => expect(cases).toHaveLength(13));
  cases.forEach((c, n) => {
    it(`case ${n}: N=${c.n} k=${c.k} σ=${c.sigma} wd=${c.diversity_weight} wr=${c.relevance_weight}`, () => {
      const picks = dartboard(
        {
          query: Float32Array.from(c.query),
          candidates: c.candidates.map((v) => Float32Array.from(v)),
          k: c.k,
        },
        { sigma: c.sigma, diversityWeight: c.diversity_weight, relevanceWeight: c.relevance_weight },
      );
      expect(picks.map((p) => p.index)).toEqual(c.expected_selected);
      c.expected_step_scores.forEach((want, i) => {
        const got = picks[i]!.stepScore;
        if (want === null) expect(got).toBeNull();
        else expect(Math.abs(got! - want) / Math.max(1, Math.abs(want))).toBeLessThan(1e-9);
      });
    });
  });
});

/** The seed's code transcribed naively (float64, row-max logsumexp, argmax over scores). */
function naive(q: number[], cs: number[][], k: number, sigma: number, wd: number, wr: number) {
  const unit = (v: number[]) => {
    const n = Math.hypot(...v);
    return v.map((x) => (n === 0 ? 0 : x / n));
  };
  const dotp = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);
  const qu = unit(q);
  const us = cs.map(unit);
  const Q = us.map((u) => lognorm(1 - dotp(qu, u), sigma));
  const P = us.map((a) => us.map((b) => lognorm(1 - dotp(a, b), sigma)));
  const first = Q.indexOf(Math.max(...Q));
  const sel = [first];
  let cover = P[first]!;
  let minGap = Infinity;
  /** Picks made before the first step whose gap to a different vector is ≤ 1e-9 (copies tie exactly). */
  let clearPicks = Infinity;
  const stepScores: (number | null)[] = [null];
  while (sel.length < Math.min(k, cs.length)) {
    const scores = P.map((row, i) => {
      if (sel.includes(i)) return -Infinity;
      const t = row.map((p, j) => wd * Math.max(cover[j]!, p) + wr * Q[j]!);
      const m = Math.max(...t);
      return m + Math.log(t.reduce((s, x) => s + Math.exp(x - m), 0));
    });
    const best = scores.indexOf(Math.max(...scores));
    const rest = scores.filter((_, i) => i !== best);
    if (rest.some((x) => x > -Infinity)) minGap = Math.min(minGap, scores[best]! - Math.max(...rest));
    const same = (i: number) => cs[i]!.every((v, t) => v === cs[best]![t]);
    const others = scores.filter((_, i) => !same(i));
    if (others.some((x) => x > -Infinity) && scores[best]! - Math.max(...others) <= 1e-9) {
      clearPicks = Math.min(clearPicks, sel.length);
    }
    stepScores.push(scores[best]!);
    sel.push(best);
    cover = cover.map((c, j) => Math.max(c, P[best]![j]!));
  }
  return { sel, minGap, clearPicks, stepScores };
}

describe('dartboard: against a naive transcription', () => {
  it('picks the same on random inputs whenever the naive gaps are clear (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 0, max: 14 }),
        fc.constantFrom(0.05, 0.1, 0.3, 1),
        fc.constantFrom(0, 0.5, 1, 2),
        fc.constantFrom(0, 0.5, 1, 2),
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        (n, dim, k, sigma, wd, wr, seed) => {
          let x = seed;
          const rnd = () => ((x = (x * 48271) % 2147483647) / 2147483647) * 2 - 1;
          const q = Array.from({ length: dim }, rnd);
          const cs = Array.from({ length: n }, () => Array.from({ length: dim }, rnd));
          const want = naive(q, cs, k, sigma, wd, wr);
          const got = dartboard(
            { query: q, candidates: cs, k },
            { sigma, diversityWeight: wd, relevanceWeight: wr },
          );
          if (want.minGap > 1e-9) expect(got.map((p) => p.index)).toEqual(want.sel.slice(0, Math.min(k, n)));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('lazy greedy: same picks and step scores on larger pools with duplicates (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 20, max: 60 }),
        fc.integer({ min: 2, max: 12 }),
        fc.integer({ min: 2, max: 25 }),
        fc.constantFrom(0.1, 0.3, 1),
        fc.constantFrom(0.5, 1, 2),
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        (n, dim, k, sigma, wd, seed) => {
          let x = seed;
          const rnd = () => ((x = (x * 48271) % 2147483647) / 2147483647) * 2 - 1;
          const q = Array.from({ length: dim }, rnd);
          const cs: number[][] = [];
          // About a third are exact copies of an earlier candidate, so gains tie exactly.
          for (let i = 0; i < n; i++) {
            cs.push(
              i > 0 && rnd() < -0.33
                ? cs[Math.floor(((rnd() + 1) / 2) * i)]!
                : Array.from({ length: dim }, rnd),
            );
          }
          const want = naive(q, cs, k, sigma, wd, 1);
          const got = dartboard({ query: q, candidates: cs, k }, { sigma, diversityWeight: wd });
          expect(got).toHaveLength(want.sel.length);
          // Up to the first near-tie between different vectors, the picks must agree exactly.
          const clear = Math.min(want.clearPicks, got.length);
          expect(got.slice(0, clear).map((p) => p.index)).toEqual(want.sel.slice(0, clear));
          got.slice(0, clear).forEach((p, i) => {
            const w = want.stepScores[i]!;
            if (w === null) expect(p.stepScore).toBeNull();
            else expect(Math.abs(p.stepScore! - w) / Math.max(1, Math.abs(w))).toBeLessThan(1e-9);
          });
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('dartboard: behaviour', () => {
  // The seed's duplicate corpus: five copies of "greenhouse gases cause warming" very close to the
  // query, four distinct causes moderately close, in different directions.
  const dim = 8;
  const query = offAxis(dim, 7, 1);
  const greenhouse = offAxis(dim, 1, 0.95);
  const causes = [2, 3, 4, 5].map((axis, i) => offAxis(dim, axis, 0.85 - 0.02 * i));
  const candidates = [
    greenhouse,
    causes[0]!,
    greenhouse,
    causes[1]!,
    greenhouse,
    causes[2]!,
    greenhouse,
    causes[3]!,
    greenhouse,
  ];
  const copies = new Set([0, 2, 4, 6, 8]);
  const unique = (idx: number[]) => new Set(idx.map((i) => (copies.has(i) ? 'greenhouse' : i))).size;

  it('duplicates: top-5 gives 1 unique vector, Dartboard gives 5', () => {
    const top = topk({ query, candidates, k: 5 }).map((p) => p.index);
    expect(top).toEqual([0, 2, 4, 6, 8]);
    expect(unique(top)).toBe(1);
    const picked = dartboard({ query, candidates, k: 5 }).map((p) => p.index);
    expect(picked).toEqual([0, 1, 3, 5, 7]); // one copy, then the causes by relevance
    expect(unique(picked)).toBe(5);
  });

  it('σ → 0 (1e-9, clamped to 1e-5) behaves like top-k on spread candidates', () => {
    // Relevance order 3, 0, 4, 1, 2 — not index order, so a tie-to-lowest-index would show.
    const cosines = [0.9, 0.7, 0.6, 0.95, 0.8];
    const cands = cosines.map((c, i) => offAxis(dim, i + 1, c));
    const picks = dartboard({ query, candidates: cands, k: 5 }, { sigma: 1e-9 });
    expect(picks.map((p) => p.index)).toEqual([3, 0, 4, 1, 2]);
    expect(picks.map((p) => p.index)).toEqual(topk({ query, candidates: cands, k: 5 }).map((p) => p.index));
    const clamped = dartboard({ query, candidates: cands, k: 5 }, { sigma: MIN_SIGMA });
    expect(clamped).toEqual(picks);
  });

  it('diversityWeight 0: every remaining candidate ties, so picks after the first follow index order', () => {
    const cosines = [0.9, 0.7, 0.6, 0.95, 0.8];
    const cands = cosines.map((c, i) => offAxis(dim, i + 1, c));
    const picks = dartboard({ query, candidates: cands, k: 5 }, { diversityWeight: 0 });
    expect(picks.map((p) => p.index)).toEqual([3, 0, 1, 2, 4]);
    // All step scores equal logsumexp_j(Q_j): the score no longer depends on the candidate.
    const s = picks[1]!.stepScore!;
    for (const p of picks.slice(2)) expect(p.stepScore).toBeCloseTo(s, 12);
  });

  it('ties go to the lowest index (first pick and later picks)', () => {
    const v = offAxis(dim, 1, 0.9);
    const w = offAxis(dim, 2, 0.9);
    const picks = dartboard({ query, candidates: [v, w, v, w], k: 4 });
    expect(picks.map((p) => p.index)).toEqual([0, 1, 2, 3]);
    // Five copies of each: whatever position a copy has, its entries are bit-identical.
    const many = dartboard({ query, candidates: [w, v, w, v, w, v, w, v, w, v], k: 10 }).map((p) => p.index);
    expect(many).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('k ≥ N returns all N; k ≤ 0 and no candidates return []', () => {
    expect(
      dartboard({ query, candidates, k: 50 })
        .map((p) => p.index)
        .sort(),
    ).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(dartboard({ query, candidates, k: Infinity })).toHaveLength(9);
    expect(dartboard({ query, candidates, k: 0 })).toEqual([]);
    expect(dartboard({ query, candidates, k: -3 })).toEqual([]);
    expect(dartboard({ query, candidates: [], k: 5 })).toEqual([]);
  });

  it('k = 1 returns the most relevant candidate alone', () => {
    expect(dartboard({ query, candidates: [causes[0]!, greenhouse, causes[1]!], k: 1 })).toEqual([
      { index: 1, stepScore: null },
    ]);
  });

  it('the first pick has no step score; later step scores match a direct logsumexp', () => {
    const picks = dartboard({ query, candidates: [greenhouse, causes[0]!], k: 2 });
    expect(picks[0]).toEqual({ index: 0, stepScore: null });
    // By hand: d = 1 − cos, Q = lognorm(dq), P = lognorm(D), cover = P[0]; score = logsumexp(max(cover, P[1]) + Q).
    const ln = (d: number) => lognorm(d, 0.1);
    const c01 = 0.95 * 0.85;
    const Q = [ln(0.05), ln(0.15)];
    const U = [Math.max(ln(0), ln(1 - c01)), Math.max(ln(1 - c01), ln(0))];
    const terms = U.map((u, j) => u + Q[j]!);
    const m = Math.max(...terms);
    expect(picks[1]!.stepScore).toBeCloseTo(m + Math.log(terms.reduce((a, t) => a + Math.exp(t - m), 0)), 10);
  });

  it('zero vectors sit at distance 1 from everything, the query included', () => {
    const zero = new Array<number>(dim).fill(0);
    // A zero candidate has Q = lognorm(1): it is picked after everything with cos(q, c) > 0.
    const picks = dartboard({ query, candidates: [zero, greenhouse, causes[0]!], k: 3 }).map((p) => p.index);
    expect(picks[0]).toBe(1);
    expect(picks).toContain(0);
    // A zero query: every Q is equal, the first pick is index 0, and nothing throws.
    const z = dartboard({ query: zero, candidates: [greenhouse, causes[0]!, zero], k: 3 });
    expect(z.map((p) => p.index).sort()).toEqual([0, 1, 2]);
    expect(z[0]!.index).toBe(0);
    for (const p of z.slice(1)) expect(Number.isFinite(p.stepScore)).toBe(true);
  });

  it("distance 'paper' halves the distance (same picks as 'seed' with σ halved)", () => {
    const a = dartboard({ query, candidates, k: 5 }, { distance: 'paper', sigma: 0.05 }).map((p) => p.index);
    const b = dartboard({ query, candidates, k: 5 }, { distance: 'seed', sigma: 0.1 }).map((p) => p.index);
    expect(a).toEqual(b);
  });

  it("relevance 'scores': Q is the log-softmax of external scores; coverage still from vectors", () => {
    // Scores put candidate 1 first although the vectors favour 0.
    const cands = [greenhouse, causes[0]!, greenhouse, causes[1]!];
    const relevance = [0.2, 0.9, 0.8, 0.5];
    const picks = dartboard({ query, candidates: cands, relevance, k: 3 }, { relevance: 'scores' }).map(
      (p) => p.index,
    );
    expect(picks[0]).toBe(1);
    expect(picks).toContain(0 as number); // one greenhouse copy …
    expect(picks.filter((i) => i === 0 || i === 2)).toHaveLength(1); // … but not both
    expect(() => dartboard({ query, candidates: cands, k: 3 }, { relevance: 'scores' })).toThrow(
      /input.relevance/,
    );
  });

  it("relevance 'scores' with scoreScale 'raw': hand-computed step score", () => {
    const cands = [greenhouse, causes[0]!];
    const picks = dartboard(
      { query, candidates: cands, relevance: [1, 0], k: 2 },
      { relevance: 'scores', scoreScale: 'raw', temperature: 0.5 },
    );
    const lse = Math.log(Math.exp(2) + Math.exp(0));
    const Q = [2 - lse, 0 - lse];
    const ln = (d: number) => lognorm(d, 0.1);
    const D = 1 - 0.95 * 0.85;
    const terms = [Math.max(ln(0), ln(D)) + Q[0]!, Math.max(ln(D), ln(0)) + Q[1]!];
    const m = Math.max(...terms);
    expect(picks.map((p) => p.index)).toEqual([0, 1]);
    expect(picks[1]!.stepScore).toBeCloseTo(
      m + Math.log(Math.exp(terms[0]! - m) + Math.exp(terms[1]! - m)),
      10,
    );
  });

  it('is not moved by a uniform shift of the scores under minmax scaling', () => {
    const cands = [greenhouse, causes[0]!, causes[1]!, causes[2]!];
    const rel = [0.3, 0.1, 0.7, 0.2];
    const a = dartboard({ query, candidates: cands, relevance: rel, k: 4 }, { relevance: 'scores' });
    const b = dartboard(
      { query, candidates: cands, relevance: rel.map((r) => r * 10 + 5), k: 4 },
      { relevance: 'scores' },
    );
    expect(b.map((p) => p.index)).toEqual(a.map((p) => p.index));
  });

  it('rejects bad options and inputs with BAD_INPUT', () => {
    const bad: [Parameters<typeof dartboard>[0], Parameters<typeof dartboard>[1]][] = [
      [{ query, candidates, k: 3 }, { sigma: 0 }],
      [{ query, candidates, k: 3 }, { sigma: NaN }],
      [{ query, candidates, k: 3 }, { sigma: Infinity }],
      [{ query, candidates, k: 3 }, { diversityWeight: -1 }],
      [{ query, candidates, k: 3 }, { relevanceWeight: Infinity }],
      [
        { query, candidates, relevance: [1, 2, 3, 4, 5, 6, 7, 8, 9], k: 3 },
        { relevance: 'scores', temperature: 0 },
      ],
      [{ query, candidates, k: NaN }, {}],
      [{ query, candidates, k: 2.5 }, {}],
      [{ query, candidates: [[1, 2]], k: 1 }, {}],
      [{ query, candidates, relevance: [1], k: 3 }, {}],
    ];
    for (const [input, options] of bad) {
      try {
        dartboard(input, options);
        expect.unreachable(JSON.stringify(options));
      } catch (e) {
        expect(isQuiverError(e, 'BAD_INPUT'), String(e)).toBe(true);
      }
    }
  });

  it('exports its defaults', () => {
    expect(DEFAULT_DARTBOARD).toEqual({
      sigma: 0.1,
      diversityWeight: 1,
      relevanceWeight: 1,
      distance: 'seed',
      relevance: 'cosine',
      temperature: 0.1,
      scoreScale: 'minmax',
    });
  });
});
