/**
 * Which sentence of a section a claim rests on, for highlighting it in the side panel. Pure.
 */

/** A half-open character range `[start, end)` of a text. */
export interface Span {
  start: number;
  end: number;
}

/** The share of the claim's distinct words a sentence must hold to be highlighted. */
export const MIN_OVERLAP = 0.5;

/** Lower-cased words (letters and digits) of a text. */
export function wordsOf(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** A line that starts a block of its own in Markdown: heading, list item, quote, table row, fence. */
const BLOCK_START = /^\s*(?:#{1,6}\s|[-*+•]\s|\d{1,3}[.)]\s|>|\||```)/u;

/**
 * The text with its soft line breaks (a hard-wrapped paragraph's single newlines) turned into
 * spaces, so a sentence wrapped over lines reads and is found as one. Same length as the input,
 * so offsets into one are offsets into the other. Kept: blank lines, and the breaks before and
 * after a line that starts a block (heading, list item, quote, table row, code fence).
 *
 * @example reflow('Boil the\neggs.\n\n- Cool') // 'Boil the eggs.\n\n- Cool'
 */
export function reflow(text: string): string {
  const lines = text.split('\n');
  let out = lines[0] ?? '';
  for (let i = 1; i < lines.length; i++) {
    const prev = lines[i - 1]!;
    const line = lines[i]!;
    const soft =
      prev.trim() !== '' && line.trim() !== '' && !BLOCK_START.test(line) && !/^\s*(?:#|\||```)/u.test(prev);
    out += (soft ? ' ' : '\n') + line;
  }
  return out;
}

/**
 * The sentences of a text as spans, trimmed: a sentence ends after `.`, `!` or `?` followed by
 * white space, or at a line break (headings and list items are lines of their own).
 *
 * @example sentenceSpans('Boil it. Then cool.') // [{start: 0, end: 8}, {start: 9, end: 19}]
 */
export function sentenceSpans(text: string): Span[] {
  const spans: Span[] = [];
  let start = 0;
  const push = (s: number, e: number): void => {
    while (s < e && /\s/.test(text[s]!)) s++;
    while (e > s && /\s/.test(text[e - 1]!)) e--;
    if (e > s) spans.push({ start: s, end: e });
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '\n') {
      push(start, i);
      start = i + 1;
    } else if (
      (ch === '.' || ch === '!' || ch === '?') &&
      (i + 1 === text.length || /\s/.test(text[i + 1]!))
    ) {
      push(start, i + 1);
      start = i + 1;
    }
  }
  push(start, text.length);
  return spans;
}

/**
 * The sentence of `text` that holds the largest share of the claim's distinct words:
 * `overlap(s) = |words(claim) ∩ words(s)| / |words(claim)|`; the first of equal ones wins. Sentences
 * are read from `reflow(text)` (same offsets), so one wrapped over lines is found whole. Null when
 * the claim has no words or no sentence reaches `MIN_OVERLAP`. (A claim may carry a `Title:` label
 * the sentence lacks, so the share is of the claim's words, not an exact match.)
 */
export function claimSentence(text: string, claim: string): Span | null {
  text = reflow(text);
  const want = new Set(wordsOf(claim));
  if (want.size === 0) return null;
  let best: Span | null = null;
  let bestScore = 0;
  for (const span of sentenceSpans(text)) {
    const have = new Set(wordsOf(text.slice(span.start, span.end)));
    let shared = 0;
    for (const w of want) if (have.has(w)) shared++;
    const score = shared / want.size;
    if (score > bestScore) {
      best = span;
      bestScore = score;
    }
  }
  return bestScore >= MIN_OVERLAP ? best : null;
}
