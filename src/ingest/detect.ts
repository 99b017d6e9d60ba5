import { QuiverError } from '../errors.js';
import type { DocKind } from '../types.js';
import { bomEncoding, readerText, type DecodedText } from './encoding.js';

/** Largest file read, in bytes (50 MiB). */
export const DEFAULT_MAX_FILE_BYTES = 50 * 1024 * 1024;
/** How many leading bytes the binary sniffing looks at. */
export const SNIFF_BYTES = 8192;
/** Share of control characters (other than tab, LF, CR, FF, ESC) in the sniffed bytes above which a file is binary. */
export const MAX_CONTROL_SHARE = 0.1;

const EXTENSIONS: Record<string, DocKind> = {
  md: 'md',
  markdown: 'md',
  mdx: 'md',
  html: 'html',
  htm: 'html',
  xhtml: 'html',
  pdf: 'pdf',
  txt: 'txt',
  text: 'txt',
  rst: 'txt',
  log: 'txt',
  jsonl: 'jsonl',
  ndjson: 'jsonl',
};

/** Extensions quiver reads with a dedicated reader (others are read as plain text if they are text). */
export const KNOWN_EXTENSIONS: readonly string[] = Object.keys(EXTENSIONS);

/**
 * The reader for a file: by extension (case-insensitive: .md .markdown .mdx → md; .html .htm → html;
 * .pdf → pdf; .jsonl .ndjson → jsonl; .txt .text .rst .log → txt), else `pdf` when the bytes start
 * with `%PDF-`, else `txt`.
 */
export function detectKind(path: string, bytes: Uint8Array): DocKind {
  const base = path.split(/[\\/]/).pop() ?? path;
  const dot = base.lastIndexOf('.');
  const ext = dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
  const byExt = EXTENSIONS[ext];
  if (byExt !== undefined) return byExt;
  if (hasPdfMagic(bytes)) return 'pdf';
  return 'txt';
}

/** True when `bytes` start with `%PDF-`, allowing up to 1,024 junk bytes before it as pdf.js does. */
export function hasPdfMagic(bytes: Uint8Array): boolean {
  const limit = Math.min(bytes.length - 5, 1024);
  for (let i = 0; i <= limit; i++) {
    if (
      bytes[i] === 0x25 &&
      bytes[i + 1] === 0x50 &&
      bytes[i + 2] === 0x44 &&
      bytes[i + 3] === 0x46 &&
      bytes[i + 4] === 0x2d
    ) {
      return true;
    }
  }
  return false;
}

const SQLITE_MAGIC = 'SQLite format 3\0';

/**
 * Why the first {@link SNIFF_BYTES} of `bytes` look binary, or undefined when they look like text:
 * - `SQLite format 3\0` at the start → `"SQLite database"`;
 * - a NUL byte → `"NUL byte at <offset>"`;
 * - more than {@link MAX_CONTROL_SHARE} control bytes (below 32 other than tab, LF, CR, FF, ESC;
 *   or 127) → `"<n> control bytes in the first <sniffed>"`.
 *
 * Bytes that start with a UTF-16 byte-order mark are judged by their characters instead (UTF-16
 * text is full of NUL bytes): a NUL character → `"NUL character at <index>"`, and the same share of
 * characters text does not hold: controls, lone surrogates (decoded as U+FFFD), private-use
 * characters and noncharacters (binary bytes after `FF FE` read as about 13% of those; text as
 * none). Empty input → undefined. Only the sniffed prefix is read, so a caller may
 * pass just that prefix.
 *
 * @example binaryReason(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0])) // 'NUL byte at 4'
 */
export function binaryReason(bytes: Uint8Array): string | undefined {
  if (bytes.length >= SQLITE_MAGIC.length) {
    let sqlite = true;
    for (let i = 0; i < SQLITE_MAGIC.length && sqlite; i++) sqlite = bytes[i] === SQLITE_MAGIC.charCodeAt(i);
    if (sqlite) return 'SQLite database';
  }
  const sniff = Math.min(bytes.length, SNIFF_BYTES);
  const bom = bomEncoding(bytes);
  if (bom !== undefined && bom.encoding !== 'utf-8') {
    const text = new TextDecoder(bom.encoding, { ignoreBOM: true }).decode(bytes.subarray(bom.length, sniff));
    return controlReason(text.length, (i) => text.charCodeAt(i), 'character');
  }
  return controlReason(sniff, (i) => bytes[i] ?? 0, 'byte');
}

/** NUL or too many control units among the first `n` units `at(i)` gives (see {@link binaryReason}). */
function controlReason(n: number, at: (i: number) => number, unit: 'byte' | 'character'): string | undefined {
  let control = 0;
  for (let i = 0; i < n; i++) {
    const b = at(i);
    if (b === 0) return `NUL ${unit} at ${i}`;
    if ((b < 32 && b !== 9 && b !== 10 && b !== 13 && b !== 12 && b !== 27) || b === 127) control++;
    else if (unit === 'character' && notText(b)) control++;
  }
  if (control <= MAX_CONTROL_SHARE * n) return undefined;
  return `${control} control ${unit === 'byte' ? 'bytes' : 'or non-text characters'} in the first ${n}`;
}

/** A UTF-16 code unit text does not hold: U+FFFD (a lone surrogate, decoded), private use, U+FFFE/U+FFFF. */
function notText(c: number): boolean {
  return c === 0xfffd || (c >= 0xe000 && c <= 0xf8ff) || c === 0xfffe || c === 0xffff;
}

export interface ValidateOptions {
  /** Largest accepted size in bytes. Defaults to {@link DEFAULT_MAX_FILE_BYTES}. */
  maxBytes?: number;
  /** Used in messages and error details. */
  source?: string;
}

/**
 * Check that `bytes` can be read as `kind` and decode them, throwing a coded QuiverError otherwise:
 * - more than `maxBytes` → FILE_TOO_LARGE;
 * - zero bytes → EMPTY_FILE;
 * - PDF: nothing more (a damaged PDF is the reader's CORRUPT_FILE); returns undefined;
 * - text kinds: {@link binaryReason} finds the first {@link SNIFF_BYTES} binary (a NUL byte, more
 *   than {@link MAX_CONTROL_SHARE} control characters, SQLite's header) → BINARY_FILE; then
 *   `decodeBytes` (`encoding.ts`) picks the encoding (a BOM; for HTML its `<meta charset>`; UTF-8;
 *   a detected legacy encoding; windows-1252) and decodes, INVALID_UTF8 when nothing fits; only
 *   whitespace → EMPTY_FILE. Returns the text as a reader reads it (`readerText`: line endings
 *   normalised to LF) and the encoding chosen.
 */
export function validateBytes(
  bytes: Uint8Array,
  kind: DocKind,
  options: ValidateOptions = {},
): DecodedText | undefined {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_FILE_BYTES;
  const source = options.source ?? 'input';
  const details = { source };
  if (bytes.length > maxBytes) {
    throw new QuiverError(
      'FILE_TOO_LARGE',
      `quiver: ${source} is ${bytes.length} bytes, over the limit of ${maxBytes}`,
      {
        details: { ...details, bytes: bytes.length, maxBytes },
      },
    );
  }
  if (bytes.length === 0) throw new QuiverError('EMPTY_FILE', `quiver: ${source} is empty`, { details });
  if (kind === 'pdf') return undefined;
  const binary = binaryReason(bytes);
  if (binary !== undefined)
    throw new QuiverError('BINARY_FILE', `quiver: ${source} looks binary (${binary})`, { details });
  const decoded = readerText(bytes, { html: kind === 'html', source });
  if (decoded.text.trim() === '')
    throw new QuiverError('EMPTY_FILE', `quiver: ${source} has no text`, { details });
  return decoded;
}
