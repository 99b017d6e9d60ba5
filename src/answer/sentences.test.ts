import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitSentences } from './sentences.js';

const normalise = (s: string): string =>
  s
    .split(/\s+/u)
    .filter((w) => w.length > 0)
    .join(' ');

describe('splitSentences: examples', () => {
  it('splits plain sentences at terminal punctuation', () => {
    expect(splitSentences('Water boils at 100 °C. Ice melts at 0 °C! Does it? Yes.')).toEqual([
      'Water boils at 100 °C.',
      'Ice melts at 0 °C!',
      'Does it?',
      'Yes.',
    ]);
  });

  it('returns [] for empty and blank input', () => {
    expect(splitSentences('')).toEqual([]);
    expect(splitSentences(' \n\t\n ')).toEqual([]);
  });

  it('keeps a citation after the full stop with the preceding sentence', () => {
    expect(splitSentences('The climate is warming. [2] Next comes rain.')).toEqual([
      'The climate is warming. [2]',
      'Next comes rain.',
    ]);
    expect(splitSentences('It is warming. [1, 2] Next. [3][4] Last.')).toEqual([
      'It is warming. [1, 2]',
      'Next. [3][4]',
      'Last.',
    ]);
  });

  it('keeps a citation before the full stop inside the sentence', () => {
    expect(splitSentences('The climate is warming [2]. Next comes rain [1][3].')).toEqual([
      'The climate is warming [2].',
      'Next comes rain [1][3].',
    ]);
  });

  it.each([
    ['e.g.', 'Use a fruit, e.g. Apples are fine. Done.'],
    ['i.e.', 'The metal, i.e. Mercury is liquid. Done.'],
    ['Dr.', 'We met Dr. Smith at noon. Done.'],
    ['Mr.', 'Ask Mr. Jones first. Done.'],
    ['Fig.', 'See Fig. 3 for details. Done.'],
    ['et al.', 'As shown by Smith et al. The effect holds. Done.'],
    ['U.S.', 'The U.S. Army built it. Done.'],
    ['vs.', 'It was Brazil vs. Germany in the final. Done.'],
    ['initials', 'The author J. R. R. Tolkien wrote it. Done.'],
    ['No. before a number', 'Symphony No. 5 is famous. Done.'],
  ])('does not split after %s', (_name, text) => {
    const out = splitSentences(text);
    expect(out).toHaveLength(2);
    expect(out[1]).toBe('Done.');
  });

  it.each([
    ['decimals', 'Pi is 3.14 and the version is v2.0.1 today. Done.'],
    ['URLs', 'Visit https://example.com/a.b?c=1&d=2 for more. Done.'],
    ['e-mail', 'Write to jane.doe@example.org with questions. Done.'],
    ['a lower-case continuation', 'He paused... then he left. Done.'],
  ])('does not split inside %s', (_name, text) => {
    expect(splitSentences(text)).toHaveLength(2);
  });

  it('splits after an ellipsis followed by a capital', () => {
    expect(splitSentences('He waited… Then he left.')).toEqual(['He waited…', 'Then he left.']);
  });

  it('splits a URL ending a sentence at its final period', () => {
    expect(splitSentences('See https://example.com. Then go.')).toEqual([
      'See https://example.com.',
      'Then go.',
    ]);
  });

  it('does not split "So did I." from a following initial-free sentence wrongly', () => {
    expect(splitSentences('So did I. Then we left.')).toEqual(['So did I.', 'Then we left.']);
  });

  it('keeps closing quotes and brackets with the sentence', () => {
    expect(splitSentences('He said "stop." Then (quietly.) She left.')).toEqual([
      'He said "stop."',
      'Then (quietly.)',
      'She left.',
    ]);
  });

  it('splits bullets and blank lines, joins soft-wrapped lines', () => {
    const text = 'Steps:\n- boil water\n- add eggs\n1. Wait ten\nminutes\n\nHeading\nBody text here.';
    expect(splitSentences(text)).toEqual([
      'Steps:',
      '- boil water',
      '- add eggs',
      '1. Wait ten minutes',
      'Heading',
      'Body text here.',
    ]);
  });

  it('keeps a numbered-list marker with its item', () => {
    expect(splitSentences('1. First item. 2. Second item.')).toEqual(['1. First item.', '2. Second item.']);
  });

  it('keeps a citation on the next line with the sentence before it', () => {
    expect(splitSentences('It is warming.\n[2] More follows.')).toEqual([
      'It is warming. [2]',
      'More follows.',
    ]);
  });
});

// Random texts built from pieces that stress every rule.
const PIECES = [
  'water',
  'boils',
  'The',
  'It',
  'eggs',
  'Dr.',
  'e.g.',
  'i.e.',
  'U.S.',
  'et',
  'al.',
  'vs.',
  'Fig.',
  'J.',
  '3.14',
  'v2.0.1',
  'https://example.com/a.b',
  'a.b@example.org',
  'end.',
  'stop!',
  'why?',
  'so...',
  'wait…',
  '[1]',
  '[2].',
  '[1,',
  '2]',
  '[3][4]',
  '-',
  '•',
  '1.',
  '2)',
  '"quoted."',
  '(aside.)',
  '.',
  '?',
  '…',
  'I.',
  'No.',
  '5',
];
const SEPARATORS = [' ', ' ', ' ', '  ', '\n', '\n\n', ' \t', '\n  \n'];
const textArb = fc
  .array(fc.tuple(fc.constantFrom(...PIECES), fc.constantFrom(...SEPARATORS)), { maxLength: 40 })
  .map((parts) => parts.map(([p, s]) => p + s).join(''));
const anyText = fc.oneof(textArb, fc.string({ maxLength: 80 }));

describe('splitSentences: properties', () => {
  it('joining the output with single spaces gives the input with whitespace normalised', () => {
    fc.assert(
      fc.property(anyText, (t) => {
        expect(splitSentences(t).join(' ')).toBe(normalise(t));
      }),
      { numRuns: 500 },
    );
  });

  it('never returns an empty or untrimmed sentence', () => {
    fc.assert(
      fc.property(anyText, (t) => {
        for (const s of splitSentences(t)) {
          expect(s.length).toBeGreaterThan(0);
          expect(s).toBe(s.trim());
        }
      }),
      { numRuns: 500 },
    );
  });

  it('is idempotent: splitting a sentence again gives itself', () => {
    fc.assert(
      fc.property(anyText, (t) => {
        for (const s of splitSentences(t)) expect(splitSentences(s)).toEqual([s]);
      }),
      { numRuns: 500 },
    );
  });

  it('never splits at decimals, URLs, e-mail addresses or abbreviations', () => {
    const special = fc.constantFrom(
      'e.g.',
      'i.e.',
      'Dr.',
      'Mr.',
      'Mrs.',
      'Prof.',
      'Fig.',
      'et al.',
      'U.S.',
      'vs.',
      'cf.',
      '3.14',
      '0.5',
      'v2.0.1',
      'https://example.com/x.y?z=1',
      'www.example.org/a.html',
      'jane.doe@example.org',
    );
    const word = fc.constantFrom('Water', 'Paris', 'Smith', 'The', 'eggs', 'boil', 'ten', 'Mercury');
    fc.assert(
      fc.property(
        fc.array(word, { maxLength: 4 }),
        special,
        word,
        fc.array(word, { maxLength: 4 }),
        (pre, sp, next, post) => {
          const text = ['Start', ...pre, sp, next, ...post].join(' ') + '.';
          expect(splitSentences(text)).toEqual([text]);
        },
      ),
      { numRuns: 300 },
    );
  });
});
