import { createRequire } from 'node:module';
import type { Language } from './language.js';

/**
 * Stemmers for the languages English's Porter does not cover: nlp.js's ports of the Snowball
 * algorithms (German, French, Spanish, Italian, Portuguese, Dutch, Swedish, Russian) and its
 * Ukrainian and Polish stemmers. Each is loaded on first use, so a vault in one language never
 * loads the others, and an English vault none.
 */
interface NlpStemmer {
  stemWord(word: string): string;
  cache: Record<string, string>;
}

const MODULES: Record<Exclude<Language, 'en' | 'und'>, string> = {
  de: '@nlpjs/lang-de/src/stemmer-de.js',
  fr: '@nlpjs/lang-fr/src/stemmer-fr.js',
  es: '@nlpjs/lang-es/src/stemmer-es.js',
  it: '@nlpjs/lang-it/src/stemmer-it.js',
  pt: '@nlpjs/lang-pt/src/stemmer-pt.js',
  nl: '@nlpjs/lang-nl/src/stemmer-nl.js',
  sv: '@nlpjs/lang-sv/src/stemmer-sv.js',
  pl: '@nlpjs/lang-pl/src/stemmer-pl.js',
  ru: '@nlpjs/lang-ru/src/stemmer-ru.js',
  uk: '@nlpjs/lang-uk/src/stemmer-uk.js',
};

const require = createRequire(import.meta.url);
const loaded = new Map<Language, NlpStemmer>();
/** nlp.js memoises every word it stems, without bound; start afresh past this many. */
const CACHE_MAX = 100_000;
const cacheSize = new Map<Language, number>();

/** Does `lang` have a stemmer here (every language but English, stemmed by Porter, and `und`)? */
export function hasOwnStemmer(lang: Language): lang is Exclude<Language, 'en' | 'und'> {
  return lang !== 'en' && lang !== 'und';
}

/**
 * The stem of a lower-cased word in `lang` (English and `und` words come back unchanged: FTS5's
 * Porter tokenizer stems English). The word must be lower-case and not folded: the Slavic
 * stemmers tell `й` from `и` and `ї` from `і`.
 */
export function stemIn(lang: Language, word: string): string {
  if (!hasOwnStemmer(lang)) return word;
  let s = loaded.get(lang);
  if (s === undefined) {
    const Ctor = require(MODULES[lang]) as new () => NlpStemmer;
    loaded.set(lang, (s = new Ctor()));
  }
  const n = (cacheSize.get(lang) ?? 0) + 1;
  if (n > CACHE_MAX) {
    s.cache = {};
    cacheSize.set(lang, 0);
  } else cacheSize.set(lang, n);
  // Snowball's Russian algorithm reads ё as е (newer Snowball releases do this themselves).
  const out = s.stemWord(lang === 'ru' ? word.replace(/ё/g, 'е') : word);
  return typeof out === 'string' && out.length > 0 ? out : word;
}
