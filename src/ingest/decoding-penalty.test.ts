import { describe, expect, it } from 'vitest';
import { decodingPenalty, MAX_NON_ASCII_LATIN_SHARE } from './decoding-penalty.js';

describe('decodingPenalty', () => {
  it('is 0 for ASCII, empty text and plausible writing in any script', () => {
    expect(decodingPenalty('')).toBe(0);
    expect(decodingPenalty('plain ASCII, nothing else.')).toBe(0);
    for (const text of [
      'Le café est très bon — “oui” à 5 €.',
      'Привет, мир!',
      'Καλημέρα κόσμε',
      'コーヒー豆を焙煎し',
      'Kindleや楽天koboには',
      '커피는 음료이다',
    ])
      expect(decodingPenalty(text), text).toBe(0);
  });

  it('counts symbols that writing rarely uses (superscripts read for Polish ł and ą)', () => {
    expect(decodingPenalty('dzia³a pobudzaj¹co')).toBe(1);
  });

  it('counts letters in words that mix scripts (Latin with CJK excepted)', () => {
    expect(decodingPenalty('cafй')).toBe(1); // Latin and Cyrillic in one word
    expect(decodingPenalty('a饕')).toBe(0);
  });

  it(`adds 1 when more than ${MAX_NON_ASCII_LATIN_SHARE} of the Latin letters are accented (Cyrillic read as windows-1252)`, () => {
    expect(decodingPenalty('Ïðèâåò, ìèð!')).toBe(1);
    expect(decodingPenalty('été')).toBe(1);
    expect(decodingPenalty('résumé')).toBe(0);
  });
});
