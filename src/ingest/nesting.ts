/**
 * Cheap, linear pre-scans that measure how deeply a Markdown or HTML file nests, so the tree parsers
 * (marked, the HTML reader) are never handed a file that would exhaust the heap or the stack.
 * Both scans are approximations tuned to over-count rather than under-count: a real document stays
 * far below the limits, and a hostile one cannot hide its depth from them.
 */
import { QuiverError } from '../errors.js';
import { htmlNestingDepth } from './html-nesting.js';

/**
 * Deepest Markdown container nesting read (`>` markers plus list levels on one line). marked
 * re-lexes each container's content, so its cost grows with depth × size: measured on this machine,
 * a 100-level list lexes in 70 ms, 400 levels (164 KB) take 1.1 s, 3,000 levels (9 MB) exhaust the
 * heap, and 5,000 nested `>` overflow the stack. Real documents nest a handful of levels;
 * markdown-it's default preset refuses at the same 100 (`maxNesting`).
 */
export const MAX_MARKDOWN_NESTING = 100;

/**
 * Deepest HTML element nesting read. Chromium's parser caps its tree at 512 levels; real pages stay
 * well under 100. Readability's cost grows faster than linearly with depth: measured here, 256 nested
 * `div`s take 0.6 s, 500 take 3 s, 1,000 take 17 s, and 3,000 overflow the stack.
 */
export const MAX_HTML_NESTING = 256;

/** The deepest nesting found and the 1-based line where it was first reached (0 and 0 for none). */
export interface NestingDepth {
  depth: number;
  line: number;
}

const SPACE = 0x20;
const TAB = 0x09;

/** {@link markdownNestingDepth}'s result: the deepest line, and the nesting-weighted size. */
export interface MarkdownNesting extends NestingDepth {
  /** Sum over lines of (line length in UTF-16 units + 1) × the line's depth. */
  work: number;
}

/**
 * Largest {@link MarkdownNesting.work} read: characters × nesting levels. marked copies a
 * container's content once per level, so its memory grows with this sum, not with the file size:
 * measured here, 4 MB nested 90 levels deep (≈ 377 M) peaked at 504 MB RSS and took 9 s. 2^28
 * (≈ 268 M) keeps a file under about 400 MB of heap while letting a 64 MiB file sit three levels
 * deep (a whole book inside a list in a quote).
 */
export const MAX_MARKDOWN_NESTING_WORK = 2 ** 28;

/**
 * The deepest container nesting of a Markdown text, by line, and the nesting-weighted size.
 *
 * A line's container markers are read left to right: optional spaces or tabs (tabs to the next
 * multiple of 4 columns), then `>` (and one optional space) or a list marker (`-`, `+`, `*`, or 1–9
 * digits and `.` or `)`, followed by a space, a tab or the end of the line), repeatedly. A run that is
 * a thematic break (`- - -`, `***`: three or more of one of `-*_` with only spaces or tabs) is not a
 * list marker.
 *
 * A line's depth is its own `>` count, plus the previous non-blank line's `>` count (a lazy line
 * continues the quotes above it; a quoted line is thus counted twice, erring high), plus the number
 * of list items open around and on it. Open items are kept by marker column in two readings, and the
 * larger count is taken: absolute columns, and columns after the line's leading `>` markers (the
 * parser strips those; a lazy line keeps its own). A line with list markers closes the open items
 * whose column is at or right of its first marker's; a line without any, after a blank
 * (whitespace-only) line, closes those at or right of its first content character; other lines (lazy
 * continuations, headings) close none. Blank lines have depth 0 and reset the carried `>` count.
 *
 * An approximation of marked's nesting, erring high on real documents: code blocks are scanned like
 * other text, and an item closes only when both readings put the line outside it. marked re-reads
 * tabs at every level and continues quotes lazily in ways CommonMark does not, so a contrived file
 * can nest a couple of levels deeper in marked than reported here (2 at most over 200,000 random
 * documents); the limits leave room for that, and a stack overflow is still caught per file.
 * Linear in the text length.
 *
 * Empty text → `{ depth: 0, line: 0, work: 0 }`.
 *
 * @example markdownNestingDepth('- a\n  - b\n    > c') // { depth: 3, line: 3, work: 40 }
 */
export function markdownNestingDepth(text: string): MarkdownNesting {
  // Marker columns of open list items, strictly increasing: absolute, and after the leading `>`s.
  const absOpen: number[] = [];
  const relOpen: number[] = [];
  const close = (open: number[], col: number): void => {
    while (open.length > 0 && open[open.length - 1]! >= col) open.pop();
  };
  let best = { depth: 0, line: 0 };
  let work = 0;
  let prevBlank = true;
  let carried = 0; // the previous non-blank line's `>` count
  let lineNo = 0;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    lineNo++;
    let i = start;
    let col = 0;
    let quotes = 0;
    let prefix = 0; // the column after the leading `>` markers
    let pushed = 0;
    // Thematic-break test for the rest of the line, built once per line, O(1) per marker after.
    let hr: BreakSuffix | undefined;
    for (;;) {
      while (i < end) {
        const c = text.charCodeAt(i);
        if (c === SPACE) col++;
        else if (c === TAB) col += 4 - (col % 4);
        else break;
        i++;
      }
      if (i >= end) break;
      const c = text.charCodeAt(i);
      if (c === 0x3e /* > */) {
        quotes++;
        i++;
        col++;
        const next = text.charCodeAt(i);
        if (i < end && (next === SPACE || next === TAB)) {
          col = next === TAB ? col + 4 - (col % 4) : col + 1;
          i++;
        }
        if (pushed === 0) prefix = col;
        continue;
      }
      const len = listMarkerLength(text, i, end);
      if (len === 0) break;
      if (c === 0x2d /* - */ || c === 0x2a /* * */) {
        hr ??= breakSuffix(text, start, end);
        if (hr.isBreakFrom(i)) break;
      }
      // Items opened on this line close nothing on it: close once, before the first push.
      if (pushed === 0) {
        close(absOpen, col);
        close(relOpen, col - prefix);
      }
      absOpen.push(col);
      relOpen.push(col - prefix);
      pushed++;
      i += len;
      col += len;
    }
    const blank = i >= end && quotes === 0 && pushed === 0;
    if (blank) carried = 0;
    else {
      if (pushed === 0 && prevBlank) {
        close(absOpen, col);
        close(relOpen, col - prefix);
      }
      const depth = carried + quotes + Math.max(absOpen.length, relOpen.length);
      carried = quotes;
      work += (end - start + 1) * depth;
      if (depth > best.depth) best = { depth, line: lineNo };
    }
    prevBlank = blank;
    start = end + 1;
  }
  return { ...best, work };
}

/** Length of a list marker at `i` (`-`, `+`, `*`, or digits and `.`/`)`) when a space, tab or EOL follows; else 0. */
function listMarkerLength(text: string, i: number, end: number): number {
  const c = text.charCodeAt(i);
  let len: number;
  if (c === 0x2d || c === 0x2b || c === 0x2a) len = 1;
  else {
    let j = i;
    while (j < end && j - i < 9 && text.charCodeAt(j) >= 0x30 && text.charCodeAt(j) <= 0x39) j++;
    const d = text.charCodeAt(j);
    if (j === i || j >= end || (d !== 0x2e && d !== 0x29)) return 0;
    len = j - i + 1;
  }
  const after = i + len;
  if (after >= end) return len;
  const a = text.charCodeAt(after);
  return a === SPACE || a === TAB ? len : 0;
}

interface BreakSuffix {
  /** True when `text[i..end)` is a thematic break. `i` must not decrease between calls. */
  isBreakFrom(i: number): boolean;
}

/**
 * The longest suffix of the line made of one break character and whitespace, with a forward-moving
 * counter of how many break characters lie at or after a position.
 */
function breakSuffix(text: string, lineStart: number, end: number): BreakSuffix {
  let last = end - 1;
  while (last >= lineStart && (text.charCodeAt(last) === SPACE || text.charCodeAt(last) === TAB)) last--;
  const ch = last >= lineStart ? text.charCodeAt(last) : -1;
  if (ch !== 0x2d && ch !== 0x2a && ch !== 0x5f) return { isBreakFrom: () => false };
  let from = last;
  let total = 0;
  for (let j = last; j >= lineStart; j--) {
    const c = text.charCodeAt(j);
    if (c === ch) {
      total++;
      from = j;
    } else if (c !== SPACE && c !== TAB) break;
  }
  let pos = from;
  let passed = 0; // break characters in [from, pos)
  return {
    isBreakFrom(i: number): boolean {
      if (i < from || text.charCodeAt(i) !== ch) return false;
      for (; pos < i; pos++) if (text.charCodeAt(pos) === ch) passed++;
      return total - passed >= 3;
    },
  };
}

/**
 * Throw CORRUPT_FILE when `text` (of `format` 'Markdown' or 'HTML') nests deeper than the limit
 * ({@link MAX_MARKDOWN_NESTING}, {@link MAX_HTML_NESTING}), naming the file, the depth found, its
 * line and the limit; or, for Markdown, when its nesting-weighted size passes
 * {@link MAX_MARKDOWN_NESTING_WORK}. Returns quietly otherwise.
 *
 * @example assertNesting('>'.repeat(20_000) + ' hi', 'Markdown', 'deep.md') // throws: "quiver: deep.md nests 20000 levels deep at line 1, over the Markdown limit of 100"
 */
export function assertNesting(text: string, format: 'Markdown' | 'HTML', source: string): void {
  const limit = format === 'Markdown' ? MAX_MARKDOWN_NESTING : MAX_HTML_NESTING;
  const md = format === 'Markdown' ? markdownNestingDepth(text) : undefined;
  const found = md ?? htmlNestingDepth(text, limit);
  if (found.depth > limit) {
    // The HTML scan stops at the first line over the limit, so its depth is a lower bound there.
    const depth = md === undefined ? `more than ${limit}` : String(found.depth);
    throw new QuiverError(
      'CORRUPT_FILE',
      `quiver: ${source} nests ${depth} levels deep at line ${found.line}, over the ${format} limit of ${limit}`,
      { details: { source, format, depth: found.depth, line: found.line, limit } },
    );
  }
  if (md !== undefined && md.work > MAX_MARKDOWN_NESTING_WORK) {
    throw new QuiverError(
      'CORRUPT_FILE',
      `quiver: ${source} holds ${md.work} characters × nesting levels (deepest ${md.depth} at line ${md.line}), over the Markdown limit of ${MAX_MARKDOWN_NESTING_WORK}`,
      {
        details: {
          source,
          format,
          work: md.work,
          depth: md.depth,
          line: md.line,
          limit: MAX_MARKDOWN_NESTING_WORK,
        },
      },
    );
  }
}
