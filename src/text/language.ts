import { franc } from 'franc-min';
import { STOPWORDS } from './stopwords.js';

/**
 * The languages quiver analyses with their own stemmer, as ISO 639-1 codes, with the script their
 * words are written in. English is stemmed by FTS5's Porter tokenizer (and `stem` in tokens.ts);
 * `und` (undetermined: too short, another language, or a script without spaces) is read as
 * English is, which leaves non-Latin words whole.
 */
export const LANGUAGES = {
  en: { iso3: 'eng', script: 'latin' },
  de: { iso3: 'deu', script: 'latin' },
  fr: { iso3: 'fra', script: 'latin' },
  es: { iso3: 'spa', script: 'latin' },
  it: { iso3: 'ita', script: 'latin' },
  pt: { iso3: 'por', script: 'latin' },
  nl: { iso3: 'nld', script: 'latin' },
  sv: { iso3: 'swe', script: 'latin' },
  pl: { iso3: 'pol', script: 'latin' },
  ru: { iso3: 'rus', script: 'cyrillic' },
  uk: { iso3: 'ukr', script: 'cyrillic' },
} as const;

export type Language = keyof typeof LANGUAGES | 'und';

const BY_ISO3 = new Map(Object.entries(LANGUAGES).map(([code, l]) => [l.iso3 as string, code as Language]));
const ONLY = Object.values(LANGUAGES).map((l) => l.iso3);

/** Is `code` one of {@link LANGUAGES} or `und`? (Rows written by a newer quiver may hold others.) */
export function isLanguage(code: unknown): code is Language {
  return code === 'und' || (typeof code === 'string' && Object.hasOwn(LANGUAGES, code));
}

/** Characters of a text that detection reads: enough for trigram statistics, bounded in cost. */
const SAMPLE_CHARS = 1_000;
/** Fewer letters than this and the language is `und`: trigrams of a few words decide nothing. */
const MIN_LETTERS = 20;
/**
 * Share of the first words that are English stop-words at or above which a text is English without
 * running trigram detection: running English has 35–50% (the, of, and, in, to…), other Latin-script
 * languages rarely 10% (their own articles are not on the list), so 25% separates them with margin
 * and keeps detection off the ingest path for English corpora.
 */
const ENGLISH_STOPWORD_SHARE = 0.25;
const STOPWORD_PROBE = 100;

/**
 * The language of `text`, among {@link LANGUAGES}, or `und`.
 *
 * Rule: read the first {@link SAMPLE_CHARS} characters; fewer than {@link MIN_LETTERS} letters →
 * `und`; at least {@link ENGLISH_STOPWORD_SHARE} of the first 100 ASCII words English stop-words →
 * `en`; otherwise franc's trigram model restricted to these languages (`und` when it cannot tell).
 * Deterministic for a given text.
 *
 * Edge cases: empty text, digits or punctuation only, CJK or Thai text → `und` (those scripts are
 * segmented, not stemmed); mixed text gets the language of its first thousand characters.
 */
export function detectLanguage(text: string): Language {
  const sample = text.slice(0, SAMPLE_CHARS);
  const letters = sample.match(/\p{L}/gu)?.length ?? 0;
  if (letters < MIN_LETTERS) return 'und';
  if (!/[\p{Script=Latin}\p{Script=Cyrillic}]/u.test(sample)) return 'und';
  const ascii = sample.toLowerCase().match(/[a-z]+/g) ?? [];
  const probe = ascii.slice(0, STOPWORD_PROBE);
  if (probe.length >= 5) {
    let stop = 0;
    for (const w of probe) if (STOPWORDS.has(w)) stop++;
    if (stop >= ENGLISH_STOPWORD_SHARE * probe.length) return 'en';
  }
  return BY_ISO3.get(franc(sample, { only: ONLY, minLength: MIN_LETTERS })) ?? 'und';
}

/** Characters of a document (title first) its language is detected from. */
const DOCUMENT_SAMPLE_CHARS = 2_000;
/**
 * A section with at least this much text of its own is analysed in its own detected language (a
 * note in two languages); shorter ones take the document's, which trigrams of a few words could
 * not overrule reliably.
 */
const OWN_LANGUAGE_CHARS = 300;

/**
 * The languages of a document and of each of its sections (what `add` records, and what
 * `doctor --fix` gives sections an earlier release wrote): the document's from its title and the
 * start of its text, each section's from its own text when it has at least 300 characters, else
 * the document's.
 */
export function documentLanguages(
  title: string,
  sectionTexts: readonly string[],
): { document: Language; sections: Language[] } {
  const document = detectLanguage([title, ...sectionTexts].join('\n').slice(0, DOCUMENT_SAMPLE_CHARS));
  return {
    document,
    sections: sectionTexts.map((t) => (t.length >= OWN_LANGUAGE_CHARS ? detectLanguage(t) : document)),
  };
}

/** The script a language's words are written in, or null for `und`. */
export function scriptOf(lang: Language): 'latin' | 'cyrillic' | null {
  return lang === 'und' ? null : LANGUAGES[lang].script;
}
