import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { queryTerms } from './query-terms.js';

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
