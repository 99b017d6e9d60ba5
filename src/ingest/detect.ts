import { QuiverError } from '../errors.js';
import type { DocKind } from '../types.js';

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

function hasPdfMagic(bytes: Uint8Array): boolean {
  // "%PDF-", allowing a few junk bytes before it as pdf.js does.
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

export interface ValidateOptions {
  /** Largest accepted size in bytes. Defaults to {@link DEFAULT_MAX_FILE_BYTES}. */
  maxBytes?: number;
  /** Used in messages and error details. */
  source?: string;
}

const fatalDecoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Check that `bytes` can be read as `kind`, throwing a coded QuiverError otherwise:
 * - more than `maxBytes` → FILE_TOO_LARGE;
 * - zero bytes → EMPTY_FILE;
 * - PDF: nothing more (a damaged PDF is the reader's CORRUPT_FILE);
 * - text kinds: a NUL byte in the first {@link SNIFF_BYTES}, or more than {@link MAX_CONTROL_SHARE}
 *   control characters there → BINARY_FILE; not valid UTF-8 → INVALID_UTF8; only whitespace → EMPTY_FILE.
 */
export function validateBytes(bytes: Uint8Array, kind: DocKind, options: ValidateOptions = {}): void {
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
  if (kind === 'pdf') return;
  const sniff = Math.min(bytes.length, SNIFF_BYTES);
  let control = 0;
  for (let i = 0; i < sniff; i++) {
    const b = bytes[i] ?? 0;
    if (b === 0)
      throw new QuiverError('BINARY_FILE', `quiver: ${source} looks binary (NUL byte at ${i})`, { details });
    if ((b < 32 && b !== 9 && b !== 10 && b !== 13 && b !== 12 && b !== 27) || b === 127) control++;
  }
  if (control > MAX_CONTROL_SHARE * sniff) {
    throw new QuiverError(
      'BINARY_FILE',
      `quiver: ${source} looks binary (${control} control bytes in the first ${sniff})`,
      {
        details,
      },
    );
  }
  let text: string;
  try {
    text = fatalDecoder.decode(bytes);
  } catch (cause) {
    throw new QuiverError('INVALID_UTF8', `quiver: ${source} is not valid UTF-8`, { cause, details });
  }
  if (text.trim() === '') throw new QuiverError('EMPTY_FILE', `quiver: ${source} has no text`, { details });
}
