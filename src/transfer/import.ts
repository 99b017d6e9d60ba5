import { QuiverError } from '../errors.js';
import { REINDEX_AFTER_KEY } from '../maintenance/reindex.js';
import type { DocumentVersion, FeedbackRecord, NoiseMark, Store } from '../store/store.js';
import type { BatchRecord } from '../types.js';
import {
  decodeRecord,
  decodeVectors,
  EXPORT_FORMAT_VERSION,
  type ExportRecord,
  type ExportRecordType,
} from './format.js';

/** Document versions written per store transaction. */
export const DEFAULT_IMPORT_GROUP = 200;
/** Batches, marks and feedback rows written per store call. */
const ROW_GROUP = 1000;

export interface ImportOptions {
  /** Document versions per transaction. Defaults to {@link DEFAULT_IMPORT_GROUP}. */
  groupSize?: number;
  /** Called after each transaction: document versions written so far, and in the file. */
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
}

/** What an import wrote: records per type, and the live documents among the document versions. */
export interface ImportReport {
  records: Partial<Record<ExportRecordType, number>>;
  documents: number;
  /** The export's header: where and when it was made. */
  header: Extract<ExportRecord, { type: 'quiver-export' }>;
}

/**
 * Lines of an export, read anew on each call (the import reads the file twice: once to check every
 * line, once to write).
 */
export type LineSource = () => AsyncIterable<string>;

/**
 * Fill an empty store from an export (src/transfer/format.ts). Two passes over `lines`: the first
 * checks every line (JSON, record shape, header version, the trailer's count, one live version per
 * document id) and writes nothing, so a malformed or truncated file changes nothing (BAD_INPUT
 * naming the line; SCHEMA for a format version this quiver does not know); the second writes, in
 * transactions of `groupSize` document versions. A store that is not empty (any document version,
 * batch, feedback row, transcript or mark) is refused with CONFLICT before anything is read.
 *
 * Chunk ids are the store's own: the importing store numbers chunks anew, and the one meta entry
 * that names a chunk (a resumable reindex's `reindex.after`) is mapped to the new numbering.
 * Should the store fail half-way (a full disk), what was written stays and the error says so.
 */
export async function importVault(
  store: Store,
  lines: LineSource,
  options: ImportOptions = {},
): Promise<ImportReport> {
  const groupSize = options.groupSize ?? DEFAULT_IMPORT_GROUP;
  if (!Number.isInteger(groupSize) || groupSize < 1)
    throw new QuiverError(
      'BAD_INPUT',
      `quiver: import groupSize must be a positive integer, got ${groupSize}`,
    );
  await refuseNonEmpty(store);
  const { header, total } = await check(lines);
  try {
    return await write(store, lines, header, total, groupSize, options);
  } catch (e) {
    if (e instanceof QuiverError && e.code === 'ABORTED') throw e;
    throw new QuiverError(
      e instanceof QuiverError ? e.code : 'STORE',
      `${(e as Error).message} (the import stopped part-way: the vault holds part of it; import again into a new, empty vault)`,
      { cause: e },
    );
  }
}

async function refuseNonEmpty(store: Store): Promise<void> {
  const found: string[] = [];
  if ((await store.scanDocumentVersions(0, 1)).length > 0) found.push('documents');
  if ((await store.listBatches(1)).length > 0) found.push('batches');
  if ((await store.listFeedback({ limit: 1 })).length > 0) found.push('feedback');
  if ((await store.listTranscripts({ limit: 1 })).length > 0) found.push('transcripts');
  if ((await store.listMarks()).length > 0) found.push('noise marks');
  if (found.length > 0)
    throw new QuiverError(
      'CONFLICT',
      `quiver import: the vault ${store.location} is not empty (it has ${found.join(', ')}); import into a new vault (--vault NEW.db); nothing was changed`,
      { details: { location: store.location, found } },
    );
}

/** The first pass: every line decodes, the header comes first and the trailer last with the right count. */
async function check(lines: LineSource): Promise<{ header: ImportReport['header']; total: number }> {
  let header: ImportReport['header'] | null = null;
  let ended = false;
  let n = 0;
  let records = 0;
  let total = 0;
  const live = new Set<string>();
  for await (const line of lines()) {
    n++;
    if (line.trim() === '') continue;
    if (ended) throw new QuiverError('BAD_INPUT', `quiver import: line ${n} comes after the end record`);
    const r = decodeRecord(line, n);
    if (header === null) {
      if (r.type !== 'quiver-export')
        throw new QuiverError(
          'BAD_INPUT',
          `quiver import: line ${n} is not a quiver export header; is this an export file?`,
        );
      if (r.version !== EXPORT_FORMAT_VERSION)
        throw new QuiverError(
          'SCHEMA',
          `quiver import: the export has format version ${r.version}; this quiver reads version ${EXPORT_FORMAT_VERSION}`,
        );
      header = r;
      continue;
    }
    if (r.type === 'quiver-export')
      throw new QuiverError('BAD_INPUT', `quiver import: line ${n} is a second header`);
    if (r.type === 'end') {
      if (r.records !== records)
        throw new QuiverError(
          'BAD_INPUT',
          `quiver import: the end record counts ${r.records} records but the file has ${records}`,
        );
      ended = true;
      continue;
    }
    records++;
    if (r.type === 'document') {
      total++;
      if (r.supersededBy === null) {
        if (live.has(r.document.id))
          throw new QuiverError(
            'BAD_INPUT',
            `quiver import: line ${n}: document ${r.document.id} has a second live version`,
          );
        live.add(r.document.id);
      }
      decodeVectors(r.vectors, `quiver import: line ${n}`);
    }
  }
  if (header === null) throw new QuiverError('BAD_INPUT', 'quiver import: the file is empty');
  if (!ended)
    throw new QuiverError(
      'BAD_INPUT',
      `quiver import: the file ends at line ${n} without its end record (cut short?)`,
    );
  return { header, total };
}

/** The second pass: write records in file order, grouping each kind into store calls. */
async function write(
  store: Store,
  lines: LineSource,
  header: ImportReport['header'],
  total: number,
  groupSize: number,
  options: ImportOptions,
): Promise<ImportReport> {
  const counts: Partial<Record<ExportRecordType, number>> = {};
  let versions: DocumentVersion[] = [];
  let batches: BatchRecord[] = [];
  let marks: NoiseMark[] = [];
  let feedback: FeedbackRecord[] = [];
  let done = 0;
  let documents = 0;
  let reindexAfter: number | null = null;
  let mappedAfter = 0;
  const flush = async (): Promise<void> => {
    if (batches.length > 0) await store.importBatches(batches);
    if (versions.length > 0) {
      const ids = await store.importDocumentVersions(versions);
      if (reindexAfter !== null)
        for (const [from, to] of ids) if (from <= reindexAfter && to > mappedAfter) mappedAfter = to;
      done += versions.length;
      options.onProgress?.(done, total);
    }
    if (marks.length > 0) await store.importMarks(marks);
    if (feedback.length > 0) await store.addFeedback(feedback);
    versions = [];
    batches = [];
    marks = [];
    feedback = [];
  };
  const pending = (): number => versions.length + batches.length + marks.length + feedback.length;
  let previous: ExportRecordType | null = null;
  let n = 0;
  for await (const line of lines()) {
    n++;
    if (line.trim() === '') continue;
    const r = decodeRecord(line, n);
    if (r.type === 'quiver-export' || r.type === 'end') continue;
    if (
      previous !== r.type ||
      (r.type === 'document' ? versions.length >= groupSize : pending() >= ROW_GROUP)
    ) {
      if (options.signal?.aborted === true) throw new QuiverError('ABORTED', 'quiver: import aborted');
      await flush();
    }
    previous = r.type;
    counts[r.type] = (counts[r.type] ?? 0) + 1;
    switch (r.type) {
      case 'meta':
        if (r.key === REINDEX_AFTER_KEY) reindexAfter = Number(r.value) || 0;
        else await store.setMeta(r.key, r.value);
        break;
      case 'blob':
        await store.putBlob(r.name, Buffer.from(r.data, 'base64'));
        break;
      case 'batch':
        batches.push(r.batch);
        break;
      case 'document': {
        const { type: _, vectors, ...version } = r;
        versions.push({ ...version, vectors: decodeVectors(vectors, `quiver import: line ${n}`) });
        if (r.supersededBy === null) documents++;
        break;
      }
      case 'mark':
        marks.push(r.mark);
        break;
      case 'feedback':
        feedback.push(r.row);
        break;
      case 'transcript':
        await store.putTranscript(r.transcript);
        break;
      case 'verdict':
        await store.putVerdict(r.key, r.verdict);
        break;
    }
  }
  await flush();
  if (reindexAfter !== null) await store.setMeta(REINDEX_AFTER_KEY, String(mappedAfter));
  return { records: counts, documents, header };
}
