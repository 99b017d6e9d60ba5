/**
 * Large plain text read in bounded memory: the bytes arrive in chunks, are decoded and validated as
 * they come, and leave as a sequence of part documents of about {@link TEXT_PART_BYTES} each, cut at
 * paragraph or line boundaries. The whole file is never in memory.
 */
import { QuiverError } from '../errors.js';
import type { ParsedDocument } from './parsed.js';
import { parseText } from './text.js';
import { invalidUtf8Offset } from './utf8.js';
import { titleFromSource } from './_shared.js';

/**
 * Plain text larger than this (in bytes) is read in parts of about this size. 8 MiB keeps a part,
 * its chunks and its embeddings well inside a small heap (a 60 MB file reads in a 128 MB heap) while
 * ordinary text files stay one document.
 */
export const TEXT_PART_BYTES = 8 * 1024 * 1024;

/** Bytes read from disk at a time when streaming text (the read stream's `highWaterMark`). */
export const TEXT_READ_CHUNK_BYTES = 1024 * 1024;

/** A part never ends before this share of {@link TEXT_PART_BYTES}: the window searched for a cut. */
const CUT_WINDOW_START = 0.75;

/** Where part `n` (1-based) of `source` is recorded: `<source>#part-<n>`, `n` zero-padded to 4 digits. */
export function partSource(source: string, n: number): string {
  return `${source}#part-${String(n).padStart(4, '0')}`;
}

/**
 * Where to end a part of `text` whose UTF-8 size passed the part size: `lo` and `hi` are the UTF-16
 * indices where the size reached {@link CUT_WINDOW_START} of it and all of it. The cut (an index in
 * `(lo, hi]`) is just after the last blank line (`\n\n`) ending in that window, else after the last
 * line break, else after the last space or tab, else at `hi` (moved back one when that would split
 * a surrogate pair). `lo >= hi` → `hi`.
 *
 * @example cutIndex('aaaa\n\nbbbb\ncc', 2, 12) // 6 (after the blank line)
 */
export function cutIndex(text: string, lo: number, hi: number): number {
  if (lo >= hi) return hi;
  const para = text.lastIndexOf('\n\n', hi - 2);
  if (para >= 0 && para + 2 > lo) return para + 2;
  const line = text.lastIndexOf('\n', hi - 1);
  if (line >= lo) return line + 1;
  for (let i = hi - 1; i >= lo; i--) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x09) return i + 1;
  }
  const c = text.charCodeAt(hi - 1);
  return c >= 0xd800 && c <= 0xdbff ? hi - 1 : hi;
}

/**
 * The UTF-16 index in `text` where its UTF-8 encoding reaches `bytes` bytes (never inside a
 * surrogate pair); `text.length` when it is shorter.
 */
export function indexAtUtf8Bytes(text: string, bytes: number): number {
  let size = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const pair = c >= 0xd800 && c <= 0xdbff && i + 1 < text.length;
    const width = c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3;
    if (size + width > bytes) return i;
    size += width;
    if (pair) i++;
  }
  return text.length;
}

export interface TextPartsOptions {
  /** Part size in bytes. Defaults to {@link TEXT_PART_BYTES}. */
  partBytes?: number;
  /** Wins over the title found in the text (the parts get ` (part n)` after it). */
  title?: string;
  /** Added to every part's `meta` (how the file was decoded: `{ encoding }`). Defaults to none. */
  meta?: Record<string, unknown>;
}

/**
 * Decode a chunked UTF-8 stream as the plain-text reader does (a BOM dropped, CRLF and CR → LF),
 * yielding decoded pieces. A fatal streaming `TextDecoder` checks every byte: ill-formed UTF-8 →
 * QuiverError INVALID_UTF8 naming the byte offset of the first bad sequence (`details.offset`).
 */
export async function* decodeChunks(
  chunks: AsyncIterable<Uint8Array>,
  source: string,
): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let offset = 0; // bytes of the stream before `chunk`
  let tail: Uint8Array = new Uint8Array(0); // the last bytes seen, to find a bad sequence spanning chunks
  let cr = false; // the previous piece ended in '\r'
  const bad = (chunk: Uint8Array, final: boolean, cause: unknown): QuiverError => {
    // Re-validate from a sequence start in the kept tail through this chunk to place the error.
    let start = 0;
    while (start < tail.length && (tail[start]! & 0xc0) === 0x80) start++;
    const joined = new Uint8Array(tail.length - start + chunk.length);
    joined.set(tail.subarray(start), 0);
    joined.set(chunk, tail.length - start);
    const at = invalidUtf8Offset(joined, final);
    const where = offset - (tail.length - start) + Math.max(0, at);
    return new QuiverError('INVALID_UTF8', `quiver: ${source} is not valid UTF-8 (at byte ${where})`, {
      cause,
      details: { source, offset: where },
    });
  };
  const clean = (piece: string): string => {
    let text = cr && piece.startsWith('\n') ? piece.slice(1) : piece;
    cr = text.endsWith('\r');
    if (text.indexOf('\r') >= 0) text = text.replace(/\r\n?/g, '\n');
    return text;
  };
  for await (const chunk of chunks) {
    let piece: string;
    try {
      piece = decoder.decode(chunk, { stream: true });
    } catch (cause) {
      throw bad(chunk, false, cause);
    }
    offset += chunk.length;
    tail = chunk.length >= 3 ? chunk.slice(chunk.length - 3) : concat(tail, chunk).slice(-3);
    if (piece !== '') yield clean(piece);
  }
  let last: string;
  try {
    last = decoder.decode();
  } catch (cause) {
    throw bad(new Uint8Array(0), true, cause);
  }
  if (last !== '') yield clean(last);
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/**
 * Read a chunked plain-text stream as part documents, holding at most about one part in memory.
 *
 * Text accumulates until its UTF-8 size passes `partBytes`; a part then ends at the cut
 * {@link cutIndex} picks in the last quarter (a blank line, else a line break, else a space, else
 * exactly at the size). Part `n` (from 1) is `parseText` of its text: the text trimmed (so the
 * whitespace at a cut belongs to no part: the parts joined with that whitespace give the whole text
 * back, and joined with `\n\n` when every cut fell on a blank line between paragraphs of single
 * blank lines), source {@link partSource}`(source, n)`, title `<title> (part n)`, where `<title>` is
 * `options.title`, else the first line of the text (as the plain-text reader takes it), else the
 * file name; `meta` `{ ...options.meta, part: n, of_source: source }`. Whitespace-only parts are skipped (numbers
 * count only the parts yielded).
 *
 * Throws (while iterating) INVALID_UTF8 with the byte offset ({@link decodeChunks}).
 */
export async function* textParts(
  chunks: AsyncIterable<Uint8Array>,
  source: string,
  options: TextPartsOptions = {},
): AsyncGenerator<ParsedDocument> {
  const partBytes = options.partBytes ?? TEXT_PART_BYTES;
  let title = options.title;
  let buf = '';
  let bufBytes = 0;
  let n = 0;
  const part = (text: string): ParsedDocument | undefined => {
    if (title === undefined) {
      const found = parseText(text, source).title;
      title = found !== '' ? found : titleFromSource(source);
    }
    if (text.trim() === '') return undefined;
    n++;
    const doc = parseText(text, partSource(source, n), `${title} (part ${n})`);
    return { ...doc, meta: { ...options.meta, part: n, of_source: source } };
  };
  for await (const piece of decodeChunks(chunks, source)) {
    buf += piece;
    bufBytes += Buffer.byteLength(piece, 'utf8');
    while (bufBytes > partBytes) {
      const hi = indexAtUtf8Bytes(buf, partBytes);
      const lo = indexAtUtf8Bytes(buf, Math.floor(partBytes * CUT_WINDOW_START));
      const cut = Math.max(1, cutIndex(buf, lo, hi));
      const head = buf.slice(0, cut);
      buf = buf.slice(cut);
      bufBytes -= Buffer.byteLength(head, 'utf8');
      const doc = part(head);
      if (doc !== undefined) yield doc;
    }
  }
  const doc = part(buf);
  if (doc !== undefined) yield doc;
}

/**
 * Check a chunked plain-text stream without keeping it: ill-formed UTF-8 → INVALID_UTF8 with the
 * byte offset ({@link decodeChunks}); only whitespace → EMPTY_FILE. Run before {@link textParts} so a
 * bad file fails before any of its parts is stored.
 */
export async function validateTextStream(chunks: AsyncIterable<Uint8Array>, source: string): Promise<void> {
  let text = false;
  for await (const piece of decodeChunks(chunks, source)) if (!text && piece.trim() !== '') text = true;
  if (!text) throw new QuiverError('EMPTY_FILE', `quiver: ${source} has no text`, { details: { source } });
}

/** `bytes` as chunks of at most {@link TEXT_READ_CHUNK_BYTES} (views, not copies). */
export async function* bytesInChunks(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += TEXT_READ_CHUNK_BYTES)
    yield bytes.subarray(i, Math.min(bytes.length, i + TEXT_READ_CHUNK_BYTES));
}
