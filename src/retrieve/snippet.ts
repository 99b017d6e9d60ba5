import { collapseWhitespace } from '../text/whitespace.js';

export const SNIPPET_CHARS = 300;

/**
 * A text as a snippet: whitespace runs read as one space, trimmed; when that is longer than
 * `SNIPPET_CHARS`, its first `SNIPPET_CHARS` characters up to the last whole word, then `…`.
 *
 * Reads only the start of a long text: the normalised prefix of n characters (n = `SNIPPET_CHARS` + 64, then ×4)
 * is the start of the normalised whole text, and once it is longer than `SNIPPET_CHARS` + 1 its
 * first `SNIPPET_CHARS` characters are the whole text's (a space at position `SNIPPET_CHARS` is
 * followed by a word inside the prefix, so trimming the end cannot remove it). Edge cases: `''`
 * and all-whitespace → `''`; exactly `SNIPPET_CHARS` characters → the text, no `…`; a first word
 * longer than `SNIPPET_CHARS` → its first `SNIPPET_CHARS` characters and `…`.
 */
export function snippet(text: string): string {
  for (let n = SNIPPET_CHARS + 64; n < text.length; n *= 4) {
    const t = collapseWhitespace(text.slice(0, n)).trimStart();
    if (t.length > SNIPPET_CHARS + 1) return cut(t);
  }
  const t = collapseWhitespace(text).trim();
  return t.length <= SNIPPET_CHARS ? t : cut(t);
}

/** A collapsed, trimmed text's first `SNIPPET_CHARS` characters up to its last space, and `…`. */
function cut(t: string): string {
  const head = t.slice(0, SNIPPET_CHARS);
  const space = head.lastIndexOf(' ');
  return `${space < 0 ? head : head.slice(0, space)}…`;
}
