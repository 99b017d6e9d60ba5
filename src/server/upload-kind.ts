import { QuiverError } from '../errors.js';
import { binaryReason, detectKind, KNOWN_EXTENSIONS, SNIFF_BYTES } from '../ingest/detect.js';
import type { DocKind } from '../types.js';

/**
 * The file-type allow-list for uploads (operations.md, "Server security"). A file on disk with an
 * unknown extension is read as text when it looks like text (`detectKind`); an upload is held to
 * more: its extension must be one quiver has a reader for, and its first bytes must agree.
 */

/** The kinds an upload may be: those quiver ingests from a file (`note` and `code` are not uploads). */
export type UploadKind = Extract<DocKind, 'md' | 'html' | 'pdf' | 'txt' | 'jsonl'>;

const UPLOAD_KINDS: ReadonlySet<DocKind> = new Set<UploadKind>(['md', 'html', 'pdf', 'txt', 'jsonl']);

/** How many leading bytes `uploadKind` looks at: pass at least this many when the file is longer. */
export const UPLOAD_HEAD_BYTES = SNIFF_BYTES;

/** The extensions an upload may have (lower case, no dot): detect.ts's, restricted to {@link UploadKind}. */
export const UPLOAD_EXTENSIONS: readonly string[] = KNOWN_EXTENSIONS.filter((ext) =>
  UPLOAD_KINDS.has(detectKind(`f.${ext}`, new Uint8Array())),
);

const PDF_MAGIC = [0x25, 0x50, 0x44, 0x46, 0x2d]; // %PDF-

/** The extension of a base name as `detectKind` reads it: after the last dot, lower case; none for `.md` or `md`. */
function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
}

function reject(reason: string, name: string, details: Record<string, unknown> = {}): never {
  throw new QuiverError('BAD_INPUT', `quiver: upload ${JSON.stringify(name)} ${reason}`, {
    details: { field: 'name', name, ...details },
  });
}

/**
 * The kind of an uploaded file from its name (as `safeUploadName` returned it) and `head`, its
 * first bytes (at least {@link UPLOAD_HEAD_BYTES} of them, or the whole file when shorter), or a
 * BAD_INPUT QuiverError:
 * - the extension must be one of {@link UPLOAD_EXTENSIONS} (case-insensitive); anything else
 *   (`.exe`, `.png`, `.zip`, `.docx`, no extension) is rejected with the list of allowed ones;
 * - `pdf`: `head` must start with `%PDF-` (stricter than the reader, which allows junk before it,
 *   so a disguised file cannot pass by burying the magic);
 * - text kinds (`md`, `html`, `txt`, `jsonl`): `head` must look like text by `binaryReason`: no NUL
 *   byte, at most 10% control bytes, not a SQLite file. Text behind a UTF-16 byte-order mark, which
 *   quiver reads, is judged by its characters, so its NUL bytes are not held against it.
 *
 * The kind is detect.ts's `DocKind`, ready for the ingest readers. An empty `head` passes for a
 * text kind: the reader then rejects the file as EMPTY_FILE.
 *
 * @example uploadKind('notes.md', new TextEncoder().encode('# Title')) // 'md'
 * @example uploadKind('setup.exe', bytes) // throws BAD_INPUT: only .md, .markdown, … are accepted
 */
export function uploadKind(name: string, head: Uint8Array): UploadKind {
  const ext = extensionOf(name);
  if (!UPLOAD_EXTENSIONS.includes(ext)) {
    const allowed = UPLOAD_EXTENSIONS.map((e) => `.${e}`).join(', ');
    reject(
      `${ext === '' ? 'has no extension' : `has the extension .${ext}, which quiver does not ingest`}; allowed: ${allowed}`,
      name,
      { extension: ext, allowed: UPLOAD_EXTENSIONS },
    );
  }
  // A listed extension decides the kind (detect.ts's table), and every listed one maps to an UploadKind.
  const kind = detectKind(name, head) as UploadKind;
  if (kind === 'pdf') {
    if (!PDF_MAGIC.every((b, i) => head[i] === b))
      reject('is named .pdf but its bytes do not start with %PDF-', name);
    return kind;
  }
  const binary = binaryReason(head);
  if (binary !== undefined) reject(`is named .${ext} but looks binary (${binary})`, name, { binary });
  return kind;
}
