import { STOPWORDS } from '../text/stopwords.js';
import { words } from '../text/tokens.js';
import type { QueryMode } from '../types.js';

/**
 * Terms for the lexical leg from a user's text (never FTS syntax: operators, quotes and column
 * prefixes are just punctuation here). Words are folded (`words` from text/tokens).
 *
 * - `any` and `all`: stop-words dropped (a word with an inner apostrophe is judged by the part
 *   before it, so "don't" goes with "don"), falling back to every word when nothing would remain,
 *   then duplicates removed keeping the first occurrence.
 * - `phrase`: every word, in order, duplicates kept.
 *
 * Never throws; empty or wordless text → [].
 *
 * @example
 * queryTerms('What causes the warming? title:warming', 'any'); // ['causes', 'warming', 'title']
 */
export function queryTerms(text: string, mode: QueryMode): string[] {
  const all = words(typeof text === 'string' ? text : '');
  if (mode === 'phrase') return all;
  const content = all.filter((w) => !STOPWORDS.has(w.replace(/['’].*$/, '')));
  return [...new Set(content.length > 0 ? content : all)];
}

/**
 * Has `text` a word the lexical leg can search for: a run of letters or digits as `words` (and so
 * FTS5's `unicode61` tokenizer) sees it? Empty, blank and punctuation-only text (`*`, `?!`, `"`)
 * has none; so has text of symbols, emoji or combining marks alone. A run of CJK characters is a
 * word. This is exactly "`queryTerms` gives at least one term" in every mode.
 *
 * @example
 * hasSearchableWord('?!'); // false
 * hasSearchableWord('東京'); // true
 */
export function hasSearchableWord(text: string): boolean {
  return typeof text === 'string' && words(text).length > 0;
}
