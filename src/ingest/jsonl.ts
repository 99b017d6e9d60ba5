import { encodeJsonlId, jsonlSource, type JsonlId } from './jsonl-id.js';
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
 * - `id` or `_id` (a non-empty string or a finite number), required. The document's `source` is the
 *   id scoped by the file, {@link jsonlSource}`(input.source, id)`: `corpus.jsonl#d2` for `"d2"`,
 *   `corpus.jsonl#n:2` for `2`, so files never collide and `1` and `"1"` stay apart. The raw id is
 *   kept as `meta.id` (its JSON type too), over any `id` inside `meta`;
 * - `text` (string), required unless `title` is non-empty;
 * - `title` (string), optional: defaults to the id as written (`d2`, `2`);
 * - `meta` (object), optional; a BEIR `metadata` object is used when `meta` is absent.
 *
 * A bad line (invalid JSON, not an object, missing id, no text) becomes a `{ line, message }` error;
 * the rest of the file is still read. A repeated id keeps the last line (the document sits where
 * that line is) and reports each earlier one: `duplicate id "d2" at line 3, line 7 wins`. Errors
 * come in line order. `input.title` is ignored (each line has its own).
 *
 * @example readJsonl({ source: 'corpus.jsonl', bytes }) // BEIR corpus: { documents: [...5183], errors: [] }
 */
export async function readJsonl(input: ReaderInput): Promise<JsonlResult> {
  return parseJsonl(decodeText(input.bytes), input.source);
}

/** {@link readJsonl} on a decoded string; `fileSource` scopes the ids (`<fileSource>#<id>`). */
export function parseJsonl(text: string, fileSource: string): JsonlResult {
  const byId = new Map<string, { doc: ParsedDocument; line: number; id: JsonlId }>();
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
    const result = parseLine(line, fileSource);
    if (typeof result === 'string') {
      errors.push({ line: lineNo, message: result });
      continue;
    }
    const key = encodeJsonlId(result.id);
    const earlier = byId.get(key);
    if (earlier !== undefined) {
      errors.push({
        line: earlier.line,
        message: `duplicate id ${JSON.stringify(result.id)} at line ${earlier.line}, line ${lineNo} wins`,
      });
      byId.delete(key); // the document moves to where the winning line is
    }
    byId.set(key, { doc: result.doc, line: lineNo, id: result.id });
  }
  errors.sort((a, b) => a.line - b.line);
  return { documents: [...byId.values()].map((e) => e.doc), errors };
}

function parseLine(line: string, fileSource: string): { doc: ParsedDocument; id: JsonlId } | string {
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
    id: rawId,
    doc: {
      source: jsonlSource(fileSource, rawId),
      title,
      kind: 'jsonl',
      meta: { ...((rawMeta as Record<string, unknown> | undefined) ?? {}), id: rawId },
      pages: null,
      sections: [{ level: 0, title, segments: [{ page: null, text: text === '' ? givenTitle : text }] }],
    },
  };
}
