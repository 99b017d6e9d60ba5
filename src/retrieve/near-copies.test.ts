import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  foldNearCopies,
  prefixLength,
  prefixNeed,
  nearCopy,
  nearCopyCounts,
  shingles,
} from './near-copies.js';

const PASSAGE =
  'The espresso shot should run for about twenty eight seconds. A finer grind slows the flow of water through the puck. ' +
  'Dose eighteen grams of coffee into the basket and tamp it level. Preheat the cup so the crema holds its colour longer. ' +
  'Clean the group head after every session to keep old oils from turning bitter.';
const near = (a: string, b: string): boolean => nearCopy(shingles(a), shingles(b));

describe('nearCopy', () => {
  it('holds for the same text and for lightly edited copies', () => {
    expect(near(PASSAGE, PASSAGE)).toBe(true);
    expect(near(PASSAGE, PASSAGE.replace('Preheat the cup so the crema holds its colour longer. ', ''))).toBe(
      true,
    );
    expect(near(PASSAGE, PASSAGE.replace('finer grind', 'grind finer'))).toBe(true);
    expect(near(PASSAGE, PASSAGE.replace('eighteen grams', '19 grams'))).toBe(true);
    expect(near(PASSAGE.toUpperCase(), PASSAGE)).toBe(true);
  });

  it('holds for a short text with one of three sentences dropped (containment 1)', () => {
    const three =
      'Water boils at one hundred degrees at sea level. It boils lower on a mountain. Salt raises the point a little.';
    expect(
      near(three, 'Water boils at one hundred degrees at sea level. It boils lower on a mountain.'),
    ).toBe(true);
  });

  it('does not hold for different passages or for a short quotation inside a long text', () => {
    expect(
      near(PASSAGE, 'Tomatoes need full sun, steady watering and a stake once the first truss sets fruit.'),
    ).toBe(false);
    expect(near('A finer grind slows the flow of water through the puck.', PASSAGE)).toBe(false);
  });

  it('uses single words for texts under three words, and treats empty texts as the same only as each other', () => {
    expect(near('espresso', 'Espresso')).toBe(true);
    expect(near('espresso grind', 'grind espresso')).toBe(true);
    expect(near('espresso grind', 'tamper')).toBe(false);
    expect(near('', '  ')).toBe(true);
    expect(near('', 'espresso')).toBe(false);
    expect(near('!!', 'espresso')).toBe(false);
  });

  it('is symmetric and reflexive', () => {
    const text = fc
      .array(fc.constantFrom('grind', 'shot', 'water', 'puck', 'dose', 'crema', '18', 'the'), {
        maxLength: 30,
      })
      .map((w) => w.join(' '));
    fc.assert(
      fc.property(text, text, (a, b) => {
        expect(near(a, b)).toBe(near(b, a));
        expect(near(a, a)).toBe(true);
      }),
    );
  });
});

describe('foldNearCopies', () => {
  const A = shingles(PASSAGE);
  const A2 = shingles(PASSAGE.replace('eighteen grams', '19 grams'));
  const B = shingles('Tomatoes need full sun, steady watering and a stake once the first truss sets fruit.');
  const C = shingles('Sourdough rises for eight hours at room temperature before it is shaped and baked.');

  it('keeps the best-ranked passage and folds its copies under it', () => {
    expect(foldNearCopies([A, A2, B, A, C], 10)).toEqual([
      { index: 0, copies: [1, 3] },
      { index: 2, copies: [] },
      { index: 4, copies: [] },
    ]);
  });

  it('keeps at most `limit`, still folding later copies under kept items', () => {
    expect(foldNearCopies([A, B, C, A2], 2)).toEqual([
      { index: 0, copies: [3] },
      { index: 1, copies: [] },
    ]);
    expect(foldNearCopies([A, B], 0)).toEqual([]);
    expect(foldNearCopies([null, A, null, A2], 5)).toEqual([
      { index: 0, copies: [] },
      { index: 1, copies: [3] },
      { index: 2, copies: [] },
    ]);
    expect(foldNearCopies([], 5)).toEqual([]);
  });

  it('the early-exit merge decides as the counts do (property)', () => {
    const sorted = fc
      .uniqueArray(fc.integer({ min: -40, max: 40 }), { maxLength: 30 })
      .map((a) => Int32Array.from(a).sort());
    fc.assert(
      fc.property(sorted, sorted, fc.nat({ max: 30 }), (a, b0, keep) => {
        // Often near-copies: b shares a prefix of a's elements.
        const b = Int32Array.from(new Set([...a.slice(0, keep), ...b0])).sort();
        const inB = new Set(b);
        const common = [...a].filter((x) => inB.has(x)).length;
        const want =
          a.length === 0 || b.length === 0
            ? a.length === b.length
            : nearCopyCounts(common, a.length, b.length);
        expect(nearCopy(a, b)).toBe(want);
        expect(nearCopy(b, a)).toBe(want);
      }),
      { numRuns: 1000 },
    );
  });

  it('finds the same heads as comparing every pair (property)', () => {
    // The reference: each item against every kept item, earliest first.
    const pairwise = (sets: (Int32Array | null)[], limit: number) => {
      const kept: { index: number; copies: number[] }[] = [];
      sets.forEach((set, i) => {
        const head =
          set === null
            ? undefined
            : kept.find((k) => sets[k.index] !== null && nearCopy(sets[k.index]!, set));
        if (head !== undefined) head.copies.push(i);
        else if (kept.length < limit) kept.push({ index: i, copies: [] });
      });
      return kept;
    };
    // Sets drawn from few elements, many derived from an earlier set, so copies are common.
    const base = fc.uniqueArray(fc.integer({ min: 0, max: 24 }), { maxLength: 16 });
    const item = fc.oneof(
      fc.constant(null),
      base.map((a) => ({ own: a, from: -1, keep: 0 })),
      fc
        .tuple(base, fc.nat({ max: 20 }), fc.nat({ max: 16 }))
        .map(([a, from, keep]) => ({ own: a.slice(0, 3), from, keep })),
    );
    fc.assert(
      fc.property(fc.array(item, { maxLength: 24 }), fc.nat({ max: 12 }), (items, limit) => {
        const sets: (Int32Array | null)[] = [];
        for (const it of items) {
          if (it === null) sets.push(null);
          else {
            const src = it.from >= 0 && it.from < sets.length ? (sets[it.from] ?? null) : null;
            const inherited = src === null ? [] : [...src].slice(0, it.keep);
            sets.push(Int32Array.from(new Set([...inherited, ...it.own])).sort());
          }
        }
        expect(foldNearCopies(sets, limit)).toEqual(pairwise(sets, limit));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('prefixLength', () => {
  it('is ⌊n / 2⌋ + 3, and the whole set up to 5', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7, 100].map(prefixLength)).toEqual([0, 1, 2, 3, 4, 5, 6, 6, 53]);
  });
});

describe('prefixNeed', () => {
  it('is 3, or half the larger set (rounded up) when that is fewer', () => {
    expect(prefixNeed(1, 1)).toBe(1);
    expect(prefixNeed(1, 3)).toBe(2);
    expect(prefixNeed(4, 2)).toBe(2);
    expect(prefixNeed(5, 1)).toBe(3);
    expect(prefixNeed(200, 180)).toBe(3);
  });
});
