import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { queryTerms } from '../../retrieve/query-terms.js';
import { words } from '../../text/tokens.js';
import type { QueryMode } from '../../types.js';
import { compileFtsQuery, quoteFtsTerm } from './fts-query.js';

const db = new Database(':memory:');
db.exec(
  `CREATE VIRTUAL TABLE t USING fts5(body, title, heading, tokenize='porter unicode61 remove_diacritics 2')`,
);
const insert = db.prepare('INSERT INTO t(rowid, body, title, heading) VALUES (?, ?, ?, ?)');
const match = db.prepare('SELECT rowid FROM t WHERE t MATCH ? ORDER BY rowid');
afterAll(() => db.close());

function load(rows: [string, string, string][]): void {
  db.exec('DELETE FROM t');
  rows.forEach(([body, title, heading], i) => insert.run(i + 1, body, title, heading));
}
function run(expr: string | null): number[] {
  return expr === null ? [] : (match.all(expr) as { rowid: number }[]).map((r) => r.rowid);
}
const search = (text: string, mode: QueryMode, prefixLast = false): number[] =>
  run(compileFtsQuery(queryTerms(text, mode), mode, { prefixLast }));

const MODES: QueryMode[] = ['any', 'all', 'phrase'];
const NASTY = [
  '"',
  '""',
  '*',
  '-',
  '^',
  ':',
  '(',
  ')',
  '{',
  '}',
  '+',
  'NEAR',
  'NEAR(',
  'AND',
  'OR',
  'NOT',
  'title:',
  'body:',
  '{title body}:',
  '\0',
  '\u0007',
  '\n',
  '😀',
  '\ud800',
  'é',
  'ﬁ',
  ' ',
  'foo',
  'a*',
];
const nastyText = fc
  .array(fc.oneof(fc.constantFrom(...NASTY), fc.string({ unit: 'binary' }), fc.string()), { maxLength: 12 })
  .map((p) => p.join(''));

describe('compileFtsQuery', () => {
  it('quotes every term and doubles inner quotes', () => {
    expect(compileFtsQuery(['a"b', 'c'], 'any')).toBe('"a""b" OR "c"');
    expect(compileFtsQuery(['a', 'b'], 'all')).toBe('"a" AND "b"');
    expect(compileFtsQuery(['a', 'b'], 'phrase')).toBe('"a b"');
    expect(quoteFtsTerm('x\0y')).toBe('"x y"');
  });

  it('returns null when there are no terms (empty strings do not count)', () => {
    expect(compileFtsQuery([], 'any')).toBeNull();
    expect(compileFtsQuery(['', ''], 'all')).toBeNull();
    expect(compileFtsQuery([], 'phrase', { prefixLast: true })).toBeNull();
  });

  it('prefixLast makes only the last term a prefix', () => {
    expect(compileFtsQuery(['ab', 'cd'], 'any', { prefixLast: true })).toBe('"ab" OR "cd"*');
    expect(compileFtsQuery(['ab', 'cd'], 'phrase', { prefixLast: true })).toBe('"ab cd"*');
  });

  describe('against a real FTS5 table', () => {
    beforeEach(() =>
      load([
        ['foo bar abc', 'other', ''], // 1
        ['title words', 'foo', ''], // 2
        ['x and y together', '', 'near'], // 3
        ['only x here', '', ''], // 4
        ['ab*', '', ''], // 5: the literal text "ab" (the star is punctuation)
      ]),
    );

    it('title:foo does not restrict to the title column', () => {
      expect(search('title:foo', 'any')).toEqual([1, 2]); // foo in body (1) or title (2)
      expect(search('title:foo', 'all')).toEqual([2]); // needs both words, anywhere
    });

    it('NOT x does not exclude', () => {
      expect(search('x NOT y', 'any')).toEqual([3, 4]);
      expect(search('x NOT y', 'all')).toEqual([3]); // "not" is a stop-word; x AND y
      expect(search('x -y', 'any')).toEqual([3, 4]);
    });

    it('a* is not a prefix query unless asked', () => {
      expect(search('ab*', 'any')).toEqual([5]); // abc (row 1) is not matched
      expect(search('ab', 'any', true)).toEqual([1, 5]);
    });

    it('NEAR, AND, OR and parentheses are words', () => {
      expect(search('NEAR(x y)', 'any')).toEqual([3, 4]);
      expect(search('near', 'all')).toEqual([3]);
      expect(search('x AND zzz', 'all')).toEqual([]); // "and" dropped, zzz required
      expect(search('(foo OR', 'all')).toEqual([1, 2]); // "or" is a stop-word
    });

    it('an unbalanced quote is just punctuation', () => {
      expect(search('"foo bar', 'phrase')).toEqual([1]);
      expect(search('bar foo"', 'phrase')).toEqual([]); // order matters in a phrase
    });

    it('terms without token characters match nothing and do not fail', () => {
      expect(run(compileFtsQuery(['*', 'foo'], 'any'))).toEqual([1, 2]);
      expect(run(compileFtsQuery(['*', 'foo'], 'all'))).toEqual([]);
    });
  });

  it('never raises for any text, mode or prefix flag (property)', () => {
    load([
      ['foo bar', 'title', 'heading'],
      ['😀 é x', '', ''],
    ]);
    fc.assert(
      fc.property(nastyText, fc.constantFrom(...MODES), fc.boolean(), (text, mode, prefixLast) => {
        expect(() => search(text, mode, prefixLast)).not.toThrow();
      }),
      { numRuns: 400 },
    );
  });

  it('never raises for arbitrary raw terms either (property)', () => {
    load([['foo bar', 'title', 'heading']]);
    fc.assert(
      fc.property(
        fc.array(nastyText, { maxLength: 6 }),
        fc.constantFrom(...MODES),
        fc.boolean(),
        (terms, mode, prefixLast) => {
          expect(() => run(compileFtsQuery(terms, mode, { prefixLast }))).not.toThrow();
        },
      ),
      { numRuns: 400 },
    );
  });

  // Naive reference: words with distinct Porter stems, so "same FTS token" means "same word".
  const VOCAB = [
    'cat',
    'dog',
    'tree',
    'sun',
    'near',
    'title',
    'body',
    'heading',
    'foo',
    'zed',
    'and',
    'or',
    'not',
  ];
  const word = fc
    .constantFrom(...VOCAB)
    .chain((w) => fc.constantFrom(w, w.toUpperCase(), w[0]!.toUpperCase() + w.slice(1)));
  const sep = fc.constantFrom(' ', ', ', ' - ', ' "', '" ', ':', ' (', ') ', '*', ' ^', ' NEAR/');
  const phraseOf = (n: number) =>
    fc.array(fc.tuple(word, sep), { maxLength: n }).map((p) => p.map(([w, s]) => w + s).join(''));
  const row = fc.tuple(phraseOf(5), phraseOf(3), phraseOf(3));

  function containsRun(haystack: string[], needle: string[]): boolean {
    outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
      for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
      return true;
    }
    return false;
  }

  it('matches exactly what a naive reference says, in every mode (property)', () => {
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 8 }), phraseOf(4), (rows, text) => {
        load(rows);
        for (const mode of MODES) {
          const terms = queryTerms(text, mode);
          const expected = rows
            .map((cols, i) => ({ cols: cols.map((c) => words(c)), id: i + 1 }))
            .filter(({ cols }) => {
              if (terms.length === 0) return false;
              const all = new Set(cols.flat());
              if (mode === 'any') return terms.some((t) => all.has(t));
              if (mode === 'all') return terms.every((t) => all.has(t));
              return cols.some((c) => containsRun(c, terms));
            })
            .map((r) => r.id);
          expect(search(text, mode), `${mode}: ${text}`).toEqual(expected);
        }
      }),
      { numRuns: 300 },
    );
  });
});
