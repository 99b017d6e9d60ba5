import { lazyZod, type Zod } from '../_zod.js';
import { QuiverError } from '../errors.js';
import { exactlyHalf, float16Table, toFloat16Bits } from '../math/float16.js';
import type { DocumentVersion, FeedbackRecord, NoiseMark, TranscriptRecord } from '../store/store.js';
import type { BatchRecord } from '../types.js';

/**
 * The export format (`quiver export` / `quiver import`): JSON Lines, one record per line, the same
 * whatever backend wrote or reads it. The first line is the header, the last the trailer; in
 * between, in this order: meta entries, blobs, batches (oldest first), document versions (in the
 * order they were written), noise marks, feedback (log order), transcripts, verdicts.
 *
 * - header `{"type":"quiver-export","version":1,"schema":{"store":"sqlite","version":6},"exportedAt":…,"quiver":…}`
 *   (`schema` names the backend and its schema version it was read from, for people; an import
 *   reads any backend's file and refuses a `version` it does not know with SCHEMA);
 * - `{"type":"meta","key":…,"value":…}`; `{"type":"blob","name":…,"data":<base64>}`;
 * - `{"type":"batch","batch":<BatchRecord>}`;
 * - `{"type":"document","supersededBy":<batch id|null>,"document":<DocumentRecord>,"sections":[…],
 *   "chunks":[…],"vectors":[<VectorGroup>…]}`: every version, the live one (supersededBy null) and
 *   those an update or a removal superseded (so `undo` works after an import as before). Chunk ids
 *   are the exporting store's; the importing store numbers chunks anew and maps them;
 * - `{"type":"mark","mark":<NoiseMark>}`, `{"type":"feedback","row":<FeedbackRecord>}`,
 *   `{"type":"transcript","transcript":<TranscriptRecord>}`, `{"type":"verdict","key":…,"verdict":…}`;
 * - trailer `{"type":"end","records":<lines between header and trailer>}`: a file cut short is
 *   told from a whole one.
 *
 * Vectors are grouped per fingerprint and length ({@link VectorGroup}), bit for bit: half
 * precision when every value of the group is exactly a half (what the SQLite store keeps), single
 * precision otherwise; little-endian, base64.
 */
export const EXPORT_FORMAT_VERSION = 1;

export interface ExportHeader {
  type: 'quiver-export';
  version: number;
  schema: { store: string; version: number };
  exportedAt: string;
  quiver: string;
}

/** One fingerprint's vectors of one document version: `chunks[i]`'s vector is the i-th of `data`. */
export interface VectorGroup {
  fingerprint: string;
  dims: number;
  /** 'f16': IEEE binary16, 2 bytes a value; 'f32': binary32, 4 bytes a value; little-endian. */
  encoding: 'f16' | 'f32';
  /** Chunk ids (the exporting store's), one per vector. */
  chunks: number[];
  /** base64 of chunks.length × dims values. */
  data: string;
}

export type ExportRecord =
  | ExportHeader
  | { type: 'meta'; key: string; value: string }
  | { type: 'blob'; name: string; data: string }
  | { type: 'batch'; batch: BatchRecord }
  | ({ type: 'document' } & Omit<DocumentVersion, 'vectors'> & { vectors: VectorGroup[] })
  | { type: 'mark'; mark: NoiseMark }
  | { type: 'feedback'; row: FeedbackRecord }
  | { type: 'transcript'; transcript: TranscriptRecord }
  | { type: 'verdict'; key: string; verdict: boolean }
  | { type: 'end'; records: number };

export type ExportRecordType = ExportRecord['type'];

/** A record as one line of JSON (with its newline). JSON escapes \n and \r inside strings. */
export function encodeRecord(record: ExportRecord): string {
  return `${JSON.stringify(record)}\n`;
}

/** A document version's vectors as groups per (fingerprint, length), in first-seen order. */
export function encodeVectors(rows: DocumentVersion['vectors']): VectorGroup[] {
  const groups = new Map<string, { fingerprint: string; dims: number; rows: DocumentVersion['vectors'] }>();
  for (const r of rows) {
    const key = `${r.vector.length}:${r.fingerprint}`;
    let g = groups.get(key);
    if (g === undefined)
      groups.set(key, (g = { fingerprint: r.fingerprint, dims: r.vector.length, rows: [] }));
    g.rows.push(r);
  }
  return [...groups.values()].map((g) => {
    const half = g.rows.every((r) => exactlyHalf(r.vector));
    const width = half ? 2 : 4;
    const bytes = Buffer.alloc(g.rows.length * g.dims * width);
    g.rows.forEach((r, i) => {
      const base = i * g.dims * width;
      if (half) {
        for (let j = 0; j < g.dims; j++) bytes.writeUInt16LE(toFloat16Bits(r.vector[j]!), base + j * 2);
      } else {
        const bits = new Uint32Array(r.vector.buffer, r.vector.byteOffset, r.vector.length);
        for (let j = 0; j < g.dims; j++) bytes.writeUInt32LE(bits[j]!, base + j * 4);
      }
    });
    return {
      fingerprint: g.fingerprint,
      dims: g.dims,
      encoding: half ? ('f16' as const) : ('f32' as const),
      chunks: g.rows.map((r) => r.chunkId),
      data: bytes.toString('base64'),
    };
  });
}

/** The vectors of groups, back as rows; BAD_INPUT when a group's data does not fit its size. */
export function decodeVectors(groups: readonly VectorGroup[], where: string): DocumentVersion['vectors'] {
  const table = float16Table();
  const out: DocumentVersion['vectors'] = [];
  for (const g of groups) {
    const width = g.encoding === 'f16' ? 2 : 4;
    const bytes = Buffer.from(g.data, 'base64');
    if (bytes.length !== g.chunks.length * g.dims * width)
      throw new QuiverError(
        'BAD_INPUT',
        `${where}: vectors of ${g.fingerprint} hold ${bytes.length} bytes, want ${g.chunks.length} × ${g.dims} × ${width}`,
      );
    g.chunks.forEach((chunkId, i) => {
      const v = new Float32Array(g.dims);
      const base = i * g.dims * width;
      if (width === 2) {
        for (let j = 0; j < g.dims; j++) v[j] = table[bytes.readUInt16LE(base + j * 2)]!;
      } else {
        const bits = new Uint32Array(v.buffer);
        for (let j = 0; j < g.dims; j++) bits[j] = bytes.readUInt32LE(base + j * 4);
      }
      out.push({ fingerprint: g.fingerprint, chunkId, vector: v });
    });
  }
  return out;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function schemasOf(z: Zod) {
  const str = z.string();
  const int = z.number().int();
  const nstr = str.nullable();
  const nint = int.nullable();
  const header = z.object({
    type: z.literal('quiver-export'),
    version: int,
    schema: z.object({ store: str, version: int }),
    exportedAt: str,
    quiver: str,
  });
  const batch = z.object({
    id: str.min(1),
    startedAt: str,
    finishedAt: nstr,
    status: z.enum(['running', 'done', 'interrupted', 'rolled_back']),
    label: str,
    owner: z.object({ pid: int, host: str }).nullable(),
    added: int,
    updated: int,
    unchanged: int,
    removed: int,
    failed: int,
    errors: z.array(z.object({ source: str, code: str, message: str })),
  });
  const document = z.object({
    id: str.min(1),
    source: str,
    title: str,
    kind: z.enum(['md', 'html', 'pdf', 'txt', 'note', 'jsonl', 'code']),
    meta: z.record(str, z.unknown()),
    contentHash: str,
    pages: nint,
    addedAt: str,
    updatedAt: str,
    batchId: str,
    lang: nstr,
  });
  const section = z.object({
    id: str,
    docId: str,
    parentId: nstr,
    seq: int,
    level: int,
    title: str,
    breadcrumb: str,
    pageStart: nint,
    pageEnd: nint,
    text: str,
    lang: nstr,
  });
  const chunk = z.object({ id: int, docId: str, sectionId: str, ord: int, text: str, page: nint });
  const vectors = z.object({
    fingerprint: str.min(1),
    dims: int.min(0),
    encoding: z.enum(['f16', 'f32']),
    chunks: z.array(int),
    data: str.regex(BASE64, 'not base64'),
  });
  const mark = z.object({ docId: str, noisy: z.boolean(), reason: nstr, at: str });
  const feedback = z.object({
    id: str,
    at: str,
    q: str,
    askId: str,
    sectionId: nstr,
    docId: nstr,
    rank: nint,
    score: z.number().nullable(),
    signal: str,
    label: z.number(),
    weight: z.number(),
  });
  const transcript = z.object({
    id: str,
    at: str,
    question: str,
    configFingerprint: str,
    config: z.record(str, z.unknown()),
    prompt: z.object({ system: str, user: str }),
    answer: str,
    cited: z.array(str),
    invalidCitations: z.array(z.number()),
    generator: str,
    usage: z.object({ promptTokens: z.number(), completionTokens: z.number() }),
    timings: z.record(str, z.number()),
  });
  return z.discriminatedUnion('type', [
    header,
    z.object({ type: z.literal('meta'), key: str, value: str }),
    z.object({ type: z.literal('blob'), name: str, data: str.regex(BASE64, 'not base64') }),
    z.object({ type: z.literal('batch'), batch }),
    z.object({
      type: z.literal('document'),
      supersededBy: nstr,
      document,
      sections: z.array(section),
      chunks: z.array(chunk),
      vectors: z.array(vectors),
    }),
    z.object({ type: z.literal('mark'), mark }),
    z.object({ type: z.literal('feedback'), row: feedback }),
    z.object({ type: z.literal('transcript'), transcript }),
    z.object({ type: z.literal('verdict'), key: str, verdict: z.boolean() }),
    z.object({ type: z.literal('end'), records: int.min(0) }),
  ]);
}

let schema: ReturnType<typeof schemasOf> | undefined;

/**
 * One line of an export as its record, checked field by field (extra fields are dropped). BAD_INPUT
 * naming the line and the field when it is not JSON or not a record of this format.
 */
export function decodeRecord(line: string, lineNo: number): ExportRecord {
  const where = `quiver import: line ${lineNo}`;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (e) {
    throw new QuiverError('BAD_INPUT', `${where} is not JSON: ${(e as Error).message}`, { cause: e });
  }
  const parsed = (schema ??= schemasOf(lazyZod())).safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue === undefined || issue.path.length === 0 ? '' : ` at ${issue.path.join('.')}`;
    throw new QuiverError(
      'BAD_INPUT',
      `${where} is not a quiver export record${path}: ${issue?.message ?? 'invalid'}`,
    );
  }
  const r = parsed.data as ExportRecord;
  // Free-form objects as JSON.parse made them: a copy by key would turn a `__proto__` key into a
  // prototype and lose it (the store keeps such keys: it reads meta with JSON.parse too).
  if (r.type === 'document') {
    r.document.meta = (value as { document: { meta: Record<string, unknown> } }).document.meta;
    checkDocument(r, where);
  } else if (r.type === 'transcript') {
    r.transcript.config = (value as { transcript: TranscriptRecord }).transcript.config;
  }
  return r;
}

/** A document version's parts agree: sections and chunks belong to it, vectors name its chunks. */
function checkDocument(r: Extract<ExportRecord, { type: 'document' }>, where: string): void {
  const id = r.document.id;
  const sections = new Set(r.sections.map((s) => s.id));
  for (const s of r.sections)
    if (s.docId !== id || s.id !== `${id}#${s.seq}`)
      throw new QuiverError('BAD_INPUT', `${where}: section ${s.id} does not belong to document ${id}`);
  const chunks = new Set<number>();
  for (const c of r.chunks) {
    if (c.docId !== id || !sections.has(c.sectionId))
      throw new QuiverError(
        'BAD_INPUT',
        `${where}: chunk ${c.id} does not belong to a section of document ${id}`,
      );
    if (chunks.has(c.id)) throw new QuiverError('BAD_INPUT', `${where}: chunk ${c.id} appears twice`);
    chunks.add(c.id);
  }
  for (const g of r.vectors)
    for (const c of g.chunks)
      if (!chunks.has(c))
        throw new QuiverError(
          'BAD_INPUT',
          `${where}: a vector of ${g.fingerprint} names chunk ${c}, not one of document ${id}`,
        );
}
