import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isQuiverError } from '../errors.js';
import {
  splitAfterInnerCitations,
  extractClaims,
  parseCitations,
  splitReasoning,
  stripCitations,
  stripReasoning,
} from './citations.js';

describe('parseCitations', () => {
  it.each([
    ['single', 'It boils [3].', [3]],
    ['adjacent', 'It boils [1][2].', [1, 2]],
    ['comma list', 'It boils [1, 2].', [1, 2]],
    ['tight comma list', 'It boils [1,2,3].', [1, 2, 3]],
    ['range', 'It boils [1-3].', [1, 2, 3]],
    ['en-dash range', 'It boils [2–4].', [2, 3, 4]],
    ['reversed range reads as endpoints', 'See [5-2].', [5, 2]],
    ['huge range reads as endpoints', 'See [1-1000].', [1, 1000]],
    ['leading zero', 'See [01].', [1]],
    ['zero is kept (invalid later)', 'See [0].', [0]],
    ['inner spaces', 'See [ 4 ].', [4]],
    ['de-duplicated in order', 'A [2]. B [1][2]. C [2, 3].', [2, 1, 3]],
  ])('%s', (_name, text, expected) => {
    expect(parseCitations(text)).toEqual(expected);
  });

  it.each([
    ['letters', 'Note [a] and [iv].'],
    ['empty brackets', 'Nothing [] here.'],
    ['markdown link with text', 'See [the docs](https://x.org/1).'],
    ['markdown link with a number', 'See [1](https://x.org/1).'],
    ['footnote', 'A footnote[^1].'],
    ['mixed words', 'See [1 and 2].'],
    ['no brackets', 'Plain 1, 2, 3.'],
    ['unsafe integer', 'See [99999999999999999999].'],
  ])('ignores %s', (_name, text) => {
    expect(parseCitations(text)).toEqual([]);
  });
});

describe('parseCitations: properties', () => {
  const n = fc.integer({ min: 0, max: 10_000 });
  const marker = fc.oneof(
    fc.array(n, { minLength: 1, maxLength: 4 }).map((ns) => ({ text: `[${ns.join(', ')}]`, ns })),
    fc.array(n, { minLength: 1, maxLength: 4 }).map((ns) => ({ text: ns.map((x) => `[${x}]`).join(''), ns })),
    n.map((x) => ({ text: `[${x}]`, ns: [x] })),
  );
  const filler = fc.constantFrom(
    'Water boils',
    ' and ',
    'see [a] ',
    '[text](http://x.y) ',
    '. ',
    ' [] ',
    'e.g. ',
  );

  it('finds exactly the numbers of the markers, de-duplicated in first-appearance order (naive reference)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(filler, marker), { maxLength: 8 }), (parts) => {
        const text = parts.map(([f, m]) => f + ' ' + m.text + ' ').join('');
        const expected: number[] = [];
        for (const [, m] of parts) for (const x of m.ns) if (!expected.includes(x)) expected.push(x);
        expect(parseCitations(text)).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('never returns duplicates or non-integers, for any string', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (s) => {
        const out = parseCitations(s);
        expect(new Set(out).size).toBe(out.length);
        for (const x of out) expect(Number.isSafeInteger(x) && x >= 0).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('stripCitations leaves no citation behind', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(filler, marker), { maxLength: 6 }), (parts) => {
        const text = parts.map(([f, m]) => f + m.text).join(' ');
        expect(parseCitations(stripCitations(text))).toEqual([]);
      }),
    );
  });
});

describe('stripCitations', () => {
  it('removes markers and the space before punctuation', () => {
    expect(stripCitations('Eggs boil in ten minutes [1][2]. More [3, 4] here.')).toBe(
      'Eggs boil in ten minutes. More here.',
    );
  });
});

describe('splitReasoning / stripReasoning', () => {
  it('removes a multi-line think block', () => {
    expect(stripReasoning('<think>\nline one\nline two [9]\n</think>\n\nThe answer [1].')).toBe(
      'The answer [1].',
    );
  });
  it('removes several blocks and other tag names, case-insensitively', () => {
    const r = splitReasoning('<think>a</think>One. <THINK>b</THINK>Two. <reasoning>c</reasoning>Three.');
    expect(r.answer).toBe('One. Two. Three.');
    expect(r.thinking).toBe('a\n\nb\n\nc');
  });
  it('removes text before a lone closing tag', () => {
    expect(splitReasoning('thinking hard [7]\n</think>\nAnswer [1].')).toEqual({
      answer: 'Answer [1].',
      thinking: 'thinking hard [7]',
    });
  });
  it('removes an unclosed block at the end (reasoning cut off)', () => {
    expect(stripReasoning('Partial answer. <think>still going')).toBe('Partial answer.');
  });
  it('leaves text without reasoning alone (trimmed)', () => {
    expect(splitReasoning('  Plain [2].  ')).toEqual({ answer: 'Plain [2].', thinking: '' });
  });
});

describe('extractClaims', () => {
  it('splits into claims with their citations and reports out-of-range numbers', () => {
    const r = extractClaims('Eggs boil in ten minutes [1]. Salt helps [7]. Water boils at 100 °C. [2][1]', 2);
    expect(r.claims).toEqual([
      { text: 'Eggs boil in ten minutes.', citations: [1] },
      { text: 'Salt helps.', citations: [7] },
      { text: 'Water boils at 100 °C.', citations: [2, 1] },
    ]);
    expect(r.cited).toEqual([1, 2]);
    expect(r.invalid).toEqual([7]);
  });

  it('reports 0 and numbers above nSections as invalid, once each', () => {
    const r = extractClaims('A [0]. B [3]. C [0][3][1].', 1);
    expect(r.cited).toEqual([1]);
    expect(r.invalid).toEqual([0, 3]);
  });

  it('a claim without markers has no citations', () => {
    const r = extractClaims('Nothing cited here.', 3);
    expect(r.claims).toEqual([{ text: 'Nothing cited here.', citations: [] }]);
    expect(r.cited).toEqual([]);
    expect(r.invalid).toEqual([]);
  });

  it('an empty answer has no claims', () => {
    expect(extractClaims('', 2)).toEqual({ claims: [], cited: [], invalid: [] });
    expect(extractClaims('<think>only [1]</think>', 2)).toEqual({ claims: [], cited: [], invalid: [] });
  });

  it('ignores citations that appear only in reasoning', () => {
    const r = extractClaims('<think>maybe [5] or [1]</think>It boils [2].', 5);
    expect(r.cited).toEqual([2]);
    expect(r.claims).toEqual([{ text: 'It boils.', citations: [2] }]);
  });

  it('a marker-only line gives its citations to the claim before it', () => {
    const r = extractClaims('It boils at 100 °C.\n\n[3]', 3);
    expect(r.claims).toEqual([{ text: 'It boils at 100 °C.', citations: [3] }]);
  });

  it('drops list markers from claim text', () => {
    const r = extractClaims('Steps:\n- Boil the eggs [1].\n2. Cool them [2].', 2);
    expect(r.claims.map((c) => c.text)).toEqual(['Steps:', 'Boil the eggs.', 'Cool them.']);
    expect(r.claims.map((c) => c.citations)).toEqual([[], [1], [2]]);
  });

  it('reads [1, 2] and [1][2] both as two citations', () => {
    expect(extractClaims('A [1, 2].', 2).claims[0]!.citations).toEqual([1, 2]);
    expect(extractClaims('A [1][2].', 2).claims[0]!.citations).toEqual([1, 2]);
  });

  it('rejects a bad section count', () => {
    for (const bad of [-1, 1.5, Number.NaN]) {
      try {
        extractClaims('x', bad);
        expect.unreachable();
      } catch (e) {
        expect(isQuiverError(e, 'BAD_INPUT')).toBe(true);
      }
    }
  });

  it('cited ∪ invalid equals all numbers parsed from the answer (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 12 }), { maxLength: 10 }),
        fc.integer({ min: 0, max: 8 }),
        (ns, k) => {
          const answer = ns.map((x, i) => `Claim number ${i} holds [${x}].`).join(' ');
          const r = extractClaims(answer, k);
          expect(r.cited.every((x) => x >= 1 && x <= k)).toBe(true);
          expect(r.invalid.every((x) => x < 1 || x > k)).toBe(true);
          expect([...r.cited, ...r.invalid].sort((a, b) => a - b)).toEqual(
            [...new Set(ns)].sort((a, b) => a - b),
          );
          expect(r.claims).toHaveLength(ns.length);
        },
      ),
    );
  });
});

describe('splitAfterInnerCitations', () => {
  it('cuts after a marker that closes a lead-in or a sentence inside a sentence', () => {
    expect(splitAfterInnerCitations('You need: [1] A kettle and beans. [2]')).toEqual([
      'You need: [1]',
      'A kettle and beans. [2]',
    ]);
    expect(splitAfterInnerCitations('Grind fine. [1][2] then pour [3].')).toEqual([
      'Grind fine. [1][2]',
      'then pour [3].',
    ]);
  });

  it('leaves a marker inside a clause, at the end, or without text after it alone', () => {
    expect(splitAfterInnerCitations('Eggs [1] and salt [2] go in.')).toEqual([
      'Eggs [1] and salt [2] go in.',
    ]);
    expect(splitAfterInnerCitations('Boil them. [1]')).toEqual(['Boil them. [1]']);
    expect(splitAfterInnerCitations('Boil them: [1] [2]')).toEqual(['Boil them: [1] [2]']);
    expect(splitAfterInnerCitations('')).toEqual(['']);
  });

  it('loses no text (property)', () => {
    const piece = fc.constantFrom('Boil', 'them', ':', '.', ' ', '[1]', '[2, 3]', 'A', 'x;', '…');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 20 }), (parts) => {
        const s = parts.join(' ');
        const cut = splitAfterInnerCitations(s);
        expect(cut.join(' ').replace(/\s+/g, ' ').trim()).toBe(s.replace(/\s+/g, ' ').trim());
      }),
    );
  });
});

describe('extractClaims and lead-ins', () => {
  it('never gives one claim the citations of two quoted sentences', () => {
    const r = extractClaims('To brew you need: [1] A kettle and fresh beans. [2] Then pour.', 2);
    expect(r.claims).toEqual([
      { text: 'To brew you need:', citations: [1] },
      { text: 'A kettle and fresh beans.', citations: [2] },
      { text: 'Then pour.', citations: [] },
    ]);
  });
});
