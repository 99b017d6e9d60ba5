import { stemmer } from 'stemmer';
import { STOPWORDS } from './stopwords.js';

/**
 * Fold text for matching: NFKD, strip combining marks (diacritics), lower-case.
 * Mirrors FTS5's `unicode61 remove_diacritics 2` closely enough for scoring outside SQL.
 */
export function fold(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase();
}

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;

/** Word tokens of `text`, folded: runs of letters/digits (an inner apostrophe kept). Empty text → []. */
export function words(text: string): string[] {
  return fold(text).match(WORD) ?? [];
}

/** Porter stem of a folded word (digits and non-Latin words come back unchanged). */
export function stem(word: string): string {
  return /^[a-z]+$/.test(word) ? stemmer(word) : word;
}

/** Content terms: folded words minus stop-words, stemmed. The unit of lexical overlap. */
export function contentTerms(text: string): string[] {
  const out: string[] = [];
  for (const w of words(text)) {
    const bare = w.replace(/['’].*$/, '');
    if (bare.length === 0 || STOPWORDS.has(bare)) continue;
    out.push(stem(bare));
  }
  return out;
}

/** Number of Unicode code points (not UTF-16 units): what "characters" means in quiver. */
export function codePointLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}
