import { QuiverError } from '../errors.js';
import { isSpaceCode } from '../text/whitespace.js';

/** Target chunk size in characters (code points). Measured best at 256–512 in the anchor's evaluations. */
export const DEFAULT_CHUNK_CHARS = 512;
/** A piece shorter than this (code points, after trimming) merges into the previous chunk. */
export const DEFAULT_MIN_CHUNK_CHARS = 40;

export interface ChunkOptions {
  /** Target size in code points, ≥ 1. Defaults to {@link DEFAULT_CHUNK_CHARS}. */
  target?: number;
  /** Pieces under this many code points merge into the previous one, ≥ 0. Defaults to {@link DEFAULT_MIN_CHUNK_CHARS}. */
  minChars?: number;
}

/**
 * A cut found in the window is only taken by the preferred kinds (paragraph, line, sentence) when
 * it lies in the last part of the window; earlier cuts would leave a small chunk.
 */
const PREFERRED_CUT_FROM = 0.5;

/**
 * Split `text` into pieces of about `target` code points.
 *
 * Each window of `target` code points is cut at the last paragraph break (`\n\n`) in its second
 * half, else the last line break there, else the last sentence end (`.`, `!`, `?` followed by
 * whitespace, or `。！？`), else the last whitespace anywhere in the window, else a hard cut after
 * exactly `target` code points (so never inside a surrogate pair). Pieces are trimmed; whitespace-only
 * pieces are dropped; a piece under `minChars` code points merges into the previous one (the first is
 * never merged) when the merged chunk stays within `target + minChars` code points, joined by one
 * separator that keeps the break between them (blank line, newline or space). So every chunk has at
 * most `target + minChars` code points.
 *
 * Invariant: joining the chunks equals `text` up to the whitespace at cut points, and each chunk with
 * whitespace runs collapsed occurs, in order, in `text` with whitespace runs collapsed.
 * Empty or whitespace-only text → `[]`.
 *
 * Cost: one pass over the string plus a bounded backward scan per chunk (no regex backtracking).
 *
 * @example chunkText('One. Two.', { target: 5, minChars: 0 }) // ['One.', 'Two.']
 */
export function chunkText(text: string, options: ChunkOptions = {}): string[] {
  const target = options.target ?? DEFAULT_CHUNK_CHARS;
  const minChars = options.minChars ?? DEFAULT_MIN_CHUNK_CHARS;
  if (!Number.isInteger(target) || target < 1) {
    throw new QuiverError('BAD_INPUT', `quiver: chunk target must be an integer ≥ 1, got ${target}`);
  }
  if (!Number.isInteger(minChars) || minChars < 0) {
    throw new QuiverError('BAD_INPUT', `quiver: chunk minChars must be an integer ≥ 0, got ${minChars}`);
  }

  // Spans [start, end) in UTF-16 indices, trimmed of surrounding whitespace.
  const spans: [number, number][] = [];
  const n = text.length;
  let pos = skipSpace(text, 0);
  while (pos < n) {
    const windowEnd = advanceCodePoints(text, pos, target);
    let cut: number;
    if (windowEnd >= n) {
      cut = n;
    } else {
      cut = findCut(text, pos, windowEnd);
    }
    const end = trimEnd(text, pos, cut);
    if (end > pos) spans.push([pos, end]);
    pos = skipSpace(text, cut);
  }

  // Merge short pieces into the previous one (the first is never merged), joined by one separator
  // that keeps the kind of break between them, and only while the result stays within target + minChars.
  const out: string[] = [];
  const sizes: number[] = [];
  let prevEnd = 0;
  for (const [start, end] of spans) {
    const size = countCodePoints(text, start, end, Infinity);
    const last = out.length - 1;
    const prevSize = sizes[last];
    if (prevSize !== undefined && size < minChars && prevSize + 2 + size <= target + minChars) {
      const sep = separatorFor(text, prevEnd, start);
      out[last] = (out[last] ?? '') + sep + text.slice(start, end);
      sizes[last] = prevSize + sep.length + size;
    } else {
      out.push(text.slice(start, end));
      sizes.push(size);
    }
    prevEnd = end;
  }
  return out;
}

/** The break to keep between two merged pieces: a blank line, a newline, a space, or nothing after a hard cut. */
function separatorFor(text: string, from: number, to: number): string {
  const gap = text.slice(from, to);
  if (gap.length === 0) return ''; // a hard cut: the pieces were adjacent
  const first = gap.indexOf('\n');
  if (first < 0) return ' ';
  return gap.indexOf('\n', first + 1) >= 0 ? '\n\n' : '\n';
}

/** Best cut position in (pos, windowEnd]; the piece is text[pos, cut). */
function findCut(text: string, pos: number, windowEnd: number): number {
  const preferredFrom = pos + Math.max(1, Math.floor((windowEnd - pos) * PREFERRED_CUT_FROM));

  // Paragraph break: "\n" followed by optional spaces and another "\n", latest in window.
  let lastLine = -1;
  let lastSentence = -1;
  let lastSpace = -1;
  // The char at windowEnd itself may be the break we want (cut exactly at the window's end).
  for (let i = windowEnd; i > pos; i--) {
    const c = text.charCodeAt(i);
    if (c === 10 /* \n */) {
      if (i >= preferredFrom && isParagraphBreakAt(text, i, pos)) return i;
      if (lastLine < 0 && i >= preferredFrom) lastLine = i;
      if (lastSpace < 0) lastSpace = i;
    } else if (isSpaceCode(c)) {
      if (lastSpace < 0) lastSpace = i;
      if (lastSentence < 0 && i >= preferredFrom + 1) {
        const p = text.charCodeAt(i - 1);
        if (p === 46 /* . */ || p === 33 /* ! */ || p === 63 /* ? */) lastSentence = i;
      }
    } else if (
      lastSentence < 0 &&
      i >= preferredFrom &&
      i < windowEnd &&
      (c === 0x3002 || c === 0xff01 || c === 0xff1f)
    ) {
      // CJK full stop / exclamation / question mark: cut right after it.
      lastSentence = i + 1;
    }
  }
  if (lastLine >= 0) return lastLine;
  if (lastSentence >= 0) return lastSentence;
  if (lastSpace > pos) return lastSpace;
  return windowEnd;
}

/** True when the "\n" at i closes a blank line (another "\n" before it, only spaces between). */
function isParagraphBreakAt(text: string, i: number, floor: number): boolean {
  for (let j = i - 1; j > floor; j--) {
    const c = text.charCodeAt(j);
    if (c === 10) return true;
    if (c !== 32 && c !== 9 && c !== 13) return false;
  }
  return false;
}

/** Index after `count` code points from `pos` (clamped to the end). */
function advanceCodePoints(text: string, pos: number, count: number): number {
  const n = text.length;
  let i = pos;
  for (let k = 0; k < count && i < n; k++) {
    const c = text.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < n && isLowSurrogate(text.charCodeAt(i + 1)) ? 2 : 1;
  }
  return i;
}

/** Code points in text[s, e), counting no further than `cap`. */
function countCodePoints(text: string, s: number, e: number, cap: number): number {
  let k = 0;
  for (let i = s; i < e && k < cap; k++) {
    const c = text.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < e && isLowSurrogate(text.charCodeAt(i + 1)) ? 2 : 1;
  }
  return k;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

function skipSpace(text: string, i: number): number {
  const n = text.length;
  while (i < n && isSpaceCode(text.charCodeAt(i))) i++;
  return i;
}

function trimEnd(text: string, floor: number, end: number): number {
  while (end > floor && isSpaceCode(text.charCodeAt(end - 1))) end--;
  return end;
}
