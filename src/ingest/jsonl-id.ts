/**
 * How a JSON Lines record is named in the vault: its id scoped by the file it came from, so two
 * files may both have a `d2`, and typed, so `1` and `"1"` stay two records. The rule is stable (the
 * same record always gets the same source, hence the same document id) and reversible
 * ({@link parseJsonlSource}).
 */

/** A record id as JSON gives it: a non-empty string or a finite number. */
export type JsonlId = string | number;

/**
 * The id part of a record's source:
 * - a number → `n:` followed by its shortest JavaScript form (`7` → `n:7`, `1.5` → `n:1.5`,
 *   `1e21` → `n:1e+21`; `-0` is `n:0`);
 * - a string → itself, with `%` written `%25`, `#` written `%23`, and a leading `n:` written `n%3A`
 *   (so the part never holds `#`, and no string reads as a number).
 *
 * @example encodeJsonlId('d2') // 'd2'
 * @example encodeJsonlId(2) // 'n:2'
 * @example encodeJsonlId('n:2') // 'n%3A2'
 */
export function encodeJsonlId(id: JsonlId): string {
  if (typeof id === 'number') return `n:${String(id)}`;
  const escaped = id.replace(/[%#]/g, (c) => (c === '%' ? '%25' : '%23'));
  return escaped.startsWith('n:') ? `n%3A${escaped.slice(2)}` : escaped;
}

/**
 * The source of record `id` of the JSONL file recorded as `fileSource`: `<fileSource>#<encoded id>`
 * ({@link encodeJsonlId}).
 *
 * @example jsonlSource('corpus.jsonl', 'd2') // 'corpus.jsonl#d2'
 * @example jsonlSource('corpus.jsonl', 2) // 'corpus.jsonl#n:2'
 */
export function jsonlSource(fileSource: string, id: JsonlId): string {
  return `${fileSource}#${encodeJsonlId(id)}`;
}

/**
 * The file source and raw id of a source {@link jsonlSource} made, or null when `source` is not one
 * (no `#`, or an id part the rule cannot produce). Splits at the last `#`, since an encoded id never
 * holds one. Any `<file>#<x>` the rule could produce parses, so a non-JSONL source with a `#` (a
 * text part `big.txt#part-0001`) reads as one too: callers match the id against ids they know.
 *
 * @example parseJsonlSource('corpus.jsonl#n:2') // { fileSource: 'corpus.jsonl', id: 2 }
 * @example parseJsonlSource('notes.md') // null
 */
export function parseJsonlSource(source: string): { fileSource: string; id: JsonlId } | null {
  const hash = source.lastIndexOf('#');
  if (hash < 0) return null;
  const fileSource = source.slice(0, hash);
  const part = source.slice(hash + 1);
  let id: JsonlId;
  if (part.startsWith('n:')) {
    id = Number(part.slice(2));
    if (part.length === 2 || !Number.isFinite(id)) return null;
  } else {
    if (/%(?!25|23|3A)/.test(part)) return null;
    id = part.replace(/%(25|23|3A)/g, (_m, hex: string) => (hex === '25' ? '%' : hex === '23' ? '#' : ':'));
    if (id === '') return null;
  }
  return jsonlSource(fileSource, id) === source ? { fileSource, id } : null;
}
