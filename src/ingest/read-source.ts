import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { QuiverError } from '../errors.js';
import type { DocKind } from '../types.js';
import { DEFAULT_MAX_FILE_BYTES, detectKind, validateBytes } from './detect.js';
import { readHtml } from './html.js';
import { readJsonl } from './jsonl.js';
import { readMarkdown } from './markdown.js';
import type { ParsedDocument } from './parsed.js';
import { readPdf } from './pdf.js';
import { parseText, readText } from './text.js';

/** A part of a source that could not be read while the rest could (a bad JSONL line). */
export interface ReadError {
  /** `<source>:<line>` for a JSONL line. */
  source: string;
  /** 1-based line number, for JSONL. */
  line?: number;
  message: string;
}

/** What the read functions return: usually one document; a JSONL file gives many plus per-line errors. */
export interface ReadResult {
  docs: ParsedDocument[];
  errors: ReadError[];
}

export interface ReadOptions {
  /** Largest accepted size in bytes. Defaults to {@link DEFAULT_MAX_FILE_BYTES}. */
  maxBytes?: number;
  /** Overrides the title found in the file (single-document sources). */
  title?: string;
  /** Forces a reader instead of detecting one from the name and bytes. */
  kind?: DocKind;
}

/** Text handed over directly (a note, a paste); no file involved. */
export interface LiteralText {
  text: string;
  /** Defaults to `text:<first 16 hex of SHA-256(text)>`. */
  source?: string;
  title?: string;
}

/** Bytes handed over directly (an upload). `source` (a name with an extension) picks the reader. */
export interface LiteralBytes {
  bytes: Uint8Array;
  source: string;
  title?: string;
}

/**
 * Read a file: checks it is a regular file no larger than `maxBytes` before reading, then
 * {@link readBytes}. `source` is the identity to record (the caller usually makes it relative to a
 * root); it defaults to `path`.
 *
 * Throws UNREADABLE (missing or unreadable), BAD_INPUT (a directory), FILE_TOO_LARGE, and the codes
 * of {@link readBytes}.
 */
export async function readPath(
  path: string,
  source: string = path,
  options: ReadOptions = {},
): Promise<ReadResult> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_FILE_BYTES;
  let size: number;
  try {
    const st = await stat(path);
    if (st.isDirectory()) {
      throw new QuiverError('BAD_INPUT', `quiver: ${path} is a directory; walk it with walkFiles`, {
        details: { path },
      });
    }
    size = st.size;
  } catch (cause) {
    if (cause instanceof QuiverError) throw cause;
    throw new QuiverError('UNREADABLE', `quiver: cannot read ${path} (${codeOf(cause)})`, {
      cause,
      details: { path },
    });
  }
  if (size > maxBytes) {
    throw new QuiverError(
      'FILE_TOO_LARGE',
      `quiver: ${path} is ${size} bytes, over the limit of ${maxBytes}`,
      {
        details: { source, bytes: size, maxBytes },
      },
    );
  }
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (cause) {
    throw new QuiverError('UNREADABLE', `quiver: cannot read ${path} (${codeOf(cause)})`, {
      cause,
      details: { path },
    });
  }
  return readBytes(bytes, source, { ...options, name: path });
}

/**
 * Validate bytes ({@link validateBytes}), pick the reader ({@link detectKind} on `options.name ??
 * source`, unless `options.kind`) and read. Throws FILE_TOO_LARGE, EMPTY_FILE, BINARY_FILE,
 * INVALID_UTF8, CORRUPT_FILE (a damaged PDF), UNSUPPORTED_FILE (a kind with no reader).
 */
export async function readBytes(
  bytes: Uint8Array,
  source: string,
  options: ReadOptions & { name?: string } = {},
): Promise<ReadResult> {
  const kind = options.kind ?? detectKind(options.name ?? source, bytes);
  validateBytes(bytes, kind, { maxBytes: options.maxBytes ?? DEFAULT_MAX_FILE_BYTES, source });
  const input = options.title === undefined ? { source, bytes } : { source, bytes, title: options.title };
  switch (kind) {
    case 'md':
      return one(await readMarkdown(input));
    case 'html':
      return one(await readHtml(input));
    case 'pdf':
      return one(await readPdf(input));
    case 'txt':
      return one(await readText(input));
    case 'note':
      return one({ ...(await readText(input)), kind: 'note' });
    case 'jsonl': {
      const { documents, errors } = await readJsonl(input);
      return {
        docs: documents,
        errors: errors.map((e) => ({ source: `${source}:${e.line}`, line: e.line, message: e.message })),
      };
    }
    default:
      throw new QuiverError('UNSUPPORTED_FILE', `quiver: no reader for kind ${kind} (${source})`, {
        details: { source, kind },
      });
  }
}

/**
 * Read literal text as a note (plain-text reader, kind `note`), synchronously. Source defaults to
 * `text:<first 16 hex of SHA-256(text)>`, so the same text is the same document. Whitespace-only
 * text → EMPTY_FILE.
 */
export function readLiteral(input: LiteralText): ReadResult {
  const source =
    input.source ?? `text:${createHash('sha256').update(input.text, 'utf8').digest('hex').slice(0, 16)}`;
  if (input.text.trim() === '')
    throw new QuiverError('EMPTY_FILE', `quiver: text for ${source} is empty`, { details: { source } });
  return one({ ...parseText(input.text, source, input.title), kind: 'note' });
}

/**
 * One entry point for every input shape: a file path, `{ text }` (a note) or `{ bytes, source }`
 * (an upload). For a path, the recorded source is the path as given.
 */
export async function readSource(
  input: string | LiteralText | LiteralBytes,
  options: ReadOptions = {},
): Promise<ReadResult> {
  if (typeof input === 'string') return readPath(input, input, options);
  if ('text' in input)
    return readLiteral(
      options.title === undefined || input.title !== undefined ? input : { ...input, title: options.title },
    );
  const title = input.title ?? options.title;
  return readBytes(input.bytes, input.source, title === undefined ? options : { ...options, title });
}

function one(doc: ParsedDocument): ReadResult {
  return { docs: [doc], errors: [] };
}

function codeOf(e: unknown): string {
  if (typeof e === 'object' && e !== null && 'code' in e && typeof e.code === 'string') return e.code;
  return e instanceof Error ? e.message : String(e);
}
