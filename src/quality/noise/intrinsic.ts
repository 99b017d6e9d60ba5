/**
 * Content-intrinsic noise features, computed from one document's text alone (no other document
 * needed). Real boilerplate from different sites does not repeat across documents, so the
 * collection-level features (hub, dup_out, …) miss it; what gives it away is its shape: few
 * function words, few full sentences, short fragments, navigation lines and a familiar lexicon
 * (the signals jusText and trafilatura use). Every feature is oriented so that larger = noisier.
 */

import { STOPWORDS } from '../../text/stopwords.js';
import { codePointLength, words } from '../../text/tokens.js';

/** Names of the intrinsic features, in column order (after the nine reference features). */
export const INTRINSIC_FEATURES = [
  'stop_density',
  'sentence_share',
  'mean_sentence_len',
  'link_like',
  'boiler_lexicon',
] as const;

export type IntrinsicFeature = (typeof INTRINSIC_FEATURES)[number];

/** Words a line needs, ending in . ! or ?, to count as a full sentence. */
export const MIN_SENTENCE_WORDS = 5;

const TERMINAL = /[.!?]["'”’)\]]*$/;
const SEPARATORS = /\s[|»›·•]\s|^[|»›·•]|[|»›·•]$|\s\/\s/;
const NAV_START =
  /^(read more|read next|more\b|share\b|tweet\b|comments?\b|reply\b|next\b|previous\b|back to top|home\b|menu\b|search\b|skip to|see all|view all|show more|load more|click here|advertisement\b|sponsored\b|related\b|trending\b|popular\b|follow\b)/i;
const MONTHS = '(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\\.?';
const DATE = new RegExp(
  `(\\b${MONTHS}\\s+\\d{1,2},?\\s+\\d{4}\\b|\\b\\d{1,2}\\s+${MONTHS}\\s+\\d{4}\\b|\\b\\d{4}-\\d{2}-\\d{2}\\b|\\b\\d{1,2}/\\d{1,2}/\\d{2,4}\\b|\\b\\d+\\s+(min|mins|minutes|hours?|days?)\\s+(ago|read)\\b)`,
  'i',
);

/**
 * The built-in boilerplate lexicon: phrases that mark cookie banners, legal footers, account and
 * subscription prompts, sharing widgets and advertising. Matched case-insensitively per line.
 */
export const BOILER_LEXICON: readonly string[] = [
  'cookie',
  'privacy policy',
  'privacy notice',
  'terms of use',
  'terms of service',
  'terms and conditions',
  'all rights reserved',
  'copyright',
  '©',
  'subscribe',
  'unsubscribe',
  'newsletter',
  'sign in',
  'sign up',
  'log in',
  'login',
  'register',
  'create an account',
  'advertisement',
  'advertising',
  'follow us',
  'related articles',
  'related stories',
  'recommended',
  'share this',
  'share on',
  'facebook',
  'twitter',
  'linkedin',
  'instagram',
  'whatsapp',
  'email this',
  'contact us',
  'about us',
  'sitemap',
  'accessibility',
  'licensed under',
  'creative commons',
  'registered office',
  'registered in',
  'company no',
  'vat number',
  'this email',
  'this e-mail',
  'intended recipient',
  'manage preferences',
  'accept all',
  'powered by',
  'skip to content',
  'back to top',
];

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

const LEXICON_RE = new RegExp(
  BOILER_LEXICON.map((p) => (/^\w/.test(p) ? `\\b${escapeRe(p)}` : escapeRe(p))).join('|'),
  'i',
);

/** Non-empty trimmed lines of `text`. */
function lines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l.length > 0);
}

/** True when a line reads as a full sentence: ends in . ! ? (closing quotes allowed), ≥ 5 words. */
export function isSentenceLine(line: string): boolean {
  return TERMINAL.test(line) && words(line).length >= MIN_SENTENCE_WORDS;
}

/**
 * True when a line looks like navigation or a teaser rather than prose: fewer than 5 words without
 * terminal punctuation; a `|` `»` `›` `·` `•` separator; a navigation verb at the start ("Read
 * more", "Share", "Next", …); a date or "5 min read" on a line of ≤ 10 words; or a run of ≥ 3 words
 * at least 75% of which are capitalised (Title Case), without a terminal period.
 */
export function isLinkLikeLine(line: string): boolean {
  const ws = line.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w));
  const terminal = TERMINAL.test(line) || /[:;]$/.test(line);
  if (ws.length < MIN_SENTENCE_WORDS && !terminal) return true;
  if (SEPARATORS.test(line)) return true;
  if (NAV_START.test(line) && ws.length <= 12) return true;
  if (ws.length <= 10 && DATE.test(line)) return true;
  if (!terminal && ws.length >= 3) {
    const caps = ws.filter((w) => /^[\p{Lu}\p{N}]/u.test(w)).length;
    if (caps / ws.length >= 0.75) return true;
  }
  return false;
}

/** True when a line contains a {@link BOILER_LEXICON} phrase. */
export function hitsBoilerLexicon(line: string): boolean {
  return LEXICON_RE.test(line);
}

/**
 * The intrinsic features of one document's text, in {@link INTRINSIC_FEATURES} order:
 * - `stop_density` = 1 − (stop-words / words) (no words → 1);
 * - `sentence_share` = 1 − (code points in full-sentence lines / code points in all lines) (no lines → 1);
 * - `mean_sentence_len` = −mean words per sentence, sentences split at . ! ? + space and at line
 *   ends (no words → 0);
 * - `link_like` = share of lines that {@link isLinkLikeLine} (no lines → 0);
 * - `boiler_lexicon` = share of lines that {@link hitsBoilerLexicon} (no lines → 0).
 */
export function intrinsicFeatures(text: string): number[] {
  const ls = lines(text);
  const ws = words(text);
  let stops = 0;
  for (const w of ws) if (STOPWORDS.has(w.replace(/['’].*$/, ''))) stops++;
  const stopDensity = ws.length === 0 ? 1 : 1 - stops / ws.length;

  let total = 0;
  let inSentences = 0;
  let linkLike = 0;
  let lexicon = 0;
  let sentences = 0;
  let sentenceWords = 0;
  for (const l of ls) {
    const len = codePointLength(l);
    total += len;
    if (isSentenceLine(l)) inSentences += len;
    if (isLinkLikeLine(l)) linkLike++;
    if (hitsBoilerLexicon(l)) lexicon++;
    for (const s of l.split(/(?<=[.!?]["'”’)\]]*)\s+/)) {
      const n = words(s).length;
      if (n === 0) continue;
      sentences++;
      sentenceWords += n;
    }
  }
  const n = ls.length;
  return [
    stopDensity,
    total === 0 ? 1 : 1 - inSentences / total,
    sentences === 0 ? 0 : -sentenceWords / sentences,
    n === 0 ? 0 : linkLike / n,
    n === 0 ? 0 : lexicon / n,
  ];
}
