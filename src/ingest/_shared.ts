/**
 * Small helpers shared by the readers (internal: not re-exported).
 */

/** What every reader takes: where it came from, its bytes, and an optional title that wins over the one found. */
export interface ReaderInput {
  source: string;
  bytes: Uint8Array;
  title?: string;
}

const decoder = new TextDecoder('utf-8');

/** Decode UTF-8 leniently (validation is `detect.ts`'s job), drop a BOM, normalise CRLF/CR to LF. */
export function decodeText(bytes: Uint8Array): string {
  const text = decoder.decode(bytes);
  return text.indexOf('\r') < 0 ? text : text.replace(/\r\n?/g, '\n');
}

/** The file name of `source` without folders and the last extension: `a/b/notes.v2.md` → `notes.v2`. */
export function titleFromSource(source: string): string {
  const base = source.split(/[\\/]/).pop() ?? source;
  const dot = base.lastIndexOf('.');
  const stem = dot > 0 ? base.slice(0, dot) : base;
  return stem.length > 0 ? stem : source;
}

/** Collapse whitespace runs to one space and trim. */
export function squash(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Cut to at most `max` code points at a word boundary when possible, ending with `…` if cut. */
export function clip(text: string, max: number): string {
  const points = [...text];
  if (points.length <= max) return text;
  const head = points.slice(0, max - 1).join('');
  const space = head.lastIndexOf(' ');
  return (space > max / 2 ? head.slice(0, space) : head).trimEnd() + '…';
}
