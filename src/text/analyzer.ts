import { stemmer } from 'stemmer';
import { indexText } from './analyze.js';
import { isLanguage } from './language.js';

/**
 * The one analyzer: the terms a section's fields are indexed under and a query term is looked up
 * by, computed in TypeScript so that every backend indexes the same terms (the PostgreSQL store's
 * postings; the SQLite store hands the same `indexText` output to FTS5, whose tokenizer this
 * reproduces). A field is read as:
 *
 * 1. `indexText(text, lang)`: space-less runs segmented into words, words of a language with its
 *    own stemmer stemmed (analyze.ts);
 * 2. tokens as FTS5's `unicode61 remove_diacritics 2` cuts them: maximal runs of letters (L*),
 *    numbers (N*), private-use characters (Co) and the common combining diacritics (which are then
 *    dropped); everything else, other combining marks included, separates. Each character is lower-cased on its own, and a Latin letter loses its diacritics
 *    (é → e, ő → o, ł and ø stay: they do not decompose); other scripts keep theirs (й stays й);
 * 3. FTS5's `porter` on every token of 3 to 64 UTF-8 bytes, which reads the token's bytes: ASCII
 *    letters as letters and every other byte as a consonant (so `straße` → `straß`, `1990s` →
 *    `1990`).
 *
 * A query term goes through steps 2 and 3 only (FTS5 tokenizes query strings the same way, and
 * query words reach stemmed languages through `queryVariants`).
 */

/**
 * The combining diacritics unicode61 reads as part of a word and then drops (its
 * `sqlite3Fts5UnicodeIsdiacritic` table: U+0300–0304, 0306–030C, 030F, 0311, 031B, 0323–0328,
 * 032D, 032E, 0330, 0331); every other combining mark separates words.
 */
const DIACRITICS = '\u0300-\u0304\u0306-\u030c\u030f\u0311\u031b\u0323-\u0328\u032d\u032e\u0330\u0331';
const TOKEN = new RegExp(`[\\p{L}\\p{N}\\p{Co}${DIACRITICS}]+`, 'gu');
const DIACRITIC = new RegExp(`[${DIACRITICS}]`, 'u');
// eslint-disable-next-line no-control-regex -- the range of ASCII starts at NUL
const ASCII = /^[\x00-\x7f]*$/;
const LATIN = /\p{Script=Latin}/u;
const MARKS = /\p{M}+/gu;

const FOLD_CACHE = new Map<string, string>();

/**
 * One character as unicode61 folds it: case-folded (a folded form of several characters, such
 * as İ → i̇, keeps its first; a combining diacritic folds to nothing), and for a Latin letter without its diacritics (the first character of
 * its canonical decomposition with marks removed; a letter with no decomposition stays).
 */
export function foldChar(ch: string): string {
  let f = FOLD_CACHE.get(ch);
  if (f !== undefined) return f;
  if (DIACRITIC.test(ch)) {
    FOLD_CACHE.set(ch, '');
    return '';
  }
  // Case folding, not lower-casing: ς and Σ both fold to σ, ſ to s, µ to μ. An upper-case form of
  // several characters (ß → SS) is not a simple folding, so such a character is only lower-cased;
  // nor is dotless ı → I → i (a Turkish-only folding FTS5 does not make).
  const upper = ch.toUpperCase();
  const lower = [...upper].length === 1 && ch !== 'ı' ? upper.toLowerCase() : ch.toLowerCase();
  f = lower;
  if (LATIN.test(ch)) f = lower.normalize('NFD').replace(MARKS, '') || lower;
  f = String.fromCodePoint(f.codePointAt(0)!);
  FOLD_CACHE.set(ch, f);
  return f;
}

/** Tokens of `text` as FTS5's `unicode61 remove_diacritics 2` reads it, before stemming. */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(TOKEN)) {
    const raw = m[0];
    if (ASCII.test(raw)) {
      out.push(raw.toLowerCase());
      continue;
    }
    let t = '';
    for (const ch of raw) t += foldChar(ch);
    if (t !== '') out.push(t);
  }
  return out;
}

/** FTS5's porter stemmer leaves tokens outside 3..64 bytes as they are. */
const PORTER_MIN_BYTES = 3;
const PORTER_MAX_BYTES = 64;
/** Non-ASCII bytes travel through the stemmer as private-use characters (consonants to it). */
const BYTE_BASE = 0xe000;

const STEM_CACHE = new Map<string, string>();
const STEM_CACHE_MAX = 200_000;

/**
 * A folded token as FTS5's porter stems it. ASCII tokens go straight to the Porter stemmer; a token
 * with other characters is stemmed over its UTF-8 bytes, each non-ASCII byte standing in as a
 * distinct consonant, then decoded back (what FTS5 does, since it stems bytes). Tokens of fewer
 * than 3 or more than 64 bytes are returned unchanged. Memoised.
 */
export function porter(token: string): string {
  let s = STEM_CACHE.get(token);
  if (s !== undefined) return s;
  if (ASCII.test(token)) {
    s = token.length < PORTER_MIN_BYTES || token.length > PORTER_MAX_BYTES ? token : stemmer(token);
  } else {
    const bytes = Buffer.from(token, 'utf8');
    if (bytes.length < PORTER_MIN_BYTES || bytes.length > PORTER_MAX_BYTES) s = token;
    else {
      let mapped = '';
      for (const b of bytes) mapped += b < 0x80 ? String.fromCharCode(b) : String.fromCharCode(BYTE_BASE + b);
      const stemmed = stemmer(mapped);
      const out: number[] = [];
      for (const ch of stemmed) {
        const c = ch.charCodeAt(0);
        out.push(c >= BYTE_BASE ? c - BYTE_BASE : c);
      }
      s = Buffer.from(out).toString('utf8');
    }
  }
  if (STEM_CACHE.size >= STEM_CACHE_MAX) STEM_CACHE.clear();
  STEM_CACHE.set(token, s);
  return s;
}

/** The terms of a query string (or one query word): tokens, stemmed; a multi-term result is a phrase. */
export function analyzeQuery(text: string): string[] {
  return tokenize(text).map(porter);
}

/**
 * The terms of one field of a section written in `lang` (null or an unknown code reads as English,
 * as the SQLite store's `ftsColumns` does), in order: position i is the field's i-th token.
 */
export function analyzeField(text: string, lang: string | null): string[] {
  return tokenize(indexText(text, isLanguage(lang) ? lang : 'und')).map(porter);
}
