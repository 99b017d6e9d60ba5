import type { ParsedDocument } from './parsed.js';
import { encodingMeta, readerText } from './encoding.js';
import { clip, squash, titleFromSource, type ReaderInput } from './_shared.js';

/** Longest title taken from a plain-text file's first line, in code points. */
export const MAX_TEXT_TITLE_CHARS = 80;

/**
 * Read plain text: one root section holding the whole text (line breaks and blank-line paragraphs
 * kept, CRLF normalised). The bytes are decoded by `readerText` (a BOM, UTF-8, a detected legacy
 * encoding, windows-1252; INVALID_UTF8 when nothing fits), and `meta` records an encoding other
 * than UTF-8. Title: `input.title`, else the first non-empty line with leading `#`s stripped,
 * clipped to {@link MAX_TEXT_TITLE_CHARS} at a word boundary, else the file name.
 */
export async function readText(input: ReaderInput): Promise<ParsedDocument> {
  const decoded = readerText(input.bytes, { source: input.source });
  const doc = parseText(decoded.text, input.source, input.title);
  return { ...doc, meta: encodingMeta(decoded) };
}

/** {@link readText} on a decoded string (synchronous). */
export function parseText(text: string, origin: string, titleOverride?: string): ParsedDocument {
  const first = firstLineTitle(text);
  const title = titleOverride ?? (first !== '' ? first : titleFromSource(origin));
  return {
    source: origin,
    title,
    kind: 'txt',
    meta: {},
    pages: null,
    sections: [{ level: 0, title, segments: [{ page: null, text: text.replace(/\r\n?/g, '\n').trim() }] }],
  };
}

/** The first non-blank line, leading `#`s removed, whitespace squashed, clipped; '' when none. */
export function firstLineTitle(text: string): string {
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const line = squash(text.slice(start, end).replace(/^\s*#+/, ''));
    if (line.length > 0) return clip(line, MAX_TEXT_TITLE_CHARS);
    start = end + 1;
  }
  return '';
}
