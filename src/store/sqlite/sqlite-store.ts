import { resolve } from 'node:path';
import type Database from 'better-sqlite3';
import { QuiverError } from '../../errors.js';
import type { BatchRecord, ChunkHit, ChunkRecord, DocumentRecord, SectionRecord } from '../../types.js';
import type {
  FeedbackRecord,
  LexicalHit,
  LexicalQuery,
  ListDocumentsOptions,
  ListFeedbackOptions,
  ListTranscriptsOptions,
  NoiseMark,
  RollbackResult,
  Store,
  StoreStats,
  TermStats,
  TranscriptRecord,
  VectorQuery,
  WriteDocumentInput,
  WriteStatus,
} from '../store.js';
import { type AnnInspection, type AnnOptions, type AnnStatus, AnnVectorLeg } from './ann-vector-index.js';
import {
  type LexicalIndexInspection,
  type LexicalIndexOptions,
  LexicalIndexLeg,
  type LexicalIndexStatus,
} from './lexical-index-leg.js';
import { insertBatch, selectBatch, selectBatches, updateFinishedBatch } from './batches.js';
import { openVaultDatabase, StatementCache } from './connection.js';
import { allowedDocIds, docFilterSql } from './doc-filter.js';
import { type ChunkIdFloor, revertBatch, writeDocumentVersion } from './document-versions.js';
import {
  countLiveSections,
  createSectionsVocab,
  documentFrequencies,
  lexicalSearch,
} from './lexical-search.js';
import * as quality from './quality-tables.js';
import { now, type Row, toChunk, toDocument, toSection } from './rows.js';
import type { VectorMatrix } from './vector-cache.js';
import { bumpVectorRevision, nextChunkIdFloor } from './vector-revision.js';
import { deleteVectorRows, loadVectorMatrix, putVectorRows, readChunkVectors } from './vector-table.js';

export { headingOf } from './document-versions.js';

export interface SqliteStoreOptions {
  /** Open read-only (no migrations; fails if the file is missing). */
  readonly?: boolean;
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
  private readonly matrices = new Map<string, { version: number; matrix: VectorMatrix }>();
  private localVersion = 0;
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
    });
    this.lexical = new LexicalIndexLeg(this.statements, {
      ...options.lexical,
      dbPath: location === ':memory:' ? null : location,
      save: options.readonly !== true,
    });
  }

  /** Open (and create or migrate) the vault file at `path`; `:memory:` works for tests. */
  static open(path: string, options: SqliteStoreOptions = {}): SqliteStore {
    const location = path === ':memory:' ? path : resolve(path);
    return new SqliteStore(openVaultDatabase(location, options.readonly === true), location, options);
  }

  /** A prepared statement, cached by its SQL (statements used with `.raw()` keep that mode). */
  private stmt(sql: string): Database.Statement {
    return this.statements.get(sql);
  }

  async backup(destination: string): Promise<void> {
    try {
      await this.db.backup(resolve(destination));
    } catch (e) {
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
    return this.localVersion * 1_000_000 + (this.db.pragma('data_version', { simple: true }) as number);
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

  async beginBatch(label: string): Promise<BatchRecord> {
    return insertBatch(this.statements, label);
  }

  async finishBatch(batch: BatchRecord): Promise<void> {
    updateFinishedBatch(this.statements, batch);
  }

  async listBatches(limit = 50): Promise<BatchRecord[]> {
    return selectBatches(this.statements, limit);
  }

  async getBatch(id: string): Promise<BatchRecord | null> {
    return selectBatch(this.statements, id);
  }

  async rollbackBatch(id: string): Promise<RollbackResult> {
    const batch = await this.getBatch(id);
    if (batch === null) throw new QuiverError('NOT_FOUND', `quiver: no batch ${id}`);
    if (batch.status === 'rolled_back')
      throw new QuiverError('CONFLICT', `quiver: batch ${id} is already rolled back`);
    const result = revertBatch(this.statements, id);
    this.touched();
    return result;
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
    const statuses = this.db
      .transaction(() => {
        const floor: ChunkIdFloor = { next: nextChunkIdFloor(this.db) };
        const out = inputs.map((i) => writeDocumentVersion(this.statements, i, floor));
        if (out.some((st) => st !== 'unchanged')) bumpVectorRevision(this.db);
        return out;
      })
      .immediate();
    if (statuses.some((st) => st !== 'unchanged')) this.touched();
    return statuses;
  }

  async getDocument(id: string): Promise<DocumentRecord | null> {
    const r = this.stmt('SELECT * FROM documents WHERE id = ? AND superseded_by IS NULL').get(id) as
      Row | undefined;
    return r === undefined ? null : toDocument(r);
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
    const byId = new Map<string, SectionRecord>();
    for (let i = 0; i < ids.length; i += 500) {
      const part = ids.slice(i, i + 500);
      const rows = this.db
        .prepare(`SELECT * FROM sections WHERE live = 1 AND id IN (${part.map(() => '?').join(',')})`)
        .all(...part) as Row[];
      for (const r of rows) byId.set(r.id as string, toSection(r));
    }
    return ids.map((id) => byId.get(id)).filter((s): s is SectionRecord => s !== undefined);
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
    const out: ChunkRecord[] = [];
    for (let i = 0; i < sectionIds.length; i += 500) {
      const part = sectionIds.slice(i, i + 500);
      if (part.length === 0) continue;
      const rows = this.db
        .prepare(
          `SELECT * FROM chunks WHERE live = 1 AND section_id IN (${part.map(() => '?').join(',')}) ORDER BY section_id, ord`,
        )
        .all(...part) as Row[];
      out.push(...rows.map(toChunk));
    }
    const order = new Map(sectionIds.map((id, i) => [id, i] as const));
    return out.sort((a, b) => order.get(a.sectionId)! - order.get(b.sectionId)! || a.ord - b.ord);
  }

  /** BM25 over the live sections (`lexical-search.ts`). */
  async lexicalSearch(query: LexicalQuery): Promise<LexicalHit[]> {
    const searcher = query.mode === 'phrase' ? null : await this.lexical.searcher(this.version());
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
  async termStats(stems: readonly string[]): Promise<TermStats> {
    const searcher = await this.lexical.searcher(this.version());
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

  /** The exact scan's matrix for a fingerprint, cached per data version. */
  private matrix(fingerprint: string): VectorMatrix {
    const v = this.version();
    const cached = this.matrices.get(fingerprint);
    if (cached !== undefined && cached.version === v) return cached.matrix;
    const matrix = loadVectorMatrix(this.statements, fingerprint);
    this.matrices.set(fingerprint, { version: v, matrix });
    return matrix;
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
    const m = this.matrix(query.fingerprint);
    const allowed = ok;
    const allow = allowed === undefined ? undefined : (row: number) => allowed.has(m.docIds[row]!);
    return m.scan(query.vector, query.limit, allow).map(({ index, score }) => ({
      chunkId: m.chunkIds[index]!,
      docId: m.docIds[index]!,
      sectionId: m.sectionIds[index]!,
      score,
    }));
  }

  /** From the exact scan's matrix when it is loaded and current (no SQL), else from the table. */
  async chunkVectors(chunkIds: readonly number[], fingerprint: string): Promise<Map<number, Float32Array>> {
    const cached = this.matrices.get(fingerprint);
    if (cached !== undefined && cached.version === this.version()) return cached.matrix.vectorsOf(chunkIds);
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

  async putVectors(fingerprint: string, rows: { chunkId: number; vector: Float32Array }[]): Promise<void> {
    putVectorRows(this.statements, fingerprint, rows);
    this.touched();
  }

  async deleteVectors(fingerprint: string): Promise<number> {
    const n = deleteVectorRows(this.statements, fingerprint);
    this.ann.forget(fingerprint);
    this.touched();
    return n;
  }

  async stats(): Promise<StoreStats> {
    const one = (sql: string): number => (this.db.prepare(sql).raw().get() as [number])[0];
    const vectors: Record<string, number> = {};
    for (const r of this.stmt(
      'SELECT v.fingerprint, COUNT(*) AS n FROM vectors v JOIN chunks c ON c.id = v.chunk_id WHERE c.live = 1 GROUP BY v.fingerprint',
    ).all() as Row[]) {
      vectors[r.fingerprint as string] = r.n as number;
    }
    return {
      documents: one('SELECT COUNT(*) FROM documents WHERE superseded_by IS NULL'),
      sections: one('SELECT COUNT(*) FROM sections WHERE live = 1'),
      chunks: one('SELECT COUNT(*) FROM chunks WHERE live = 1'),
      vectors,
      batches: one('SELECT COUNT(*) FROM batches'),
      schemaVersion: this.db.pragma('user_version', { simple: true }) as number,
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

  async getVerdict(key: string): Promise<boolean | null> {
    return quality.getVerdict(this.statements, key);
  }

  async putVerdict(key: string, verdict: boolean): Promise<void> {
    quality.putVerdict(this.statements, key, verdict);
  }
}
