import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fold, words } from './tokens.js';

/** The general road of `words`, spelled out: fold, then runs of letters/digits. */
const general = (text: string): string[] => fold(text).match(/[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu) ?? [];

describe('words', () => {
  it('gives ASCII text the same words as the general road', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'aZ09 \'’-_.,:;!?"\t\nQx'.split('')) }), (s) => {
        // The curly apostrophe is not ASCII, so such strings take the general road themselves.
        expect(words(s)).toEqual(general(s));
      }),
    );
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (s) => {
        if (/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u.test(s)) return;
        expect(words(s)).toEqual(general(s));
      }),
      { numRuns: 300 },
    );
  });

  it('keeps an inner apostrophe, lower-cases and splits on punctuation', () => {
    expect(words("Don't STOP-believing, it's 2024")).toEqual(["don't", 'stop', 'believing', "it's", '2024']);
    expect(words('')).toEqual([]);
    expect(words("'quoted'")).toEqual(['quoted']);
  });

  it('folds diacritics on the general road', () => {
    expect(words('Café crème')).toEqual(['cafe', 'creme']);
  });
});
