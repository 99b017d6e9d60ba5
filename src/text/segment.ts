/**
 * Word boundaries for scripts written without spaces. FTS5's `unicode61` tokenizer (and `words`)
 * take a run of letters as one token, so a Chinese or Japanese sentence would be one "word" and
 * `咖啡` would never match inside `意式浓缩咖啡的萃取时间`. Before text is indexed or a query is
 * read, each run of Han, Hiragana, Katakana or Thai characters is split into words with
 * `Intl.Segmenter` (ICU's dictionary-based word breaks, built into Node) and the words are
 * separated by spaces; all other text passes unchanged.
 *
 * Edge cases: text without such characters is returned as is (one regex test, no segmenter);
 * punctuation and spaces inside a run are kept; a run with kana is segmented as Japanese, others
 * as Chinese (ICU uses one dictionary for both, the locale only tunes the rules); the result is
 * deterministic for a given Node (ICU) version.
 */
export const SPACELESS = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u;
const RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}ー々〆]+/gu;
const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;

const segmenters = new Map<string, Intl.Segmenter>();
function segmenter(locale: string): Intl.Segmenter {
  let s = segmenters.get(locale);
  if (s === undefined) segmenters.set(locale, (s = new Intl.Segmenter(locale, { granularity: 'word' })));
  return s;
}

/** `text` with the words of every space-less run separated by spaces (see above). */
export function segmentWords(text: string): string {
  if (!SPACELESS.test(text)) return text;
  return text.replace(RUN, (run) => {
    const words: string[] = [];
    for (const part of segmenter(KANA.test(run) ? 'ja' : 'zh').segment(run)) words.push(part.segment);
    return ` ${words.join(' ')} `;
  });
}
