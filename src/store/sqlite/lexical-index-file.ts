import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { open, readFile, rename, rm } from 'node:fs/promises';
import { lazyZod, type Zod } from '../../_zod.js';
import { LexicalIndex, type LexicalIndexParts } from './lexical-index.js';

/**
 * The saved lexical index beside a vault: `<db>.lexical`, one file: an 8-byte magic, a 4-byte
 * little-endian header length, a JSON header ({@link LexicalFileHeader}: the store's stamp and the
 * array lengths, plus the SHA-256 of everything after the header), padding to 8 bytes, then the
 * arrays of {@link LexicalIndexParts} in a fixed order, the terms joined by `\n` (FTS5 tokens
 * never contain one) and the section ids as a JSON array. Written to a temporary name, synced and renamed, so a crash never leaves a
 * file that looks valid; a truncated or garbled file fails the length or hash check.
 */

export const LEXICAL_FORMAT_VERSION = 2;
const MAGIC = Buffer.from('QVLEXIX1', 'latin1');

/** The file header's schema, built on first use (zod loads lazily). */
function headerSchemaOf({ z }: Zod) {
  return z.object({
    formatVersion: z.literal(LEXICAL_FORMAT_VERSION),
    /** What the store says the index reflects (`lexical-index-leg.ts`). */
    stamp: z.object({ rev: z.string(), reverts: z.number().int().min(0), maxRid: z.number().int() }),
    terms: z.number().int().min(0),
    postings: z.number().int().min(0),
    rows: z.number().int().min(0),
    termBytes: z.number().int().min(0),
    /** Bytes of the section ids (a JSON array of strings) after the terms. */
    nameBytes: z.number().int().min(0),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
  });
}

let header: ReturnType<typeof headerSchemaOf> | undefined;
const headerSchema = (): ReturnType<typeof headerSchemaOf> => (header ??= headerSchemaOf(lazyZod()));

export type LexicalFileHeader = import('zod').infer<ReturnType<typeof headerSchemaOf>>;
export type LexicalStamp = LexicalFileHeader['stamp'];

/** Why a saved index cannot be used. */
export type LexicalLoadFailure = 'missing' | 'corrupt' | 'version';

export function lexicalIndexPath(dbPath: string): string {
  return `${dbPath}.lexical`;
}

const pad8 = (n: number): number => (8 - (n % 8)) % 8;

function bodyParts(p: LexicalIndexParts, terms: Buffer, names: Buffer): Buffer[] {
  const b = (a: ArrayBufferView): Buffer => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
  const out: Buffer[] = [];
  let size = 0;
  for (const a of [p.rids, p.termStart, p.postRow, p.rowTokens, p.postBody, p.postTitle, p.postHeading]) {
    out.push(b(a));
    size += a.byteLength;
  }
  out.push(Buffer.alloc(pad8(size)), terms, names);
  return out;
}

/** Write `index` with its stamp to `path` atomically. */
export async function writeLexicalIndex(
  path: string,
  index: LexicalIndex,
  stamp: LexicalStamp,
): Promise<void> {
  const p = index.parts;
  const terms = Buffer.from(p.terms.join('\n'), 'utf8');
  const names = Buffer.from(JSON.stringify(p.sectionIds), 'utf8');
  const body = bodyParts(p, terms, names);
  const hash = createHash('sha256');
  for (const b of body) hash.update(b);
  const header: LexicalFileHeader = {
    formatVersion: LEXICAL_FORMAT_VERSION,
    stamp,
    terms: p.terms.length,
    postings: p.postRow.length,
    rows: p.rids.length,
    termBytes: terms.length,
    nameBytes: names.length,
    sha256: hash.digest('hex'),
  };
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const len = Buffer.alloc(4);
  len.writeUInt32LE(json.length);
  const head = [MAGIC, len, json, Buffer.alloc(pad8(MAGIC.length + 4 + json.length))];
  const tmp = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  const fh = await open(tmp, 'w');
  try {
    await fh.writev([...head, ...body]);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, path);
}

export type LexicalLoad =
  { ok: true; index: LexicalIndex; stamp: LexicalStamp } | { ok: false; reason: LexicalLoadFailure };

/** Read and verify a saved index; never throws for a bad file (says why instead). */
export async function readLexicalIndex(path: string): Promise<LexicalLoad> {
  if (!existsSync(path)) return { ok: false, reason: 'missing' };
  let buf: Buffer;
  try {
    buf = await readFile(path);
  } catch {
    return { ok: false, reason: 'corrupt' };
  }
  if (buf.length < 12 || !buf.subarray(0, 8).equals(MAGIC)) return { ok: false, reason: 'corrupt' };
  const jsonLen = buf.readUInt32LE(8);
  if (12 + jsonLen > buf.length) return { ok: false, reason: 'corrupt' };
  let raw: unknown;
  try {
    raw = JSON.parse(buf.subarray(12, 12 + jsonLen).toString('utf8'));
  } catch {
    return { ok: false, reason: 'corrupt' };
  }
  if ((raw as { formatVersion?: unknown } | null)?.formatVersion !== LEXICAL_FORMAT_VERSION) {
    return { ok: false, reason: typeof raw === 'object' && raw !== null ? 'version' : 'corrupt' };
  }
  const parsed = headerSchema().safeParse(raw);
  if (!parsed.success) return { ok: false, reason: 'corrupt' };
  const h = parsed.data;
  const start = 12 + jsonLen + pad8(12 + jsonLen);
  const sizes = [
    8 * h.rows,
    4 * (h.terms + 1),
    4 * h.postings,
    4 * h.rows,
    2 * h.postings,
    2 * h.postings,
    2 * h.postings,
  ];
  const arrays = sizes.reduce((a, b) => a + b, 0);
  if (buf.length !== start + arrays + pad8(arrays) + h.termBytes + h.nameBytes)
    return { ok: false, reason: 'corrupt' };
  const body = buf.subarray(start);
  if (createHash('sha256').update(body).digest('hex') !== h.sha256) return { ok: false, reason: 'corrupt' };
  // Views into the file's buffer when it is 8-byte aligned (the arrays are laid out aligned), else
  // one aligned copy of the body first.
  const aligned = body.byteOffset % 8 === 0 ? body : Buffer.from(new Uint8Array(body));
  const ab = aligned.buffer;
  let off = aligned.byteOffset;
  const at = (n: number): number => {
    const o = off;
    off += n;
    return o;
  };
  const rids = new Float64Array(ab, at(sizes[0]!), h.rows);
  const termStart = new Uint32Array(ab, at(sizes[1]!), h.terms + 1);
  const postRow = new Uint32Array(ab, at(sizes[2]!), h.postings);
  const rowTokens = new Uint32Array(ab, at(sizes[3]!), h.rows);
  const postBody = new Uint16Array(ab, at(sizes[4]!), h.postings);
  const postTitle = new Uint16Array(ab, at(sizes[5]!), h.postings);
  const postHeading = new Uint16Array(ab, at(sizes[6]!), h.postings);
  off -= aligned.byteOffset;
  off += pad8(arrays);
  const termText = aligned.subarray(off, off + h.termBytes).toString('utf8');
  const terms = h.terms === 0 ? [] : termText.split('\n');
  off += h.termBytes;
  let sectionIds: unknown;
  try {
    sectionIds = JSON.parse(aligned.subarray(off, off + h.nameBytes).toString('utf8'));
  } catch {
    return { ok: false, reason: 'corrupt' };
  }
  if (
    terms.length !== h.terms ||
    termStart[h.terms] !== h.postings ||
    !Array.isArray(sectionIds) ||
    sectionIds.length !== h.rows
  )
    return { ok: false, reason: 'corrupt' };
  const parts = {
    terms,
    termStart,
    postRow,
    postBody,
    postTitle,
    postHeading,
    rids,
    rowTokens,
    sectionIds: sectionIds as string[],
  };
  return { ok: true, index: new LexicalIndex(parts), stamp: h.stamp };
}

/** Only the stamp of a saved index (reads the header, not the arrays; no hash check). */
export async function readLexicalStamp(path: string): Promise<LexicalStamp | LexicalLoadFailure> {
  if (!existsSync(path)) return 'missing';
  try {
    const fh = await open(path, 'r');
    try {
      const head = Buffer.alloc(12);
      await fh.read(head, 0, 12, 0);
      if (!head.subarray(0, 8).equals(MAGIC)) return 'corrupt';
      const json = Buffer.alloc(head.readUInt32LE(8));
      await fh.read(json, 0, json.length, 12);
      const raw = JSON.parse(json.toString('utf8')) as { formatVersion?: unknown };
      if (raw.formatVersion !== LEXICAL_FORMAT_VERSION) return 'version';
      const h = headerSchema().safeParse(raw);
      return h.success ? h.data.stamp : 'corrupt';
    } finally {
      await fh.close();
    }
  } catch {
    return 'corrupt';
  }
}

/** Remove a saved index (missing is fine). */
export async function removeLexicalIndex(path: string): Promise<void> {
  await rm(path, { force: true });
}
