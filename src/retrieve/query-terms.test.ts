import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { tokenizeQueryTerms } from '../store/sqlite/lexical-index-build.js';
import { hasSearchableWord, queryTerms } from './query-terms.js';

describe('queryTerms', () => {
  it('any: folded words, stop-words dropped, duplicates removed in order', () => {
    expect(queryTerms('What causes the Warming? Warming, CAUSES!', 'any')).toEqual(['causes', 'warming']);
    expect(queryTerms('Café NAÏVE résumé', 'any')).toEqual(['cafe', 'naive', 'resume']);
  });

  it('all: the same terms as any', () => {
    expect(queryTerms('the cat and the hat, the cat', 'all')).toEqual(['cat', 'hat']);
  });

  it('falls back to every word when only stop-words remain', () => {
    expect(queryTerms('To be or not to be', 'any')).toEqual(['to', 'be', 'or', 'not']);
    expect(queryTerms('the the', 'all')).toEqual(['the']);
  });

  it("judges a word with an apostrophe by its part before it (don't → don)", () => {
    expect(queryTerms("don't panic", 'any')).toEqual(["don't", 'panic']);
    expect(queryTerms("it's here", 'any')).toEqual(["it's", 'here']); // both stop-words: fallback to all
  });

  it('phrase: every word in order, duplicates kept', () => {
    expect(queryTerms('To be, or NOT to be', 'phrase')).toEqual(['to', 'be', 'or', 'not', 'to', 'be']);
  });

  it('FTS syntax is only punctuation', () => {
    expect(queryTerms('title:foo -bar "baz* NEAR(x y) ^start', 'any')).toEqual([
      'title',
      'foo',
      'bar',
      'baz',
      'near',
      'x',
      'y',
      'start',
    ]);
  });

  it('empty or wordless text gives []', () => {
    expect(queryTerms('', 'any')).toEqual([]);
    expect(queryTerms('  "*()-: ', 'all')).toEqual([]);
    expect(queryTerms('😀😀', 'phrase')).toEqual([]);
  });

  it('never throws, and any/all terms are unique and non-empty (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary' }),
        fc.constantFrom('any', 'all', 'phrase' as const),
        (text, mode) => {
          const terms = queryTerms(text, mode);
          for (const t of terms) expect(t.length).toBeGreaterThan(0);
          if (mode !== 'phrase') expect(new Set(terms).size).toBe(terms.length);
        },
      ),
    );
  });
});

describe('hasSearchableWord', () => {
  const db = new Database(':memory:');
  afterAll(() => db.close());
  /** Does FTS5's tokenizer of `sections_fts` find any token in `text`? */
  const ftsHasToken = (text: string): boolean => tokenizeQueryTerms(db, [text])[0] !== null;

  it('empty, blank and punctuation-only text has none', () => {
    for (const t of [
      '',
      '   ',
      '\t\n',
      '*',
      '?!',
      '"',
      "'",
      '’',
      '-- ++ ()',
      '·',
      '_',
      '©',
      '\u00ad',
      '\u200b',
    ])
      expect(hasSearchableWord(t), JSON.stringify(t)).toBe(false);
  });

  it('a combining mark alone has none; on a letter it is folded away', () => {
    expect(hasSearchableWord('\u0301')).toBe(false);
    expect(hasSearchableWord('e\u0301')).toBe(true);
  });

  it('letters and digits of any script are words, CJK runs included', () => {
    for (const t of ['a', '7', 'Café', '東京', 'タワー', '々', '٣', 'ﬁ', 'Ⅻ', '"coffee"*?'])
      expect(hasSearchableWord(t), t).toBe(true);
  });

  it('is "queryTerms gives a term" in every mode', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        for (const mode of ['any', 'all', 'phrase'] as const)
          expect(queryTerms(text, mode).length > 0).toBe(hasSearchableWord(text));
      }),
    );
  });

  it("agrees with FTS5's unicode61 tokenizer (property, over letters, digits, marks and punctuation)", () => {
    const alphabet = [...'aZé9 .,;:!?*"\'’-_()[]{}#@/\\·©東京ーﾃ٣ß', '\u0301', '\u00ad', '\t', '\n'];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...alphabet), { maxLength: 8 }), (chars) => {
        const text = chars.join('');
        expect(hasSearchableWord(text), JSON.stringify(text)).toBe(ftsHasToken(text));
      }),
      { numRuns: 500 },
    );
  });

  it('symbols FTS5 keeps as tokens (emoji, private use) are no word here: the lexical leg never searches them', () => {
    for (const t of ['🙂', '\ue000']) {
      expect(ftsHasToken(t)).toBe(true);
      expect(hasSearchableWord(t)).toBe(false);
      expect(queryTerms(t, 'any')).toEqual([]);
    }
  });
});
