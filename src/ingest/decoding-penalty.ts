/**
 * How implausible a decoded text is as human writing: the measure that picks among a detector's
 * guesses of a legacy encoding (a wrong single-byte guess turns letters into symbols or into
 * accented Latin gibberish; a wrong multi-byte guess glues scripts together). Pure.
 */

/** Non-ASCII characters that are ordinary in text although they are not letters or digits. */
const ORDINARY = new Set('\u00a0‘’‚“”„–—…•·«»‹›°€£¥¢©®™§¶×÷±¡¿′″\u200b\u200c\u200d\ufeff');

const SCRIPTS: readonly (readonly [string, RegExp])[] = [
  ['latin', /\p{Script=Latin}/u],
  ['cyrillic', /\p{Script=Cyrillic}/u],
  ['greek', /\p{Script=Greek}/u],
  ['arabic', /\p{Script=Arabic}/u],
  ['hebrew', /\p{Script=Hebrew}/u],
  ['cjk', /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u],
  ['thai', /\p{Script=Thai}/u],
];

/** Share of a text's Latin letters that may be non-ASCII before the text reads as mis-decoded. */
export const MAX_NON_ASCII_LATIN_SHARE = 0.5;

function scriptOf(ch: string): string {
  for (const [name, re] of SCRIPTS) if (re.test(ch)) return name;
  return 'other';
}

/**
 * The penalty of `text`, 0 for plausible writing:
 *
 *   (odd + mixed) / nonAscii  +  (nonAsciiLatin / latin > {@link MAX_NON_ASCII_LATIN_SHARE} ? 1 : 0)
 *
 * where `nonAscii` counts the non-ASCII characters; `odd` those that are not letters, marks,
 * decimal digits, spaces or common punctuation (`“ ” – — … € £ © °`, …): superscripts, box
 * drawing, control and private-use characters; `mixed` the non-ASCII letters in words (runs of
 * letters and marks) that mix two scripts (Latin with CJK excepted: Japanese and Chinese write
 * Latin words without spaces); `latin` counts Latin letters and `nonAsciiLatin` the accented ones
 * (Cyrillic read as windows-1252 is all accented Latin). No non-ASCII character → 0.
 *
 * @example decodingPenalty('Le café est très bon.') // 0
 * @example decodingPenalty('Ïðèâåò, ìèð!') // 1 (accented Latin only: Cyrillic read as windows-1252)
 */
export function decodingPenalty(text: string): number {
  let nonAscii = 0;
  let odd = 0;
  let latin = 0;
  let nonAsciiLatin = 0;
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    const ascii = code < 0x80;
    if (/[A-Za-z]/.test(ch)) latin++;
    if (ascii) continue;
    nonAscii++;
    if (/[\p{L}\p{M}]/u.test(ch)) {
      if (/\p{Script=Latin}/u.test(ch)) {
        latin++;
        nonAsciiLatin++;
      }
    } else if (!/[\p{Nd}\p{Zs}]/u.test(ch) && !ORDINARY.has(ch)) odd++;
  }
  if (nonAscii === 0) return 0;
  let mixed = 0;
  for (const [word] of text.matchAll(/[\p{L}\p{M}]+/gu)) {
    if (/^[A-Za-z]*$/.test(word)) continue; // an ASCII word (letters only: words are letter runs)
    const scripts = new Set<string>();
    let wordNonAscii = 0;
    for (const ch of word) {
      if (/\p{M}/u.test(ch)) continue;
      scripts.add(scriptOf(ch));
      if (ch.codePointAt(0)! >= 0x80) wordNonAscii++;
    }
    scripts.delete('other');
    if (scripts.size === 2 && scripts.has('latin') && scripts.has('cjk')) continue;
    if (scripts.size > 1) mixed += wordNonAscii;
  }
  const accented = latin > 0 && nonAsciiLatin / latin > MAX_NON_ASCII_LATIN_SHARE ? 1 : 0;
  return (odd + mixed) / nonAscii + accented;
}
