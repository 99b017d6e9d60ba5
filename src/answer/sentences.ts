/**
 * A rule-based sentence splitter for answers and section texts. It splits only at whitespace, so
 * joining its output with single spaces gives the input with whitespace normalised, and every split
 * decision looks only at the current sentence and the next word, so splitting a sentence again
 * gives the sentence back.
 */

/** Abbreviations (lower-case, no final period) after which a period never ends a sentence. */
export const ABBREVIATIONS: ReadonlySet<string> = new Set(
  (
    'mr mrs ms dr prof sr jr st mt gen col lt sgt capt rev hon gov sen rep pres ' +
    'e.g i.e eg ie vs cf fig figs eq eqs al approx ca resp incl dept univ ed eds ' +
    'jan feb mar apr jun jul aug sep sept oct nov dec'
  ).split(' '),
);

/** Abbreviations that do not end a sentence when a number follows (`No. 5`, `p. 12`, `vol. 3`). */
export const NUMBER_ABBREVIATIONS: ReadonlySet<string> = new Set([
  'no',
  'nos',
  'vol',
  'vols',
  'p',
  'pp',
  'ch',
  'sec',
  'art',
]);

/** Terminal punctuation, closing quotes/brackets, then citation markers such as `[2]`, `[1, 3]`, `[1][2]`. */
const SENTENCE_END = /([.!?…]+)["'”’»)]*((?:\s*\[\s*\d+(?:\s*[,–-]\s*\d+)*\s*\])*)$/u;
/** A token that opens a citation marker: `[2]`, `[1,`. */
const CITATION_START = /^\[\s*\d/u;
/** A list marker line start: `-`, `*`, `•`, `1.`, `2)`, `a)`, `#`. */
const BULLET = /^(?:[-*•–+]|\d{1,3}[.)]|[a-z][)]|#{1,6})$/u;
/** A sentence that is only a list marker or numbering so far (`1.`, `(a)`, `iv.`). */
const MARKER_ONLY = /^(?:\(?\d{1,3}[.)]|\(?[a-z][.)]|\(?[ivx]{1,4}[.)]|[-*•–+])$/iu;
/** A line at least this long that ends without terminal punctuation is hard-wrapped prose: the next line continues it. */
export const WRAPPED_LINE_CHARS = 60;
const OPENERS = /^[(["'“‘«]+/u;

interface Token {
  text: string;
  /** Newlines in the whitespace before this token: 0, 1, or 2 for a blank line (or more). */
  breaks: 0 | 1 | 2;
}

function tokenize(text: string): Token[] {
  const out: Token[] = [];
  const re = /(\s*)(\S+)/gu;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const nl = (m[1]!.match(/\n/gu) ?? []).length;
    out.push({ text: m[2]!, breaks: nl === 0 ? 0 : nl === 1 ? 1 : 2 });
  }
  return out;
}

/** True when the period ending `word` belongs to an abbreviation, an initial or a dotted acronym. */
function isAbbreviation(word: string, next: string): boolean {
  const w = word.replace(OPENERS, '');
  const lower = w.toLowerCase();
  if (ABBREVIATIONS.has(lower)) return true;
  if (NUMBER_ABBREVIATIONS.has(lower) && /^\(?\d/u.test(next)) return true;
  // Dotted acronyms and abbreviations: U.S, e.g, i.e, a.m, Ph.D.
  if (/^(?:\p{L}{1,2}\.)+\p{L}{1,2}$/u.test(w)) return true;
  // Initials (J. R. R. Tolkien); a lone "I" only when another initial follows.
  if (/^\p{Lu}$/u.test(w)) return w !== 'I' || /^\p{Lu}\.$/u.test(next);
  return false;
}

/**
 * Does the whitespace between the current sentence `current` and the next word `next` end a
 * sentence by punctuation? Needs terminal punctuation (optionally followed by closing quotes and
 * `[n]` markers), a next word that does not start with a lower-case letter or a citation marker, a
 * sentence with at least one letter or digit that is more than a list marker, and, for a single
 * period, a word before it that is not an abbreviation, initial or dotted acronym.
 */
function endsSentence(current: string, next: string): boolean {
  const m = SENTENCE_END.exec(current);
  if (m === null) return false;
  if (/^\p{Ll}/u.test(next) || CITATION_START.test(next)) return false;
  const body = current.slice(0, m.index);
  if (!/[\p{L}\p{N}]/u.test(body)) return false;
  if (MARKER_ONLY.test(current)) return false;
  if (m[1] === '.') {
    const word = body.slice(body.search(/\S+$/u));
    if (isAbbreviation(word, next)) return false;
  }
  return true;
}

/**
 * Split `text` into sentences.
 *
 * Splits at whitespace after terminal punctuation (`.`, `!`, `?`, `…`), keeping closing quotes and
 * citation markers that follow (`warming. [2] Next` → `warming. [2]` | `Next`); at blank lines; and
 * at single newlines unless the next line continues the sentence (it starts with a lower-case letter,
 * a digit or `[n]`, or the line ended with `,` `;` `-`, or the line was long enough to be hard-wrapped
 * prose: `WRAPPED_LINE_CHARS`). A line starting with a list marker always
 * starts a new sentence. Periods inside tokens (3.14, v2.0.1, URLs, e-mail addresses) never split;
 * neither do abbreviations (e.g., i.e., Dr., Fig., et al., vs.), initials, dotted acronyms (U.S.)
 * or a word that follows in lower case. Whitespace inside a sentence is normalised to one space.
 * Never returns empty strings; empty or blank input gives [].
 * @example splitSentences('Water boils at 100 °C. [1] It freezes at 0 °C [2].') // two sentences
 */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  let current: string[] = [];
  let prev = '';
  let lineLength = 0;
  let previousLine = 0;
  for (const tok of tokenize(text)) {
    if (tok.breaks > 0) {
      previousLine = lineLength;
      lineLength = 0;
    }
    lineLength += tok.text.length + 1;
    if (current.length > 0) {
      const sentence = current.join(' ');
      let split: boolean;
      if (tok.breaks === 2) split = true;
      else if (endsSentence(sentence, tok.text)) split = true;
      else if (tok.breaks === 1) {
        const continues =
          /^[\p{Ll}\p{N}]/u.test(tok.text) ||
          CITATION_START.test(tok.text) ||
          /[,;\-–]$/u.test(prev) ||
          previousLine >= WRAPPED_LINE_CHARS;
        split = BULLET.test(tok.text) || !continues;
      } else split = false;
      if (split) {
        out.push(sentence);
        current = [];
      }
    }
    current.push(tok.text);
    prev = tok.text;
  }
  if (current.length > 0) out.push(current.join(' '));
  return out;
}
