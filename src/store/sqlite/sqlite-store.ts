import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { countUnanalysed, reanalyse } from './reanalyse.js';
import { basename, dirname, join, resolve } from 'node:path';
import type Database from 'better-sqlite3';
import { QuiverError } from '../../errors.js';
import type { BatchRecord, ChunkHit, ChunkRecord, DocumentRecord, SectionRecord } from '../../types.js';
import type {
  BatchOwner,
  CompactResult,
  EmbedderSwitch,
  FeedbackRecord,
  LexicalHit,
  LexicalQuery,
  ListDocumentsOptions,
  ListFeedbackOptions,
  ListTranscriptsOptions,
  NoiseMark,
  RollbackResult,
  Store,
  StoreHealth,
  StoreStats,
  TermStats,
  TranscriptRecord,
  VectorQuery,
  WriteDocumentInput,
  WriteStatus,
  WriterClaim,
  EnqueueJobInput,
  JobRecord,
  JobState,
  ListJobsOptions,
  WriterHolder,
  DocumentVersion,
  ScannedDocumentVersion,
  VerdictRecord,
} from '../store.js';
import type {
  IndexesInspection,
  IndexesStatus,
  IndexMaintenance,
  PrepareIndexesRequest,
} from '../maintenance.js';
import { type AnnInspection, type AnnOptions, type AnnStatus, AnnVectorLeg } from './ann-vector-index.js';
import {
  type LexicalIndexInspection,
  type LexicalIndexOptions,
  LexicalIndexLeg,
  type LexicalIndexStatus,
} from './lexical-index-leg.js';
import { insertBatch, interruptRunning, selectBatch, selectBatches, updateFinishedBatch } from './batches.js';
import { busyAsConflict, isDiskFull, noSpace, openVaultDatabase, StatementCache } from './connection.js';
import { allowedDocIds, docFilterSql } from './doc-filter.js';
import {
  type ChunkIdFloor,
  removeDocumentVersions,
  revertBatch,
  writeDocumentVersion,
} from './document-versions.js';
import { hnswIndexPath } from './hnsw-files.js';
import {
  countLiveSections,
  createSectionsVocab,
  documentFrequencies,
  lexicalSearch,
} from './lexical-search.js';
import * as jobs from './jobs.js';
import * as quality from './quality-tables.js';
import * as transfer from './transfer-tables.js';
import { now, type Row, toChunk, toDocument, toSection } from './rows.js';
import { frozen, RecordCache } from './record-cache.js';
import { refreshVectorLayers, type VectorLayers } from './vector-layers.js';
import { bumpVectorRevision, nextChunkIdFloor } from './vector-revision.js';
import { deleteVectorRows, putVectorRows, readChunkVectors } from './vector-table.js';
import { claimWriter, readWriter, releaseWriter, touchWriter } from './writer-slot.js';
import { lexicalIndexPath } from './lexical-index-file.js';
import { pidAlive } from '../liveness.js';

type RecordKind = 'documents' | 'sections' | 'chunksOfSection';

export { headingOf } from './document-versions.js';

export interface SqliteStoreOptions {
  /**
   * Open read-only: never creates, migrates or writes the file; a missing file is NOT_FOUND and a
   * file that is not a quiver vault is SCHEMA.
   */
  readonly?: boolean;
  /** How long a write waits for another connection's lock before CONFLICT. Defaults to 5000 ms. */
  busyTimeoutMs?: number;
  /** Told when a search answers from the exact path because an index is out of date. */
  onNotice?: (message: string) => void;
  /**
   * The vector leg's HNSW index (`ann-vector-index.ts`): used above `threshold` live chunks,
   * persisted beside the file (in memory only for `:memory:` and read-only stores).
   */
  ann?: AnnOptions;
  /**
   * The lexical leg's own index (`lexical-index-leg.ts`): used above `threshold` live sections,
   * saved beside the file (in memory only for `:memory:` and read-only stores).
   */
  lexical?: LexicalIndexOptions;
}

/**
 * The default Store: one SQLite file (WAL), FTS5 over chunk text with title and heading as their own
 * columns, vectors as float32 BLOBs keyed by embedder fingerprint, exact-scan vector search over an
 * in-memory matrix that is rebuilt when the file changes, and an HNSW index above `ann.threshold`
 * live chunks (`ann-vector-index.ts`).
 *
 * This class is the facade: it holds the connection's state (statement cache, data version, the
 * exact scan's matrices, the ANN leg) and the simple reads. Versioned writes and rollback are in
 * `document-versions.ts`, the lexical leg in `lexical-search.ts`, the batches and vectors tables
 * in `batches.ts` and `vector-table.ts`, marks, feedback, transcripts and verdicts in
 * `quality-tables.ts`.
 */
export class SqliteStore implements Store {
  readonly kind = 'sqlite';
  readonly location: string;
  private readonly db: Database.Database;
  private readonly statements: StatementCache;
  private readonly matrices = new Map<string, { version: number; layers: VectorLayers }>();
  private localVersion = 0;
  private readonly records = new RecordCache<RecordKind, object>();
  private vocabReady = false;
  /** Live sections and the document frequencies looked up so far, for one data version. */
  private liveSections: { version: number; count: number; df: Map<string, number> } | null = null;
  private readonly ann: AnnVectorLeg;
  private readonly lexical: LexicalIndexLeg;

  private constructor(db: Database.Database, location: string, options: SqliteStoreOptions = {}) {
    this.db = db;
    this.statements = new StatementCache(db);
    this.location = location;
    this.ann = new AnnVectorLeg(db, {
      ...options.ann,
      dbPath: location === ':memory:' ? null : location,
      save: options.readonly !== true,
      ...(options.onNotice === undefined ? {} : { onNotice: options.onNotice }),
    });
    this.lexical = new LexicalIndexLeg(this.statements, {
      ...options.lexical,
      dbPath: location === ':memory:' ? null : location,
      save: options.readonly !== true,
      ...(options.onNotice === undefined ? {} : { onNotice: options.onNotice }),
    });
  }

  /** Open (and create or migrate) the vault file at `path`; `:memory:` works for tests. */
  static open(path: string, options: SqliteStoreOptions = {}): SqliteStore {
    const location = path === ':memory:' ? path : resolve(path);
    return new SqliteStore(
      openVaultDatabase(location, options.readonly === true, options.busyTimeoutMs),
      location,
      options,
    );
  }

  /** A prepared statement, cached by its SQL (statements used with `.raw()` keep that mode). */
  private stmt(sql: string): Database.Statement {
    return this.statements.get(sql);
  }

  async backup(destination: string): Promise<void> {
    const folder = dirname(resolve(destination));
    if (!existsSync(folder))
      throw new QuiverError(
        'NOT_FOUND',
        `quiver: cannot back up to ${destination}: folder ${folder} does not exist`,
      );
    try {
      await this.db.backup(resolve(destination));
    } catch (e) {
      if (isDiskFull(e)) throw noSpace(e, `the backup ${destination}`);
      throw new QuiverError('STORE', `quiver: backup to ${destination} failed: ${(e as Error).message}`, {
        cause: e,
      });
    }
  }

  async close(): Promise<void> {
    if (!this.db.open) return;
    await this.ann.flush();
    if (this.db.open) this.db.close();
  }

  /** Data version: bumps on our own writes and on commits by other connections. */
  private version(): number {
    return this.localVersion * 1_000_000 + (this.stmt('PRAGMA data_version').pluck().get() as number);
  }

  private touched(): void {
    this.localVersion++;
  }

  async getMeta(key: string): Promise<string | null> {
    const r = this.stmt('SELECT value FROM meta WHERE key = ?').get(key) as Row | undefined;
    return (r?.value as string | undefined) ?? null;
  }

  async setMeta(key: string, value: string): Promise<void> {
    this.stmt(
      'INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
    ).run(key, value);
  }

  async getBlob(name: string): Promise<Uint8Array | null> {
    const r = this.stmt('SELECT data FROM blobs WHERE name = ?').get(name) as Row | undefined;
    return (r?.data as Buffer | undefined) ?? null;
  }

  async putBlob(name: string, data: Uint8Array): Promise<void> {
    this.stmt(
      'INSERT INTO blobs(name, data, updated_at) VALUES (?, ?, ?) ON CONFLICT(name) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at',
    ).run(name, Buffer.from(data), now());
  }

  async deleteBlob(name: string): Promise<boolean> {
    return this.stmt('DELETE FROM blobs WHERE name = ?').run(name).changes > 0;
  }

  async beginBatch(label: string, owner?: BatchOwner): Promise<BatchRecord> {
    return busyAsConflict(() => insertBatch(this.statements, label, owner ?? null));
  }

  async finishBatch(batch: BatchRecord): Promise<void> {
    busyAsConflict(() => updateFinishedBatch(this.statements, batch));
  }

  async interruptRunningBatches(): Promise<BatchRecord[]> {
    return busyAsConflict(() => interruptRunning(this.statements));
  }

  async claimWriter(me: WriterClaim, isAlive: (h: WriterHolder) => boolean): Promise<WriterHolder | null> {
    return busyAsConflict(() => claimWriter(this.statements, me, isAlive));
  }

  async touchWriter(me: WriterClaim, batchId?: string | null): Promise<void> {
    busyAsConflict(() => touchWriter(this.statements, me, batchId));
  }

  async releaseWriter(me: WriterClaim): Promise<void> {
    if (this.db.open) busyAsConflict(() => releaseWriter(this.statements, me));
  }

  async currentWriter(): Promise<WriterHolder | null> {
    return readWriter(this.statements);
  }

  async listBatches(limit = 50): Promise<BatchRecord[]> {
    return selectBatches(this.statements, limit);
  }

  async getBatch(id: string): Promise<BatchRecord | null> {
    return selectBatch(this.statements, id);
  }

  async rollbackBatch(id: string): Promise<RollbackResult> {
    const result = busyAsConflict(() => revertBatch(this.statements, id));
    this.touched();
    return result;
  }

  async removeDocuments(batchId: string, docIds: readonly string[]): Promise<number> {
    const n = busyAsConflict(() =>
      this.db.transaction(() => removeDocumentVersions(this.statements, batchId, docIds)).immediate(),
    );
    if (n > 0) this.touched();
    return n;
  }

  async listDocumentHashes(): Promise<{ id: string; source: string; contentHash: string }[]> {
    return (
      this.stmt(
        'SELECT id, source, content_hash FROM documents WHERE superseded_by IS NULL ORDER BY source',
      ).all() as Row[]
    ).map((r) => ({ id: r.id as string, source: r.source as string, contentHash: r.content_hash as string }));
  }

  async contentHash(docId: string): Promise<string | null> {
    const r = this.stmt('SELECT content_hash FROM documents WHERE id = ? AND superseded_by IS NULL').get(
      docId,
    ) as Row | undefined;
    return (r?.content_hash as string | undefined) ?? null;
  }

  async writeDocument(input: WriteDocumentInput): Promise<WriteStatus> {
    return (await this.writeDocuments([input]))[0]!;
  }

  async writeDocuments(inputs: readonly WriteDocumentInput[]): Promise<WriteStatus[]> {
    for (const { document: doc, vectors } of inputs) {
      if (vectors.length !== doc.chunks.length) {
        throw new QuiverError(
          'BAD_INPUT',
          `quiver: ${doc.chunks.length} chunks but ${vectors.length} vectors for ${doc.source}`,
        );
      }
    }
    const statuses = busyAsConflict(() =>
      this.db
        .transaction(() => {
          const floor: ChunkIdFloor = { next: nextChunkIdFloor(this.db) };
          const out = inputs.map((i) => writeDocumentVersion(this.statements, i, floor));
          if (out.some((st) => st !== 'unchanged')) bumpVectorRevision(this.db);
          return out;
        })
        .immediate(),
    );
    if (statuses.some((st) => st !== 'unchanged')) this.touched();
    return statuses;
  }

  async getDocument(id: string): Promise<DocumentRecord | null> {
    const r = this.stmt('SELECT * FROM documents WHERE id = ? AND superseded_by IS NULL').get(id) as
      Row | undefined;
    return r === undefined ? null : toDocument(r);
  }

  async getDocuments(ids: readonly string[]): Promise<DocumentRecord[]> {
    const unique = [...new Set(ids)];
    const byId = this.cached('documents', unique, (missing) =>
      (
        this.stmt(
          'SELECT * FROM documents INDEXED BY documents_live WHERE superseded_by IS NULL AND id IN (SELECT value FROM json_each(?))',
        ).all(JSON.stringify(missing)) as Row[]
      ).map((r) => [r.id as string, toDocument(r)] as const),
    ) as Map<string, DocumentRecord | null>;
    return unique.flatMap((id) => byId.get(id) ?? []);
  }

  /**
   * `keys` of one record kind, from the record cache where they were read at this data version,
   * the rest by `read` (one query for all of them; keys it does not return are remembered as
   * absent). Outside the cache inside a transaction: rows read there may yet roll back.
   */
  private cached<V extends object>(
    kind: RecordKind,
    keys: readonly string[],
    read: (missing: string[]) => (readonly [string, V])[],
  ): Map<string, V | null> {
    const out = new Map<string, V | null>();
    if (this.db.inTransaction) {
      for (const [k, v] of read([...keys])) out.set(k, v);
      return out;
    }
    const map = this.records.at(this.version(), kind) as Map<string, V | null>;
    const missing: string[] = [];
    for (const k of keys) {
      const v = map.get(k);
      if (v === undefined) missing.push(k);
      else out.set(k, v);
    }
    if (missing.length === 0) return out;
    const found = new Map(read(missing));
    for (const k of missing) {
      const v = found.get(k);
      const value = v === undefined ? null : frozen(v);
      this.records.put(map as Map<string, object | null>, k, value);
      out.set(k, value);
    }
    return out;
  }

  async findDocuments(ref: string): Promise<DocumentRecord[]> {
    const exact = this.stmt(
      'SELECT * FROM documents WHERE superseded_by IS NULL AND (id = ? OR source = ?)',
    ).all(ref, ref) as Row[];
    if (exact.length > 0) return exact.map(toDocument);
    const like = `%${ref.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
    return (
      this.db
        .prepare(
          `SELECT * FROM documents WHERE superseded_by IS NULL AND (title LIKE ? ESCAPE '\\' OR source LIKE ? ESCAPE '\\') ORDER BY updated_at DESC`,
        )
        .all(like, like) as Row[]
    ).map(toDocument);
  }

  private hasNoisyMarks(): boolean {
    return quality.hasNoisyMarks(this.statements);
  }

  async listDocuments(options: ListDocumentsOptions = {}): Promise<DocumentRecord[]> {
    const f = docFilterSql(options.filter, this.hasNoisyMarks());
    const sql = `SELECT * FROM documents d WHERE d.superseded_by IS NULL ${f.sql ? `AND ${f.sql}` : ''} ORDER BY d.source LIMIT ? OFFSET ?`;
    return (this.db.prepare(sql).all(...f.params, options.limit ?? -1, options.offset ?? 0) as Row[]).map(
      toDocument,
    );
  }

  async getSections(ids: readonly string[]): Promise<SectionRecord[]> {
    // One cached statement whatever the number of ids: the ids travel as one JSON array.
    const byId = this.cached('sections', ids, (missing) =>
      (
        this.stmt('SELECT * FROM sections WHERE live = 1 AND id IN (SELECT value FROM json_each(?))').all(
          JSON.stringify(missing),
        ) as Row[]
      ).map((r) => [r.id as string, toSection(r)] as const),
    ) as Map<string, SectionRecord | null>;
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  async listSections(docId: string): Promise<SectionRecord[]> {
    return (
      this.stmt('SELECT * FROM sections WHERE doc_id = ? AND live = 1 ORDER BY seq').all(docId) as Row[]
    ).map(toSection);
  }

  async getChunks(ids: readonly number[]): Promise<ChunkRecord[]> {
    const stmt = this.stmt('SELECT * FROM chunks WHERE id = ?');
    const out: ChunkRecord[] = [];
    for (const id of ids) {
      const r = stmt.get(id) as Row | undefined;
      if (r !== undefined) out.push(toChunk(r));
    }
    return out;
  }

  async chunksOfSections(sectionIds: readonly string[]): Promise<ChunkRecord[]> {
    if (sectionIds.length === 0) return [];
    const unique = [...new Set(sectionIds)];
    const bySection = this.cached('chunksOfSection', unique, (missing) => {
      const groups = new Map<string, ChunkRecord[]>(missing.map((id) => [id, []]));
      const rows = this.stmt(
        'SELECT * FROM chunks WHERE live = 1 AND section_id IN (SELECT value FROM json_each(?))',
      ).all(JSON.stringify(missing)) as Row[];
      for (const r of rows) groups.get(r.section_id as string)?.push(frozen(toChunk(r)));
      return [...groups].map(([id, chunks]) => [id, chunks.sort((a, b) => a.ord - b.ord)] as const);
    }) as Map<string, ChunkRecord[] | null>;
    return unique.flatMap((id) => bySection.get(id) ?? []);
  }

  /** BM25 over the live sections (`lexical-search.ts`). */
  async lexicalSearch(query: LexicalQuery): Promise<LexicalHit[]> {
    const searcher = query.mode === 'phrase' ? null : await this.lexical.searchSearcher(this.version());
    return lexicalSearch(this.statements, query, this.hasNoisyMarks(), searcher);
  }

  /**
   * Bring the lexical leg's own index up to date now (build, load or update) rather than at the
   * first search; the leg's status after.
   */
  async prepareLexicalIndex(onProgress?: (done: number, total: number) => void): Promise<LexicalIndexStatus> {
    return this.lexical.prepare(this.version(), onProgress);
  }

  /** The lexical leg's mode and index state as of the last search or prepare. */
  inspectLexicalIndex(): LexicalIndexStatus {
    return { ...this.lexical.status };
  }

  /** The lexical leg's mode and saved index state now, without loading or building it. */
  async inspectLexicalFile(): Promise<LexicalIndexInspection> {
    return this.lexical.inspect();
  }

  /**
   * Document frequencies from FTS5's own vocabulary (`lexical-search.ts`); the section count is
   * cached per data version.
   */
  private langs: { version: number; langs: string[] } | null = null;

  async languages(): Promise<string[]> {
    const version = this.version();
    if (this.langs?.version !== version) {
      const langs = this.stmt(
        'SELECT DISTINCT lang FROM sections INDEXED BY sections_lang WHERE live = 1 AND lang IS NOT NULL ORDER BY lang',
      )
        .pluck()
        .all() as string[];
      this.langs = { version, langs };
    }
    return [...this.langs.langs];
  }

  async termStats(stems: readonly string[]): Promise<TermStats> {
    const searcher = await this.lexical.searchSearcher(this.version());
    if (searcher !== null) {
      const df = new Map<string, number>();
      for (const s of new Set(stems)) {
        const n = searcher.df(s);
        if (n > 0) df.set(s, n);
      }
      return { docs: searcher.liveRows, df };
    }
    if (!this.vocabReady) {
      createSectionsVocab(this.db);
      this.vocabReady = true;
    }
    const v = this.version();
    if (this.liveSections?.version !== v) {
      this.liveSections = { version: v, count: countLiveSections(this.statements), df: new Map() };
    }
    const { count, df } = this.liveSections;
    return { docs: count, df: documentFrequencies(this.statements, stems, df) };
  }

  /**
   * The exact scan's vectors for a fingerprint, checked once per data version: after another
   * connection's commit only what changed is read (`vector-layers.ts`), not every vector again.
   */
  private layers(fingerprint: string): VectorLayers {
    const v = this.version();
    const cached = this.matrices.get(fingerprint);
    if (cached !== undefined && cached.version === v) return cached.layers;
    const layers = refreshVectorLayers(this.statements, fingerprint, cached?.layers ?? null);
    this.matrices.set(fingerprint, { version: v, layers });
    return layers;
  }

  /**
   * Exact cosine scan over the in-memory matrix at or below `ann.threshold` live chunks (the
   * reference), HNSW above it (`ann-vector-index.ts`). Filters restrict hits inside either search.
   */
  async vectorSearch(query: VectorQuery): Promise<ChunkHit[]> {
    if (query.limit <= 0) return [];
    const ok = allowedDocIds(this.db, query.filter, this.hasNoisyMarks());
    const approx = await this.ann.search(query.fingerprint, query.vector, query.limit, ok);
    if (approx !== null) return approx;
    return this.layers(query.fingerprint).scan(
      query.vector,
      query.limit,
      ok === undefined ? undefined : (docId) => ok.has(docId),
    );
  }

  /** From the exact scan's matrix when it is loaded and current (no SQL), else from the table. */
  async chunkVectors(chunkIds: readonly number[], fingerprint: string): Promise<Map<number, Float32Array>> {
    const cached = this.matrices.get(fingerprint);
    if (cached !== undefined && cached.version === this.version()) return cached.layers.vectorsOf(chunkIds);
    return readChunkVectors(this.statements, chunkIds, fingerprint);
  }

  async scanChunks(afterId: number, limit: number): Promise<ChunkRecord[]> {
    return (
      this.stmt('SELECT * FROM chunks WHERE live = 1 AND id > ? ORDER BY id LIMIT ?').all(
        afterId,
        limit,
      ) as Row[]
    ).map(toChunk);
  }

  /**
   * The vector leg's state for a fingerprint, bringing its HNSW index up to date first (loading,
   * reconciling or building it) when the vault is above the threshold. Searches do this lazily;
   * call it to pay a build ahead of time.
   */
  async prepareVectorIndex(
    fingerprint: string,
    onProgress?: (done: number, total: number) => void,
  ): Promise<AnnStatus> {
    return this.ann.prepare(fingerprint, onProgress);
  }

  /** The vector leg's mode and saved index state for a fingerprint, without loading or building. */
  inspectVectorIndex(fingerprint: string): AnnInspection {
    return this.ann.inspect(fingerprint);
  }

  /**
   * The Store's index-upkeep capability: the HNSW graph (vector leg) and the lexical leg's own
   * index, both saved beside the file; the vector index first, as a write leaves them.
   */
  readonly indexes: IndexMaintenance = {
    prepare: async (request: PrepareIndexesRequest): Promise<IndexesStatus> => {
      const { vector, lexical } = request;
      const vectorStatus =
        vector === undefined ? null : await this.prepareVectorIndex(vector.fingerprint, vector.onProgress);
      const lexicalStatus = lexical === undefined ? null : await this.prepareLexicalIndex(lexical.onProgress);
      return { vector: vectorStatus, lexical: lexicalStatus };
    },
    inspect: async (fingerprint: string): Promise<IndexesInspection> => ({
      vector: this.inspectVectorIndex(fingerprint),
      lexical: await this.inspectLexicalFile(),
    }),
  };

  async putVectors(fingerprint: string, rows: { chunkId: number; vector: Float32Array }[]): Promise<void> {
    busyAsConflict(() => putVectorRows(this.statements, fingerprint, rows));
    this.touched();
  }

  async deleteVectors(fingerprint: string): Promise<number> {
    const n = busyAsConflict(() => deleteVectorRows(this.statements, fingerprint));
    this.ann.forget(fingerprint);
    this.touched();
    return n;
  }

  async switchEmbedder(change: EmbedderSwitch): Promise<void> {
    busyAsConflict(() =>
      this.db
        .transaction(() => {
          const setMeta = this.stmt(
            'INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
          );
          for (const [k, v] of Object.entries(change.meta)) setMeta.run(k, v);
          for (const [name, data] of Object.entries(change.blobs)) {
            if (data === null) this.stmt('DELETE FROM blobs WHERE name = ?').run(name);
            else
              this.stmt(
                'INSERT INTO blobs(name, data, updated_at) VALUES (?, ?, ?) ON CONFLICT(name) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at',
              ).run(name, Buffer.from(data), now());
          }
          if (change.deleteFingerprint !== null && change.deleteFingerprint !== change.to)
            deleteVectorRows(this.statements, change.deleteFingerprint);
          setMeta.run('embedder', change.to);
        })
        .immediate(),
    );
    if (change.deleteFingerprint !== null && change.deleteFingerprint !== change.to)
      this.ann.forget(change.deleteFingerprint);
    this.touched();
  }

  /** The index files beside the vault: `<file>.<hash>.hnsw[.json]`, `<file>.lexical`, and temp files of either. */
  private sidecarFiles(): string[] {
    if (this.location === ':memory:') return [];
    const dir = dirname(this.location);
    const base = basename(this.location);
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return [];
    }
    return names
      .filter((n) => n.startsWith(`${base}.`) && /\.(hnsw|lexical)(\.json)?($|\.tmp-)/.test(n))
      .map((n) => join(dir, n));
  }

  /**
   * Index files no fingerprint with vectors owns, and temp files whose writer is gone (a temp name
   * carries its writer's pid: `.tmp-<pid>-<hex>`).
   */
  private orphanFiles(vectors: Record<string, number> = this.vectorCounts()): string[] {
    const wanted = new Set<string>([lexicalIndexPath(this.location)]);
    for (const fp of Object.keys(vectors)) {
      const p = hnswIndexPath(this.location, fp);
      wanted.add(p).add(`${p}.json`);
    }
    return this.sidecarFiles().filter((f) => {
      const tmp = /\.tmp-(\d+)-/.exec(f);
      if (tmp !== null) return !pidAlive(Number(tmp[1]));
      return !wanted.has(f);
    });
  }

  private vectorCounts(): Record<string, number> {
    const vectors: Record<string, number> = {};
    for (const r of this.stmt(
      'SELECT v.fingerprint, COUNT(*) AS n FROM vectors v JOIN chunks c ON c.id = v.chunk_id WHERE c.live = 1 GROUP BY v.fingerprint',
    ).all() as Row[]) {
      vectors[r.fingerprint as string] = r.n as number;
    }
    return vectors;
  }

  private fileBytes(): number {
    if (this.location === ':memory:') return 0;
    let total = 0;
    for (const f of [this.location, `${this.location}-wal`, ...this.sidecarFiles()]) {
      try {
        total += statSync(f).size;
      } catch {
        /* absent */
      }
    }
    return total;
  }

  async health(activeFingerprint: string | null): Promise<StoreHealth> {
    const vectors = this.vectorCounts();
    const chunks = (this.stmt('SELECT COUNT(*) FROM chunks WHERE live = 1').raw().get() as [number])[0];
    const active = activeFingerprint === null ? 0 : (vectors[activeFingerprint] ?? 0);
    const otherFingerprints = Object.fromEntries(
      Object.entries(vectors).filter(([fp]) => fp !== activeFingerprint),
    );
    const pageSize = this.db.pragma('page_size', { simple: true }) as number;
    const free = this.db.pragma('freelist_count', { simple: true }) as number;
    return {
      chunksWithoutVector: activeFingerprint === null ? 0 : chunks - active,
      otherFingerprints,
      reclaimableBytes: this.location === ':memory:' ? null : free * pageSize,
      totalBytes: this.location === ':memory:' ? null : this.fileBytes(),
      orphanFiles: this.orphanFiles(vectors),
      unanalysedSections: countUnanalysed(this.db),
    };
  }

  async reanalyse(onProgress?: (done: number, total: number) => void): Promise<number> {
    const n = reanalyse(this.db, onProgress);
    this.touched();
    return n;
  }

  /**
   * VACUUM the file (WAL checkpointed first), then delete orphaned index files. Needs the writer
   * slot (the caller holds it) and no open read transaction in this process.
   */
  async compact(_activeFingerprint: string | null): Promise<CompactResult> {
    const bytesBefore = this.fileBytes();
    const removedFiles = this.orphanFiles();
    busyAsConflict(() => {
      this.db.pragma('wal_checkpoint(TRUNCATE)');
      this.db.exec('VACUUM');
      this.db.pragma('wal_checkpoint(TRUNCATE)');
    });
    for (const f of removedFiles) rmSync(f, { force: true });
    this.touched();
    return { bytesBefore, bytesAfter: this.fileBytes(), removedFiles };
  }

  async stats(): Promise<StoreStats> {
    const one = (sql: string): number => (this.db.prepare(sql).raw().get() as [number])[0];
    const vectors = this.vectorCounts();
    return {
      documents: one('SELECT COUNT(*) FROM documents WHERE superseded_by IS NULL'),
      sections: one('SELECT COUNT(*) FROM sections WHERE live = 1'),
      chunks: one('SELECT COUNT(*) FROM chunks WHERE live = 1'),
      vectors,
      batches: one('SELECT COUNT(*) FROM batches'),
      schemaVersion: this.db.pragma('user_version', { simple: true }) as number,
      engine: {
        name: 'SQLite',
        version: (this.db.prepare('SELECT sqlite_version()').raw().get() as [string])[0],
        readersNeed: '3.43',
      },
    };
  }

  async setMark(docId: string, noisy: boolean | null, reason: string | null): Promise<void> {
    quality.setMark(this.statements, docId, noisy, reason);
    this.touched();
  }

  async listMarks(): Promise<NoiseMark[]> {
    return quality.listMarks(this.statements);
  }

  async addFeedback(rows: readonly FeedbackRecord[]): Promise<void> {
    quality.addFeedback(this.statements, rows);
  }

  async listFeedback(options: ListFeedbackOptions = {}): Promise<FeedbackRecord[]> {
    return quality.listFeedback(this.statements, options);
  }

  async putTranscript(t: TranscriptRecord): Promise<void> {
    quality.putTranscript(this.statements, t);
  }

  async getTranscript(id: string): Promise<TranscriptRecord | null> {
    return quality.getTranscript(this.statements, id);
  }

  async listTranscripts(options: ListTranscriptsOptions = {}): Promise<TranscriptRecord[]> {
    return quality.listTranscripts(this.statements, options);
  }

  async listMeta(): Promise<Record<string, string>> {
    return transfer.listMeta(this.statements);
  }

  async listBlobNames(): Promise<string[]> {
    return transfer.listBlobNames(this.statements);
  }

  async scanDocumentVersions(after: number, limit: number): Promise<ScannedDocumentVersion[]> {
    return transfer.scanDocumentVersions(this.statements, after, limit);
  }

  async listVerdicts(after: string | null, limit: number): Promise<VerdictRecord[]> {
    return transfer.listVerdicts(this.statements, after, limit);
  }

  async importBatches(batches: readonly BatchRecord[]): Promise<void> {
    busyAsConflict(() => transfer.importBatches(this.statements, batches));
  }

  async importDocumentVersions(versions: readonly DocumentVersion[]): Promise<Map<number, number>> {
    const ids = busyAsConflict(() => transfer.importDocumentVersions(this.statements, versions));
    this.touched();
    return ids;
  }

  async importMarks(marks: readonly NoiseMark[]): Promise<void> {
    busyAsConflict(() => transfer.importMarks(this.statements, marks));
    this.touched();
  }

  async getVerdict(key: string): Promise<boolean | null> {
    return quality.getVerdict(this.statements, key);
  }

  async putVerdict(key: string, verdict: boolean): Promise<void> {
    quality.putVerdict(this.statements, key, verdict);
  }

  async enqueueJob(input: EnqueueJobInput): Promise<JobRecord> {
    return busyAsConflict(() => jobs.enqueueJob(this.statements, input));
  }

  async leaseJob(
    worker: WriterClaim,
    now: number,
    leaseMs: number,
    isAlive: (w: WriterClaim) => boolean,
    kinds?: readonly string[],
  ): Promise<JobRecord | null> {
    return busyAsConflict(() => jobs.leaseJob(this.statements, worker, now, leaseMs, isAlive, kinds));
  }

  async heartbeatJob(
    id: string,
    worker: WriterClaim,
    leaseUntil: number,
    progress?: Record<string, unknown>,
  ): Promise<boolean> {
    return busyAsConflict(() => jobs.heartbeatJob(this.statements, id, worker, leaseUntil, progress));
  }

  async ackJob(
    id: string,
    worker: WriterClaim,
    result: Record<string, unknown>,
    now: number,
  ): Promise<boolean> {
    return busyAsConflict(() => jobs.ackJob(this.statements, id, worker, result, now));
  }

  async failJob(
    id: string,
    worker: WriterClaim,
    error: string,
    retryAt: number | null,
    now: number,
  ): Promise<boolean> {
    return busyAsConflict(() => jobs.failJob(this.statements, id, worker, error, retryAt, now));
  }

  async releaseJob(id: string, worker: WriterClaim, now: number): Promise<boolean> {
    return busyAsConflict(() => jobs.releaseJob(this.statements, id, worker, now));
  }

  async getJob(id: string): Promise<JobRecord | null> {
    return jobs.getJob(this.statements, id);
  }

  async listJobs(options: ListJobsOptions = {}): Promise<JobRecord[]> {
    return jobs.listJobs(this.statements, options);
  }

  async retryJob(id: string, now: number): Promise<boolean> {
    return busyAsConflict(() => jobs.retryJob(this.statements, id, now));
  }

  async purgeDeadJobs(): Promise<number> {
    return busyAsConflict(() => jobs.purgeDeadJobs(this.statements));
  }

  async jobCounts(): Promise<Record<JobState, number>> {
    return jobs.jobCounts(this.statements);
  }
}
