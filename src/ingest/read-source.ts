import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { isQuiverError, QuiverError } from '../errors.js';
import type { DocKind } from '../types.js';
import { DEFAULT_MAX_FILE_BYTES, detectKind, SNIFF_BYTES, validateBytes } from './detect.js';
import { readHead, unreadable } from './file-head.js';
import { encodingMeta, type DecodedText } from './encoding.js';
import { parseHtml } from './html.js';
import { readJsonl } from './jsonl.js';
import { readLargeText } from './large-text.js';
import { readMarkdown } from './markdown.js';
import type { ParsedDocument } from './parsed.js';
import { readPdf } from './pdf.js';
import { assertTreeSize } from './size-limits.js';
import { bytesInChunks, TEXT_PART_BYTES, textParts } from './text-parts.js';
import { parseText } from './text.js';

/** A part of a source that could not be read while the rest could (a bad JSONL line). */
export interface ReadError {
  /** `<source>:<line>` for a JSONL line. */
  source: string;
  /** 1-based line number, for JSONL. */
  line?: number;
  message: string;
}

/**
 * What the read functions return: usually one document; a JSONL file gives many plus per-line
 * errors; plain text over `TEXT_PART_BYTES` gives its parts lazily, read from disk as the caller
 * iterates (`for await` takes both shapes). Iterating a lazy result can still throw (INVALID_UTF8
 * or UNREADABLE if the file changed after it was checked): treat that as the file failing.
 */
export interface ReadResult {
  docs: Iterable<ParsedDocument> | AsyncIterable<ParsedDocument>;
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
 * Plain text (kind `txt`) over {@link TEXT_PART_BYTES} is never read whole: its first
 * {@link SNIFF_BYTES} are sniffed as {@link readBytes} would, streaming passes decide its encoding
 * as `decodeBytes` would (a BOM, UTF-8, a detected legacy encoding; `large-text.ts`) and check the
 * whole file reads in it (INVALID_UTF8 names the byte offset) and holds text, and the result yields
 * the parts of `textParts` (sources `<source>#part-0001`, …, `meta.encoding` when not UTF-8) as a
 * last pass streams the file again. Markdown, HTML and PDF over their ceilings (`size-limits.ts`)
 * → FILE_TOO_LARGE before reading.
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
    throw unreadable(path, cause);
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
  if (size > TEXT_PART_BYTES) {
    let head: Uint8Array;
    try {
      head = await readHead(path, SNIFF_BYTES);
    } catch (cause) {
      throw unreadable(path, cause);
    }
    const kind = options.kind ?? detectKind(path, head);
    assertTreeSize(kind, size, source);
    if (kind === 'txt') return { docs: await readLargeText(path, source, head, options.title), errors: [] };
  }
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (cause) {
    throw unreadable(path, cause);
  }
  return readBytes(bytes, source, { ...options, name: path });
}

/**
 * Validate bytes ({@link validateBytes}), pick the reader ({@link detectKind} on `options.name ??
 * source`, unless `options.kind`) and read. Plain text over `TEXT_PART_BYTES` is yielded in parts
 * as {@link readPath} does (from memory). Throws FILE_TOO_LARGE (over `maxBytes`, or Markdown, HTML
 * or PDF over its ceiling), EMPTY_FILE, BINARY_FILE, INVALID_UTF8, CORRUPT_FILE (a damaged PDF, a
 * file nested too deeply, or any `RangeError` such as a stack overflow inside a reader),
 * UNSUPPORTED_FILE (a kind with no reader).
 */
export async function readBytes(
  bytes: Uint8Array,
  source: string,
  options: ReadOptions & { name?: string } = {},
): Promise<ReadResult> {
  const kind = options.kind ?? detectKind(options.name ?? source, bytes);
  const decoded = validateBytes(bytes, kind, {
    maxBytes: options.maxBytes ?? DEFAULT_MAX_FILE_BYTES,
    source,
  });
  assertTreeSize(kind, bytes.length, source);
  // The UTF-8 readers (Markdown, JSONL, big text) get UTF-8: other encodings, and UTF-8 with bad
  // bytes (each a U+FFFD), are re-encoded once. The others read the decoded text (or, for PDF, the
  // bytes), so nothing is copied for them.
  const parts = kind === 'txt' && bytes.length > TEXT_PART_BYTES;
  const recode =
    (kind === 'md' || kind === 'jsonl' || parts) &&
    decoded !== undefined &&
    (decoded.encoding !== 'utf-8' || decoded.replaced > 0);
  const utf8 = recode ? new TextEncoder().encode(decoded.text) : bytes;
  if (parts) {
    const meta = decoded === undefined ? {} : encodingMeta(decoded);
    const partOptions = {
      ...(options.title === undefined ? {} : { title: options.title }),
      ...(Object.keys(meta).length === 0 ? {} : { meta }),
    };
    return { docs: textParts(bytesInChunks(utf8), source, partOptions), errors: [] };
  }
  const input =
    options.title === undefined ? { source, bytes: utf8 } : { source, bytes: utf8, title: options.title };
  try {
    return await readKind(kind, input, decoded);
  } catch (e) {
    if (e instanceof RangeError && !isQuiverError(e)) {
      throw new QuiverError(
        'CORRUPT_FILE',
        `quiver: ${source} cannot be parsed safely as ${kind} (${e.message}); it is probably nested too deeply`,
        { cause: e, details: { source, kind } },
      );
    }
    throw e;
  }
}

/**
 * Run the reader for `kind`. `decoded` is the text {@link validateBytes} decoded (absent for PDF):
 * the HTML and plain-text readers take it as it is, the others read `input.bytes` (UTF-8), and
 * each document's `meta` records a decoding other than clean UTF-8 (`encodingMeta`).
 */
async function readKind(
  kind: DocKind,
  input: { source: string; bytes: Uint8Array; title?: string },
  decoded: DecodedText | undefined,
): Promise<ReadResult> {
  const { source } = input;
  const text = decoded?.text ?? '';
  const meta = decoded === undefined ? {} : encodingMeta(decoded);
  const withMeta = (doc: ParsedDocument): ParsedDocument =>
    Object.keys(meta).length === 0 ? doc : { ...doc, meta: { ...doc.meta, ...meta } };
  switch (kind) {
    case 'md':
      return one(withMeta(await readMarkdown(input)));
    case 'html':
      return one(withMeta(parseHtml(text, source, input.title)));
    case 'pdf':
      return one(await readPdf(input));
    case 'txt':
      return one(withMeta(parseText(text, source, input.title)));
    case 'note':
      return one(withMeta({ ...parseText(text, source, input.title), kind: 'note' }));
    case 'jsonl': {
      const { documents, errors } = await readJsonl(input);
      return {
        docs: documents.map(withMeta),
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

/**
 * Every document of a read result in an array: for small results and tests. A lazily read large
 * text is then all in memory, so ingest iterates `docs` with `for await` instead.
 *
 * @example (await allDocs((await readPath('notes.md')).docs))[0]?.title
 */
export async function allDocs(docs: ReadResult['docs']): Promise<ParsedDocument[]> {
  if (Array.isArray(docs)) return docs as ParsedDocument[];
  const out: ParsedDocument[] = [];
  for await (const d of docs) out.push(d);
  return out;
}

function one(doc: ParsedDocument): ReadResult {
  return { docs: [doc], errors: [] };
}
