import { QuiverError } from '../errors.js';
import type { Store } from '../store/store.js';
import { VERSION } from '../version.js';
import {
  encodeRecord,
  encodeVectors,
  EXPORT_FORMAT_VERSION,
  type ExportRecord,
  type ExportRecordType,
} from './format.js';

/** Document versions read from the store per page. */
export const DEFAULT_EXPORT_PAGE = 200;
/** Feedback rows, transcripts and verdicts read per page. */
const ROW_PAGE = 1000;

export interface ExportOptions {
  /** Document versions per page read from the store. Defaults to {@link DEFAULT_EXPORT_PAGE}. */
  pageSize?: number;
  /** Called after each page: live documents written so far and the live documents in the vault. */
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
  /** The header's `exportedAt`. Defaults to now. */
  now?: () => Date;
}

/** What an export wrote: records per type (header and trailer not counted). */
export interface ExportReport {
  records: Partial<Record<ExportRecordType, number>>;
  /** Live documents (document records whose version is the live one). */
  documents: number;
}

/**
 * Write the whole vault to `write` as export lines (src/transfer/format.ts), page by page: never
 * more than one page of document versions (or of feedback, transcripts, verdicts) in memory.
 * `write` resolves when the line may be followed by the next (a stream's backpressure). The store
 * must not change meanwhile: the caller holds the writer slot (`Vault.export`).
 */
export async function exportVault(
  store: Store,
  write: (line: string) => Promise<void>,
  options: ExportOptions = {},
): Promise<ExportReport> {
  const pageSize = options.pageSize ?? DEFAULT_EXPORT_PAGE;
  if (!Number.isInteger(pageSize) || pageSize < 1)
    throw new QuiverError('BAD_INPUT', `quiver: export pageSize must be a positive integer, got ${pageSize}`);
  const counts: Partial<Record<ExportRecordType, number>> = {};
  let lines = 0;
  const emit = async (r: ExportRecord): Promise<void> => {
    counts[r.type] = (counts[r.type] ?? 0) + 1;
    lines++;
    await write(encodeRecord(r));
  };
  const checkAbort = (): void => {
    if (options.signal?.aborted === true) throw new QuiverError('ABORTED', 'quiver: export aborted');
  };
  const stats = await store.stats();
  await write(
    encodeRecord({
      type: 'quiver-export',
      version: EXPORT_FORMAT_VERSION,
      schema: { store: store.kind, version: stats.schemaVersion },
      exportedAt: (options.now?.() ?? new Date()).toISOString(),
      quiver: VERSION,
    }),
  );
  for (const [key, value] of Object.entries(await store.listMeta())) await emit({ type: 'meta', key, value });
  for (const name of await store.listBlobNames()) {
    const data = await store.getBlob(name);
    if (data !== null) await emit({ type: 'blob', name, data: Buffer.from(data).toString('base64') });
  }
  const batches = await store.listBatches(Number.MAX_SAFE_INTEGER);
  for (const batch of batches.reverse()) await emit({ type: 'batch', batch });

  let documents = 0;
  for (let after = 0; ;) {
    checkAbort();
    const page = await store.scanDocumentVersions(after, pageSize);
    if (page.length === 0) break;
    for (const { position: _, vectors, ...version } of page) {
      await emit({ type: 'document', ...version, vectors: encodeVectors(vectors) });
      if (version.supersededBy === null) documents++;
    }
    after = page[page.length - 1]!.position;
    options.onProgress?.(documents, stats.documents);
  }

  for (const mark of await store.listMarks()) await emit({ type: 'mark', mark });
  for (let offset = 0; ; offset += ROW_PAGE) {
    checkAbort();
    const rows = await store.listFeedback({ order: 'oldest', limit: ROW_PAGE, offset });
    for (const row of rows) await emit({ type: 'feedback', row });
    if (rows.length < ROW_PAGE) break;
  }
  for (let offset = 0; ; offset += ROW_PAGE) {
    checkAbort();
    const rows = await store.listTranscripts({ limit: ROW_PAGE, offset });
    for (const transcript of rows) await emit({ type: 'transcript', transcript });
    if (rows.length < ROW_PAGE) break;
  }
  for (let after: string | null = null; ;) {
    const rows = await store.listVerdicts(after, ROW_PAGE);
    for (const v of rows) await emit({ type: 'verdict', key: v.key, verdict: v.verdict });
    if (rows.length < ROW_PAGE) break;
    after = rows[rows.length - 1]!.key;
  }
  await write(encodeRecord({ type: 'end', records: lines }));
  return { records: counts, documents };
}
