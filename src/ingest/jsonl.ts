import type { ParsedDocument } from './parsed.js';
import { decodeText, type ReaderInput } from './_shared.js';

/** A JSONL line that could not become a document (1-based line number). */
export interface JsonlLineError {
  line: number;
  message: string;
}

/** What {@link readJsonl} returns: the documents it could read and one error per bad line. */
export interface JsonlResult {
  documents: ParsedDocument[];
  errors: JsonlLineError[];
}

/**
 * Read JSON Lines: one document per non-blank line, an object with
 * - `id` or `_id` (string or number; becomes the document's `source`), required;
 * - `text` (string), required unless `title` is non-empty;
 * - `title` (string), optional: defaults to the id;
 * - `meta` (object), optional; a BEIR `metadata` object is used when `meta` is absent.
 *
 * A bad line (invalid JSON, not an object, missing id, no text) becomes a `{ line, message }` error;
 * the rest of the file is still read. `input.title` is ignored (each line has its own).
 *
 * @example readJsonl({ source: 'corpus.jsonl', bytes }) // BEIR corpus: { documents: [...5183], errors: [] }
 */
export async function readJsonl(input: ReaderInput): Promise<JsonlResult> {
  return parseJsonl(decodeText(input.bytes));
}

/** {@link readJsonl} on a decoded string. */
export function parseJsonl(text: string): JsonlResult {
  const documents: ParsedDocument[] = [];
  const errors: JsonlLineError[] = [];
  let start = 0;
  let lineNo = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    lineNo++;
    const line = text.slice(start, end).trim();
    start = end + 1;
    if (line === '') continue;
    const result = parseLine(line);
    if (typeof result === 'string') errors.push({ line: lineNo, message: result });
    else documents.push(result);
  }
  return { documents, errors };
}

function parseLine(line: string): ParsedDocument | string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (e) {
    return `invalid JSON: ${e instanceof Error ? e.message : String(e)}`;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return `expected a JSON object, got ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}`;
  }
  const o = value as Record<string, unknown>;
  const rawId = o['id'] ?? o['_id'];
  if (!(
    (typeof rawId === 'string' && rawId.trim() !== '') ||
    (typeof rawId === 'number' && Number.isFinite(rawId))
  )) {
    return 'missing "id" or "_id" (a non-empty string or a number)';
  }
  const id = String(rawId);
  const rawText = o['text'];
  if (rawText !== undefined && typeof rawText !== 'string')
    return `"text" must be a string, got ${typeof rawText}`;
  const rawTitle = o['title'];
  if (rawTitle !== undefined && rawTitle !== null && typeof rawTitle !== 'string') {
    return `"title" must be a string, got ${typeof rawTitle}`;
  }
  const text = (rawText ?? '').replace(/\r\n?/g, '\n').trim();
  const givenTitle = typeof rawTitle === 'string' ? rawTitle.replace(/\s+/g, ' ').trim() : '';
  if (text === '' && givenTitle === '') return `document ${id} has no "text" and no "title"`;
  const rawMeta = o['meta'] ?? o['metadata'];
  if (rawMeta !== undefined && (typeof rawMeta !== 'object' || rawMeta === null || Array.isArray(rawMeta))) {
    return `"meta" must be an object, got ${Array.isArray(rawMeta) ? 'an array' : typeof rawMeta}`;
  }
  const title = givenTitle !== '' ? givenTitle : id;
  return {
    source: id,
    title,
    kind: 'jsonl',
    meta: (rawMeta as Record<string, unknown> | undefined) ?? {},
    pages: null,
    sections: [{ level: 0, title, segments: [{ page: null, text: text === '' ? givenTitle : text }] }],
  };
}
