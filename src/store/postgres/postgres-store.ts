import pg from 'pg';
import { QuiverError } from '../../errors.js';
import type { BatchRecord, ChunkHit, ChunkRecord, DocumentRecord, SectionRecord } from '../../types.js';
import {
  DEFAULT_POSTGRES_ANN_THRESHOLD,
  DEFAULT_HNSW_EF_CONSTRUCTION,
  DEFAULT_HNSW_EF_SEARCH,
  DEFAULT_HNSW_M,
} from '../index-defaults.js';
import type {
  IndexesInspection,
  IndexesStatus,
  IndexMaintenance,
  PrepareIndexesRequest,
  VectorIndexStatus,
} from '../maintenance.js';
import type {
  BatchOwner,
  DocumentVersion,
  EmbedderSwitch,
  EnqueueJobInput,
  FeedbackRecord,
  JobRecord,
  JobState,
  LexicalHit,
  LexicalQuery,
  ListDocumentsOptions,
  ListFeedbackOptions,
  ListJobsOptions,
  ListTranscriptsOptions,
  NoiseMark,
  ReplicaLag,
  RollbackResult,
  ScannedDocumentVersion,
  Store,
  StoreHealth,
  StoreStats,
  TermStats,
  TranscriptRecord,
  VectorQuery,
  VerdictRecord,
  WriteDocumentInput,
  WriteStatus,
  WriterClaim,
  WriterHolder,
} from '../store.js';
import type { SharedState } from '../shared-state.js';
import { createPool, type PoolOptions, redactUrl, rows, run, transaction, withOption } from './connection.js';
import { docFilterSql } from './doc-filter.js';
import * as transfer from './document-transfer.js';
import { toChunk, toDocument, toSection } from '../records.js';
import { removeDocumentVersions, revertBatch, writeDocumentVersions } from './document-versions.js';
import * as batches from './batches.js';
import * as jobs from './jobs.js';
import { lexicalSearch, termStats } from './lexical-search.js';
import * as metaBlobs from './meta-blobs.js';
import * as quality from './quality-tables.js';
import { ReadRouter } from './replica.js';
import { migrate, SCHEMA_VERSION } from './schema.js';
import {
  buildVectorIndex,
  dropVectorIndex,
  hasVectorIndex,
  putVectorRows,
  readChunkVectors,
  searchVectors,
  vectorDims,
} from './vectors.js';
import * as writer from './writer-slot.js';
import { postgresSharedState } from './shared-state.js';

export interface PostgresStoreOptions extends PoolOptions {
  /**
   * Read only, by construction: every connection opens with `default_transaction_read_only`, so the
   * server refuses any write; nothing is migrated (an older or missing schema is SCHEMA).
   */
  readonly?: boolean;
  /** Told what a person should know that is not an error. */
  onNotice?: (message: string) => void;
  /**
   * The vector leg: exact scan at or below `threshold` live chunks of a fingerprint, pgvector HNSW
   * above it (built once the threshold is crossed, by the write that crosses it or `indexes`).
   */
  ann?: { threshold?: number; m?: number; efConstruction?: number; efSearch?: number };
  /**
   * A hot standby of the same database (`postgres://…`) for the reads search and ask make, with
   * read-your-writes: a read goes to the primary while the standby has not replayed a write this
   * store made, or does not answer (replica.ts). Everything else goes to the primary. Empty: none.
   */
  replicaUrl?: string;
}

/** How long a search trusts what it learnt about a fingerprint's HNSW index (another server may build one). */
const INDEX_CHECK_MS = 30_000;

/**
 * The PostgreSQL + pgvector Store: the same records and answers as the SQLite store, for a team
 * sharing one database from several `quiver serve` processes. State lives only in the database
 * (writer slot, jobs, batches, meta), so any process can take over another's work.
 *
 * This class is the facade; the tables are in schema.ts, versioned writes and undo in
 * document-versions.ts, the lexical index and BM25 in postings.ts and lexical-search.ts, vectors in
 * vectors.ts, and the side tables in batches.ts, writer-slot.ts, quality-tables.ts, jobs.ts and
 * meta-blobs.ts.
 */
export class PostgresStore implements Store {
  readonly kind = 'postgres';
  readonly location: string;
  private readonly pool: pg.Pool;
  private readonly ann: { threshold: number; m: number; efConstruction: number; efSearch: number };
  private readonly indexChecks = new Map<string, { at: number; dims: number | null }>();
  /** Rate-limit buckets and compare-and-set of meta, shared by every server on this database. */
  readonly shared: SharedState;
  /** Where the reads that search and ask make go, with a replica; null without one. */
  private readonly router: ReadRouter | null;
  private closed = false;

  private constructor(pool: pg.Pool, url: string, options: PostgresStoreOptions) {
    this.pool = pool;
    this.location = redactUrl(url);
    this.router =
      options.replicaUrl === undefined || options.replicaUrl === ''
        ? null
        : ReadRouter.open(pool, options.replicaUrl, options, {
            ...(options.onNotice === undefined ? {} : { onNotice: options.onNotice }),
          });
    this.shared = postgresSharedState(pool);
    this.ann = {
      threshold: options.ann?.threshold ?? DEFAULT_POSTGRES_ANN_THRESHOLD,
      m: options.ann?.m ?? DEFAULT_HNSW_M,
      efConstruction: options.ann?.efConstruction ?? DEFAULT_HNSW_EF_CONSTRUCTION,
      efSearch: options.ann?.efSearch ?? DEFAULT_HNSW_EF_SEARCH,
    };
  }

  /** Connect to `url` (`postgres://…`), migrate the schema (unless read-only), and check it. */
  static async open(url: string, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
    const readonly = options.readonly === true;
    const pool = createPool(readonly ? withOption(url, 'default_transaction_read_only=on') : url, options);
    const store = new PostgresStore(pool, url, options);
    try {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (e) {
        throw new QuiverError(
          'STORE',
          `quiver: cannot connect to ${store.location}: ${(e as Error).message}`,
          {
            cause: e,
          },
        );
      }
      try {
        if (!readonly) await migrate(client);
        else if ((await checkSchema(client, store.location)) < SCHEMA_VERSION) {
          // An older quiver vault is migrated once, as SQLite's read-only open does, through a
          // connection of its own: the read-only pool's connections cannot write, by construction.
          const writer = new pg.Client({ connectionString: url });
          try {
            await writer.connect();
            await migrate(writer);
          } catch (e) {
            throw new QuiverError(
              'SCHEMA',
              `quiver: the vault at ${store.location} has an older schema and could not be migrated (${(e as Error).message}); open it once with a user that may create tables`,
              { cause: e },
            );
          } finally {
            await writer.end().catch(() => undefined);
          }
        }
      } finally {
        client.release();
      }
    } catch (e) {
      await pool.end().catch(() => undefined);
      await store.router?.close().catch(() => undefined);
      throw e;
    }
    return store;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
    await this.router?.close();
  }

  /** Run a read that search or ask makes: on the replica when there is one and it may (replica.ts). */
  private read<T>(fn: (db: pg.Pool) => Promise<T>): Promise<T> {
    return this.router === null ? fn(this.pool) : this.router.read(fn);
  }

  /** Await a write to what `read` reads, then have reads wait for the replica to replay it. */
  private async written<T>(write: Promise<T>): Promise<T> {
    try {
      return await write;
    } finally {
      this.router?.wrote();
    }
  }

  /** How far the replica is behind the primary; null without a replica. */
  async replicaLag(): Promise<ReplicaLag | null> {
    return this.router === null ? null : this.router.lag();
  }

  getMeta(key: string): Promise<string | null> {
    return metaBlobs.getMeta(this.pool, key);
  }
  setMeta(key: string, value: string): Promise<void> {
    return metaBlobs.setMeta(this.pool, key, value);
  }
  getBlob(name: string): Promise<Uint8Array | null> {
    return metaBlobs.getBlob(this.pool, name);
  }
  putBlob(name: string, data: Uint8Array): Promise<void> {
    return metaBlobs.putBlob(this.pool, name, data);
  }
  deleteBlob(name: string): Promise<boolean> {
    return metaBlobs.deleteBlob(this.pool, name);
  }

  beginBatch(label: string, owner?: BatchOwner): Promise<BatchRecord> {
    return batches.insertBatch(this.pool, label, owner ?? null);
  }
  finishBatch(batch: BatchRecord): Promise<void> {
    return batches.updateFinishedBatch(this.pool, batch);
  }
  interruptRunningBatches(): Promise<BatchRecord[]> {
    return batches.interruptRunning(this.pool);
  }
  listBatches(limit = 50): Promise<BatchRecord[]> {
    return batches.selectBatches(this.pool, limit);
  }
  getBatch(id: string): Promise<BatchRecord | null> {
    return batches.selectBatch(this.pool, id);
  }

  claimWriter(me: WriterClaim, isAlive: (holder: WriterHolder) => boolean): Promise<WriterHolder | null> {
    return writer.claimWriter(this.pool, me, isAlive);
  }
  touchWriter(me: WriterClaim, batchId?: string | null): Promise<void> {
    return writer.touchWriter(this.pool, me, batchId);
  }
  async releaseWriter(me: WriterClaim): Promise<void> {
    if (!this.closed) await writer.releaseWriter(this.pool, me);
  }
  currentWriter(): Promise<WriterHolder | null> {
    return writer.readWriter(this.pool);
  }

  rollbackBatch(id: string): Promise<RollbackResult> {
    return this.written(transaction(this.pool, `undo of batch ${id}`, (c) => revertBatch(c, id)));
  }

  async contentHash(docId: string): Promise<string | null> {
    const [r] = await rows<{ h: string }>(
      this.pool,
      'reading a document',
      'SELECT content_hash AS h FROM documents WHERE id = $1 AND superseded_by IS NULL',
      [docId],
    );
    return r?.h ?? null;
  }

  async writeDocument(input: WriteDocumentInput): Promise<WriteStatus> {
    return (await this.writeDocuments([input]))[0]!;
  }

  async writeDocuments(inputs: readonly WriteDocumentInput[]): Promise<WriteStatus[]> {
    for (const { document: doc, vectors } of inputs)
      if (vectors.length !== doc.chunks.length)
        throw new QuiverError(
          'BAD_INPUT',
          `quiver: ${doc.chunks.length} chunks but ${vectors.length} vectors for ${doc.source}`,
        );
    const statuses = await this.written(
      transaction(this.pool, 'writing documents', (c) => writeDocumentVersions(c, inputs)),
    );
    return statuses;
  }

  removeDocuments(batchId: string, docIds: readonly string[]): Promise<number> {
    return this.written(
      transaction(this.pool, 'removing documents', (c) => removeDocumentVersions(c, batchId, docIds)),
    );
  }

  async listDocumentHashes(): Promise<{ id: string; source: string; contentHash: string }[]> {
    return (
      await rows<{ id: string; source: string; content_hash: string }>(
        this.pool,
        'listing documents',
        'SELECT id, source, content_hash FROM documents WHERE superseded_by IS NULL ORDER BY source COLLATE "C"',
      )
    ).map((r) => ({ id: r.id, source: r.source, contentHash: r.content_hash }));
  }

  async getDocument(id: string): Promise<DocumentRecord | null> {
    return (await this.getDocuments([id]))[0] ?? null;
  }

  async getDocuments(ids: readonly string[]): Promise<DocumentRecord[]> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return [];
    const found = new Map(
      (
        await this.read((db) =>
          rows(
            db,
            'reading documents',
            'SELECT * FROM documents WHERE superseded_by IS NULL AND id = ANY($1::text[])',
            [unique],
          ),
        )
      ).map((r) => [r.id as string, toDocument(r)]),
    );
    return unique.flatMap((id) => found.get(id) ?? []);
  }

  async findDocuments(ref: string): Promise<DocumentRecord[]> {
    const exact = await rows(
      this.pool,
      'finding documents',
      'SELECT * FROM documents WHERE superseded_by IS NULL AND (id = $1 OR source = $1)',
      [ref],
    );
    if (exact.length > 0) return exact.map(toDocument);
    const like = `%${ref.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
    return (
      await rows(
        this.pool,
        'finding documents',
        `SELECT * FROM documents WHERE superseded_by IS NULL AND (title ILIKE $1 OR source ILIKE $1) ORDER BY updated_at DESC`,
        [like],
      )
    ).map(toDocument);
  }

  async listDocuments(options: ListDocumentsOptions = {}): Promise<DocumentRecord[]> {
    const f = docFilterSql(options.filter, await quality.hasNoisyMarks(this.pool), 3);
    return (
      await rows(
        this.pool,
        'listing documents',
        `SELECT * FROM documents d WHERE d.superseded_by IS NULL ${f.sql ? `AND ${f.sql}` : ''}
          ORDER BY d.source COLLATE "C" LIMIT $1 OFFSET $2`,
        [options.limit ?? null, options.offset ?? 0, ...f.params],
      )
    ).map(toDocument);
  }

  async getSections(ids: readonly string[]): Promise<SectionRecord[]> {
    if (ids.length === 0) return [];
    const found = new Map(
      (
        await this.read((db) =>
          rows(db, 'reading sections', 'SELECT * FROM sections WHERE live AND id = ANY($1::text[])', [
            [...new Set(ids)],
          ]),
        )
      ).map((r) => [r.id as string, toSection(r)]),
    );
    return ids.flatMap((id) => found.get(id) ?? []);
  }

  async listSections(docId: string): Promise<SectionRecord[]> {
    return (
      await this.read((db) =>
        rows(db, 'reading sections', 'SELECT * FROM sections WHERE doc_id = $1 AND live ORDER BY seq', [
          docId,
        ]),
      )
    ).map(toSection);
  }

  async getChunks(ids: readonly number[]): Promise<ChunkRecord[]> {
    if (ids.length === 0) return [];
    const found = new Map(
      (
        await this.read((db) =>
          rows(db, 'reading chunks', 'SELECT * FROM chunks WHERE id = ANY($1::bigint[])', [
            [...new Set(ids)],
          ]),
        )
      ).map((r) => [r.id as number, toChunk(r)]),
    );
    return ids.flatMap((id) => found.get(id) ?? []);
  }

  async chunksOfSections(sectionIds: readonly string[]): Promise<ChunkRecord[]> {
    if (sectionIds.length === 0) return [];
    const unique = [...new Set(sectionIds)];
    const found = (
      await this.read((db) =>
        rows(
          db,
          'reading chunks',
          'SELECT * FROM chunks WHERE live AND section_id = ANY($1::text[]) ORDER BY ord',
          [unique],
        ),
      )
    ).map(toChunk);
    const bySection = new Map<string, ChunkRecord[]>(unique.map((id) => [id, []]));
    for (const c of found) bySection.get(c.sectionId)?.push(c);
    return unique.flatMap((id) => bySection.get(id) ?? []);
  }

  lexicalSearch(query: LexicalQuery): Promise<LexicalHit[]> {
    return this.read(async (db) => lexicalSearch(db, query, await quality.hasNoisyMarks(db)));
  }

  termStats(stems: readonly string[]): Promise<TermStats> {
    return this.read((db) => termStats(db, stems));
  }

  async languages(): Promise<string[]> {
    return (
      await this.read((db) =>
        rows<{ lang: string }>(
          db,
          'reading languages',
          'SELECT DISTINCT lang FROM sections WHERE live AND lang IS NOT NULL ORDER BY lang',
        ),
      )
    ).map((r) => r.lang);
  }

  /** Live chunks with a vector under `fingerprint`. */
  private async liveVectorCount(fingerprint: string): Promise<number> {
    const [r] = await rows<{ n: number }>(
      this.pool,
      'counting vectors',
      'SELECT count(*)::int AS n FROM vectors v JOIN chunks c ON c.id = v.chunk_id WHERE v.fingerprint = $1 AND c.live',
      [fingerprint],
    );
    return r?.n ?? 0;
  }

  /**
   * Index upkeep (the `indexes` capability): PostgreSQL keeps the postings and an existing HNSW
   * index current inside each write's transaction, so the one thing to do is to build a
   * fingerprint's HNSW index once it holds more than `ann.threshold` live chunks. That happens here,
   * after a bulk load (`add`, `import`, a reindex), not during it: inserting into an HNSW index as
   * rows arrive made SciFact's ingest three times slower than building it once at the end.
   */
  readonly indexes: IndexMaintenance = {
    prepare: async (request: PrepareIndexesRequest): Promise<IndexesStatus> => {
      if (request.vector === undefined) return { vector: null, lexical: null };
      const fp = request.vector.fingerprint;
      const chunks = await this.liveVectorCount(fp);
      let source: VectorIndexStatus['source'] = null;
      if (chunks > this.ann.threshold && !(await hasVectorIndex(this.pool, fp))) {
        await buildVectorIndex(this.pool, fp, this.ann);
        this.indexChecks.delete(fp);
        source = 'built';
      }
      return {
        vector: {
          fingerprint: fp,
          mode: chunks > this.ann.threshold ? 'hnsw' : 'exact',
          chunks,
          threshold: this.ann.threshold,
          file: null,
          source,
          loadFailure: null,
          deleted: 0,
          saveError: null,
        },
        lexical: null,
      };
    },
    inspect: async (fingerprint: string): Promise<IndexesInspection> => {
      const chunks = await this.liveVectorCount(fingerprint);
      const above = chunks > this.ann.threshold;
      return {
        vector: {
          fingerprint,
          mode: above ? 'hnsw' : 'exact',
          chunks,
          threshold: this.ann.threshold,
          file: null,
          index: !above ? 'none' : (await hasVectorIndex(this.pool, fingerprint)) ? 'current' : 'missing',
        },
        lexical: null,
      };
    },
  };

  /** The dimension of the fingerprint's HNSW index, or null to scan exactly (rechecked every 30 s). */
  private async indexedDims(fingerprint: string): Promise<number | null> {
    const now = Date.now();
    const known = this.indexChecks.get(fingerprint);
    if (known !== undefined && now - known.at < INDEX_CHECK_MS) return known.dims;
    const dims = (await hasVectorIndex(this.pool, fingerprint))
      ? await vectorDims(this.pool, fingerprint)
      : null;
    this.indexChecks.set(fingerprint, { at: now, dims });
    return dims;
  }

  async vectorSearch(query: VectorQuery): Promise<ChunkHit[]> {
    if (query.limit <= 0) return [];
    const dims = await this.indexedDims(query.fingerprint);
    return this.read(async (db) =>
      searchVectors(
        db,
        query,
        await quality.hasNoisyMarks(db),
        dims === null || dims !== query.vector.length ? null : { dims, efSearch: this.ann.efSearch },
      ),
    );
  }

  chunkVectors(chunkIds: readonly number[], fingerprint: string): Promise<Map<number, Float32Array>> {
    return this.read((db) => readChunkVectors(db, chunkIds, fingerprint));
  }

  async scanChunks(afterId: number, limit: number): Promise<ChunkRecord[]> {
    return (
      await rows(
        this.pool,
        'reading chunks',
        'SELECT * FROM chunks WHERE live AND id > $1 ORDER BY id LIMIT $2',
        [afterId, limit],
      )
    ).map(toChunk);
  }

  async putVectors(fingerprint: string, items: { chunkId: number; vector: Float32Array }[]): Promise<void> {
    await this.written(putVectorRows(this.pool, fingerprint, items));
  }

  async deleteVectors(fingerprint: string): Promise<number> {
    const n = await this.written(
      run(this.pool, 'deleting vectors', 'DELETE FROM vectors WHERE fingerprint = $1', [fingerprint]),
    );
    await dropVectorIndex(this.pool, fingerprint);
    this.indexChecks.delete(fingerprint);
    return n;
  }

  private async vectorCounts(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const r of await rows<{ fingerprint: string; n: number }>(
      this.pool,
      'counting vectors',
      'SELECT v.fingerprint, count(*)::int AS n FROM vectors v JOIN chunks c ON c.id = v.chunk_id WHERE c.live GROUP BY v.fingerprint',
    ))
      out[r.fingerprint] = r.n;
    return out;
  }

  async stats(): Promise<StoreStats> {
    const [r] = await rows<{
      documents: number;
      sections: number;
      chunks: number;
      batches: number;
      version: string;
    }>(
      this.pool,
      'reading statistics',
      `SELECT (SELECT count(*)::int FROM documents WHERE superseded_by IS NULL) AS documents,
              (SELECT count(*)::int FROM sections WHERE live) AS sections,
              (SELECT count(*)::int FROM chunks WHERE live) AS chunks,
              (SELECT count(*)::int FROM batches) AS batches,
              current_setting('server_version') AS version`,
    );
    const [ext] = await rows<{ v: string }>(
      this.pool,
      'reading statistics',
      `SELECT extversion AS v FROM pg_extension WHERE extname = 'vector'`,
    );
    return {
      documents: r!.documents,
      sections: r!.sections,
      chunks: r!.chunks,
      vectors: await this.vectorCounts(),
      batches: r!.batches,
      schemaVersion: SCHEMA_VERSION,
      engine: {
        name: 'PostgreSQL',
        version: `${r!.version}, pgvector ${ext?.v ?? '?'}`,
        readersNeed: 'PostgreSQL 13 with pgvector 0.7 (halfvec)',
      },
      ...(this.router === null ? {} : { replica: await this.router.lag() }),
    };
  }

  async switchEmbedder(change: EmbedderSwitch): Promise<void> {
    const drop = change.deleteFingerprint !== null && change.deleteFingerprint !== change.to;
    await this.written(
      transaction(this.pool, 'switching the embedder', async (c) => {
        await metaBlobs.applyMetaAndBlobs(c, { ...change.meta }, change.blobs);
        if (drop)
          await run(c, 'switching the embedder', 'DELETE FROM vectors WHERE fingerprint = $1', [
            change.deleteFingerprint,
          ]);
        await metaBlobs.setMeta(c, 'embedder', change.to);
      }),
    );
    if (drop) {
      await dropVectorIndex(this.pool, change.deleteFingerprint!);
      this.indexChecks.delete(change.deleteFingerprint!);
    }
  }

  async health(activeFingerprint: string | null): Promise<StoreHealth> {
    const vectors = await this.vectorCounts();
    const [r] = await rows<{ chunks: number; bytes: number }>(
      this.pool,
      'checking health',
      'SELECT (SELECT count(*)::int FROM chunks WHERE live) AS chunks, pg_database_size(current_database()) AS bytes',
    );
    const active = activeFingerprint === null ? 0 : (vectors[activeFingerprint] ?? 0);
    return {
      chunksWithoutVector: activeFingerprint === null ? 0 : r!.chunks - active,
      otherFingerprints: Object.fromEntries(
        Object.entries(vectors).filter(([fp]) => fp !== activeFingerprint),
      ),
      reclaimableBytes: null,
      totalBytes: r!.bytes,
      orphanFiles: [],
      unanalysedSections: 0,
    };
  }

  setMark(docId: string, noisy: boolean | null, reason: string | null): Promise<void> {
    return this.written(quality.setMark(this.pool, docId, noisy, reason));
  }
  listMarks(): Promise<NoiseMark[]> {
    return quality.listMarks(this.pool);
  }
  addFeedback(feedback: readonly FeedbackRecord[]): Promise<void> {
    return quality.addFeedback(this.pool, feedback);
  }
  listFeedback(options: ListFeedbackOptions = {}): Promise<FeedbackRecord[]> {
    return quality.listFeedback(this.pool, options);
  }
  putTranscript(t: TranscriptRecord): Promise<void> {
    return quality.putTranscript(this.pool, t);
  }
  getTranscript(id: string): Promise<TranscriptRecord | null> {
    return quality.getTranscript(this.pool, id);
  }
  listTranscripts(options: ListTranscriptsOptions = {}): Promise<TranscriptRecord[]> {
    return quality.listTranscripts(this.pool, options);
  }
  getVerdict(key: string): Promise<boolean | null> {
    return quality.getVerdict(this.pool, key);
  }
  putVerdict(key: string, verdict: boolean): Promise<void> {
    return quality.putVerdict(this.pool, key, verdict);
  }

  listMeta(): Promise<Record<string, string>> {
    return metaBlobs.listMeta(this.pool);
  }
  listBlobNames(): Promise<string[]> {
    return metaBlobs.listBlobNames(this.pool);
  }
  scanDocumentVersions(after: number, limit: number): Promise<ScannedDocumentVersion[]> {
    return transfer.scanDocumentVersions(this.pool, after, limit);
  }
  listVerdicts(after: string | null, limit: number): Promise<VerdictRecord[]> {
    return quality.listVerdicts(this.pool, after, limit);
  }
  importBatches(list: readonly BatchRecord[]): Promise<void> {
    return batches.importBatches(this.pool, list);
  }
  async importDocumentVersions(versions: readonly DocumentVersion[]): Promise<Map<number, number>> {
    const ids = await this.written(
      transaction(this.pool, 'importing documents', (c) => transfer.importDocumentVersions(c, versions)),
    );
    return ids;
  }
  importMarks(marks: readonly NoiseMark[]): Promise<void> {
    return this.written(quality.importMarks(this.pool, marks));
  }

  enqueueJob(input: EnqueueJobInput): Promise<JobRecord> {
    return jobs.enqueueJob(this.pool, input);
  }
  leaseJob(
    worker: WriterClaim,
    now: number,
    leaseMs: number,
    isAlive: (w: WriterClaim) => boolean,
    kinds?: readonly string[],
  ): Promise<JobRecord | null> {
    return jobs.leaseJob(this.pool, worker, now, leaseMs, isAlive, kinds);
  }
  heartbeatJob(
    id: string,
    worker: WriterClaim,
    leaseUntil: number,
    progress?: Record<string, unknown>,
  ): Promise<boolean> {
    return jobs.heartbeatJob(this.pool, id, worker, leaseUntil, progress);
  }
  ackJob(id: string, worker: WriterClaim, result: Record<string, unknown>, now: number): Promise<boolean> {
    return jobs.ackJob(this.pool, id, worker, result, now);
  }
  failJob(
    id: string,
    worker: WriterClaim,
    error: string,
    retryAt: number | null,
    now: number,
  ): Promise<boolean> {
    return jobs.failJob(this.pool, id, worker, error, retryAt, now);
  }
  releaseJob(id: string, worker: WriterClaim, now: number): Promise<boolean> {
    return jobs.releaseJob(this.pool, id, worker, now);
  }
  getJob(id: string): Promise<JobRecord | null> {
    return jobs.getJob(this.pool, id);
  }
  listJobs(options: ListJobsOptions = {}): Promise<JobRecord[]> {
    return jobs.listJobs(this.pool, options);
  }
  retryJob(id: string, now: number): Promise<boolean> {
    return jobs.retryJob(this.pool, id, now);
  }
  purgeDeadJobs(): Promise<number> {
    return jobs.purgeDeadJobs(this.pool);
  }
  jobCounts(): Promise<Record<JobState, number>> {
    return jobs.jobCounts(this.pool);
  }
}

/** A read-only open: the schema version there (NOT_FOUND when none; SCHEMA when newer than this quiver). */
async function checkSchema(client: pg.PoolClient, location: string): Promise<number> {
  let version: number | null;
  try {
    const r = await client.query<{ version: number }>('SELECT version FROM quiver_schema');
    version = r.rows[0]?.version ?? null;
  } catch {
    version = null;
  }
  if (version === null)
    throw new QuiverError(
      'NOT_FOUND',
      `quiver: no vault at ${location} (open it once writable to create one)`,
    );
  if (version > SCHEMA_VERSION)
    throw new QuiverError(
      'SCHEMA',
      `quiver: the vault at ${location} has schema version ${version}, newer than this quiver knows (${SCHEMA_VERSION}); upgrade quiver`,
    );
  return version;
}
