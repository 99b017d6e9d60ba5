import { hasOwnStemmer, stemIn } from './stemmers.js';
import { type Language, scriptOf } from './language.js';
import { segmentWords } from './segment.js';
import { STOPWORDS } from './stopwords.js';

/**
 * How text meets the index, per language. FTS5's tokenizer (`porter unicode61 remove_diacritics 2`)
 * folds case and diacritics and Porter-stems what it reads; before it reads a section:
 * - runs of Chinese, Japanese and Thai are split into words (`segmentWords`);
 * - in a language with its own stemmer (German, Russian, Ukrainian…, see stemmers.ts) every word of
 *   that language's script is replaced by its stem, taken from the lower-cased, unfolded word.
 * A query word then finds the section when one of its forms does: the word itself (English's road)
 * or its stem in a language the vault holds ({@link queryVariants}).
 */

/** A word as the stemmers see it: letters, marks and digits, inner apostrophes kept. */
const WORD = /[\p{L}\p{M}\p{N}]+(?:['’][\p{L}\p{M}]+)*/gu;
const SCRIPT = {
  latin: /\p{Script=Latin}/u,
  cyrillic: /\p{Script=Cyrillic}/u,
} as const;

/**
 * `text` as the index reads it in `lang` (see above). English and `und` text only has its
 * space-less runs segmented; words of another script than the language's pass unchanged (a Latin
 * product name in a Ukrainian note stays as English reads it).
 */
export function indexText(text: string, lang: Language): string {
  const segmented = segmentWords(text);
  if (!hasOwnStemmer(lang)) return segmented;
  const script = SCRIPT[scriptOf(lang)!];
  return segmented.replace(WORD, (w) => (script.test(w) ? stemIn(lang, w.toLowerCase()) : w));
}

/**
 * The extra forms a query's words take in the vault's languages: for each word of `text` that is
 * not an English stop-word, its stem in every language of `langs` that has its own stemmer and
 * whose script the word is written in, when that differs from the word. Distinct, in order.
 *
 * Edge cases: no such language in `langs` → [] (an English vault's queries are unchanged); digits
 * and words of other scripts give none; empty text → [].
 */
export function queryVariants(text: string, langs: readonly Language[]): string[] {
  const own = langs.filter(hasOwnStemmer);
  if (own.length === 0) return [];
  const out = new Set<string>();
  for (const raw of segmentWords(text).match(WORD) ?? []) {
    const w = raw.toLowerCase();
    if (STOPWORDS.has(w)) continue;
    for (const lang of own) {
      if (!SCRIPT[scriptOf(lang)!].test(w)) continue;
      const s = stemIn(lang, w);
      if (s !== w) out.add(s);
    }
  }
  return [...out];
}
