import { indexText } from '../../text/analyze.js';
import { isLanguage } from '../../text/language.js';

/**
 * The three columns FTS5 indexes for a section, in `sections_fts` order (body, title, heading),
 * each as the index reads text in the section's language (`indexText`: space-less runs split into
 * words, words stemmed in a language with its own stemmer). `lang` is the section's recorded
 * language; null (rows of an earlier release) or a code this quiver does not know reads as
 * English. Every write to `sections_fts` or to a table tokenized like it goes through here.
 */
export function ftsColumns(
  body: string,
  title: string,
  heading: string,
  lang: string | null,
): [string, string, string] {
  const l = isLanguage(lang) ? lang : 'und';
  return [indexText(body, l), indexText(title, l), indexText(heading, l)];
}
