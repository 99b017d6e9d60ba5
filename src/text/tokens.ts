import { stemmer } from 'stemmer';
import { segmentWords } from './segment.js';
import { STOPWORDS } from './stopwords.js';

/**
 * Fold text for matching: NFKD, strip combining marks (diacritics), lower-case.
 * Mirrors FTS5's `unicode61 remove_diacritics 2` closely enough for scoring outside SQL.
 */
export function fold(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
}

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;
// eslint-disable-next-line no-control-regex -- the range of ASCII starts at NUL
const ASCII = /^[\x00-\x7f]*$/;
const ASCII_WORD = /[a-z0-9]+(?:'[a-z]+)?/g;

/**
 * Word tokens of `text`, folded: runs of letters/digits (an inner apostrophe kept), with Chinese,
 * Japanese and Thai runs split into words first (`segmentWords`, as the index does). Empty text → [].
 * ASCII text takes a shorter road to the same words (nothing to normalise, segment or strip; the
 * letters are a–z and the apostrophe is `'`), about twice as fast on the long texts feedback reads.
 */
export function words(text: string): string[] {
  if (ASCII.test(text)) return text.toLowerCase().match(ASCII_WORD) ?? [];
  return fold(segmentWords(text)).match(WORD) ?? [];
}

const STEM_CACHE = new Map<string, string>();
const STEM_CACHE_MAX = 100_000;

/** Porter stem of a folded word (digits and non-Latin words come back unchanged). Memoised. */
export function stem(word: string): string {
  let s = STEM_CACHE.get(word);
  if (s === undefined) {
    s = /^[a-z]+$/.test(word) ? stemmer(word) : word;
    if (STEM_CACHE.size >= STEM_CACHE_MAX) STEM_CACHE.clear();
    STEM_CACHE.set(word, s);
  }
  return s;
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
