import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { QuiverError } from '../../errors.js';
import type {
  BatchRecord,
  ChunkHit,
  ChunkRecord,
  DocKind,
  DocumentRecord,
  SearchFilter,
  SectionRecord,
} from '../../types.js';
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
import { compileFtsQuery } from './fts-query.js';
import { migrate, SCHEMA_VERSION } from './schema.js';
import { blobToVector, VectorMatrix, vectorToBlob } from './vector-cache.js';
import { bumpVectorRevision, nextChunkIdFloor, raiseChunkHighWater } from './vector-revision.js';

export interface SqliteStoreOptions {
  /** Open read-only (no migrations; fails if the file is missing). */
  readonly?: boolean;
  /**
   * The vector leg's HNSW index (`ann-vector-index.ts`): used above `threshold` live chunks,
   * persisted beside the file (in memory only for `:memory:` and read-only stores).
   */
  ann?: AnnOptions;
}

type Row = Record<string, unknown>;

const now = (): string => new Date().toISOString();

/** A SQL `WHERE` fragment over the live `documents` alias `d`, and its parameters. */
function docFilterSql(
  filter: SearchFilter | undefined,
  hasNoisyMarks: boolean,
): { sql: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  if (filter?.kinds !== undefined && filter.kinds.length > 0) {
    parts.push(`d.kind IN (${filter.kinds.map(() => '?').join(',')})`);
    params.push(...filter.kinds);
  }
  if (filter?.docIds !== undefined) {
    parts.push(`d.id IN (${filter.docIds.map(() => '?').join(',') || 'NULL'})`);
    params.push(...filter.docIds);
  }
  if (filter?.sourcePrefix !== undefined) {
    parts.push(`substr(d.source, 1, ?) = ?`);
    params.push(filter.sourcePrefix.length, filter.sourcePrefix);
  }
  if (filter?.addedAfter !== undefined) {
    parts.push('d.added_at >= ?');
    params.push(filter.addedAfter);
  }
  if (filter?.addedBefore !== undefined) {
    parts.push('d.added_at <= ?');
    params.push(filter.addedBefore);
  }
  if (hasNoisyMarks && filter?.includeNoisy !== true) {
    parts.push('d.id NOT IN (SELECT doc_id FROM marks WHERE noisy = 1)');
  }
  return { sql: parts.join(' AND '), params };
}

function toDocument(r: Row): DocumentRecord {
  return {
    id: r.id as string,
    source: r.source as string,
    title: r.title as string,
    kind: r.kind as DocKind,
    meta: JSON.parse(r.meta as string) as Record<string, unknown>,
    contentHash: r.content_hash as string,
    pages: (r.pages as number | null) ?? null,
    addedAt: r.added_at as string,
    updatedAt: r.updated_at as string,
    batchId: r.batch_id as string,
  };
}

function toSection(r: Row): SectionRecord {
  return {
    id: r.id as string,
    docId: r.doc_id as string,
    parentId: (r.parent_id as string | null) ?? null,
    seq: r.seq as number,
    level: r.level as number,
    title: r.title as string,
    breadcrumb: r.breadcrumb as string,
    pageStart: (r.page_start as number | null) ?? null,
    pageEnd: (r.page_end as number | null) ?? null,
    text: r.text as string,
  };
}

function toChunk(r: Row): ChunkRecord {
  return {
    id: r.id as number,
    docId: r.doc_id as string,
    sectionId: r.section_id as string,
    ord: r.ord as number,
    text: r.text as string,
    page: (r.page as number | null) ?? null,
  };
}

function toFeedback(r: Row): FeedbackRecord {
  return {
    id: r.id as string,
    at: r.at as string,
    q: r.q as string,
    askId: r.ask_id as string,
    sectionId: (r.section_id as string | null) ?? null,
    docId: (r.doc_id as string | null) ?? null,
    rank: (r.rank as number | null) ?? null,
    score: (r.score as number | null) ?? null,
    signal: r.signal as string,
    label: r.label as number,
    weight: r.weight as number,
  };
}

/** A UNIQUE violation as a CONFLICT naming the table and id; anything else passes through. */
function conflictOr(e: unknown, what: string, id: string): unknown {
  const code = (e as { code?: unknown }).code;
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    return new QuiverError('CONFLICT', `quiver: ${what} ${id} already exists`, { cause: e });
  }
  return e;
}

function toBatch(r: Row): BatchRecord {
  return {
    id: r.id as string,
    startedAt: r.started_at as string,
    finishedAt: (r.finished_at as string | null) ?? null,
    status: r.status as BatchRecord['status'],
    label: r.label as string,
    added: r.added as number,
    updated: r.updated as number,
    unchanged: r.unchanged as number,
    failed: r.failed as number,
    errors: JSON.parse(r.errors as string) as BatchRecord['errors'],
  };
}

/** The heading column of a chunk's FTS row: the breadcrumb without the document-title root. */
export function headingOf(breadcrumb: string): string {
  const i = breadcrumb.indexOf(' › ');
  return i < 0 ? '' : breadcrumb.slice(i + 3);
}

/**
 * The default Store: one SQLite file (WAL), FTS5 over chunk text with title and heading as their own
 * columns, vectors as float32 BLOBs keyed by embedder fingerprint, exact-scan vector search over an
 * in-memory matrix that is rebuilt when the file changes, and an HNSW index above `ann.threshold`
 * live chunks (`ann-vector-index.ts`).
 */
export class SqliteStore implements Store {
  readonly kind = 'sqlite';
  readonly location: string;
  private readonly db: Database.Database;
  private readonly matrices = new Map<string, { version: number; matrix: VectorMatrix }>();
  private readonly statements = new Map<string, Database.Statement>();
  private localVersion = 0;
  private vocabReady = false;
  private liveSections: { version: number; count: number } | null = null;
  private readonly ann: AnnVectorLeg;
  /** The id the next inserted chunk must get (ids are never reused; see vector-revision.ts). */
  private chunkIdFloor: number | null = null;

  private constructor(db: Database.Database, location: string, options: SqliteStoreOptions = {}) {
    this.db = db;
    this.location = location;
    this.ann = new AnnVectorLeg(db, {
      ...options.ann,
      dbPath: location === ':memory:' ? null : location,
      save: options.readonly !== true,
    });
  }

  /** Open (and create or migrate) the vault file at `path`; `:memory:` works for tests. */
  static open(path: string, options: SqliteStoreOptions = {}): SqliteStore {
    const location = path === ':memory:' ? path : resolve(path);
    let db: Database.Database;
    try {
      if (location !== ':memory:' && options.readonly !== true)
        mkdirSync(dirname(location), { recursive: true });
      db = new Database(location, {
        readonly: options.readonly === true,
        fileMustExist: options.readonly === true,
      });
    } catch (e) {
      throw new QuiverError('STORE', `quiver: cannot open vault ${location}: ${(e as Error).message}`, {
        cause: e,
      });
    }
    try {
      if (options.readonly !== true) {
        db.pragma('journal_mode = WAL');
        db.pragma('synchronous = NORMAL');
      }
      db.pragma('foreign_keys = ON');
      db.pragma('busy_timeout = 5000');
      db.pragma('cache_size = -65536');
      if (options.readonly !== true) migrate(db);
      else if ((db.pragma('user_version', { simple: true }) as number) > SCHEMA_VERSION) migrate(db);
    } catch (e) {
      db.close();
      if (e instanceof QuiverError) throw e;
      throw new QuiverError('STORE', `quiver: ${location} is not a quiver vault: ${(e as Error).message}`, {
        cause: e,
      });
    }
    return new SqliteStore(db, location, options);
  }

  /** A prepared statement, cached by its SQL (statements used with `.raw()` keep that mode). */
  private stmt(sql: string): Database.Statement {
    let st = this.statements.get(sql);
    if (st === undefined) this.statements.set(sql, (st = this.db.prepare(sql)));
    return st;
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
    const id = randomUUID().replace(/-/g, '').slice(0, 12);
    const startedAt = now();
    this.db
      .prepare(
        `INSERT INTO batches(id, seq, label, started_at, status) VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM batches), ?, ?, 'running')`,
      )
      .run(id, label, startedAt);
    return {
      id,
      startedAt,
      finishedAt: null,
      status: 'running',
      label,
      added: 0,
      updated: 0,
      unchanged: 0,
      failed: 0,
      errors: [],
    };
  }

  async finishBatch(batch: BatchRecord): Promise<void> {
    this.db
      .prepare(
        `UPDATE batches SET finished_at = ?, status = ?, added = ?, updated = ?, unchanged = ?, failed = ?, errors = ? WHERE id = ?`,
      )
      .run(
        batch.finishedAt ?? now(),
        batch.status === 'running' ? 'done' : batch.status,
        batch.added,
        batch.updated,
        batch.unchanged,
        batch.failed,
        JSON.stringify(batch.errors),
        batch.id,
      );
  }

  async listBatches(limit = 50): Promise<BatchRecord[]> {
    return (this.stmt('SELECT * FROM batches ORDER BY seq DESC LIMIT ?').all(limit) as Row[]).map(toBatch);
  }

  async getBatch(id: string): Promise<BatchRecord | null> {
    const r = this.stmt('SELECT * FROM batches WHERE id = ?').get(id) as Row | undefined;
    return r === undefined ? null : toBatch(r);
  }

  async rollbackBatch(id: string): Promise<RollbackResult> {
    const batch = await this.getBatch(id);
    if (batch === null) throw new QuiverError('NOT_FOUND', `quiver: no batch ${id}`);
    if (batch.status === 'rolled_back')
      throw new QuiverError('CONFLICT', `quiver: batch ${id} is already rolled back`);
    const newer = this.db
      .prepare(
        `SELECT b.id FROM batches b WHERE b.seq > (SELECT seq FROM batches WHERE id = ?) AND b.status != 'rolled_back'
         AND (EXISTS (SELECT 1 FROM documents WHERE batch_id = b.id) OR EXISTS (SELECT 1 FROM documents WHERE superseded_by = b.id))
         ORDER BY b.seq LIMIT 1`,
      )
      .get(id) as Row | undefined;
    if (newer !== undefined) {
      throw new QuiverError(
        'CONFLICT',
        `quiver: batch ${id} is not the newest; roll back ${newer.id as string} first`,
      );
    }
    const tx = this.db.transaction(() => {
      const written = this.stmt('SELECT rid FROM documents WHERE batch_id = ?').all(id) as Row[];
      const top = this.stmt(
        'SELECT MAX(c.id) FROM chunks c JOIN documents d ON d.rid = c.doc_rid WHERE d.batch_id = ?',
      )
        .raw()
        .get(id) as [number | null];
      if (top[0] !== null) raiseChunkHighWater(this.db, top[0]);
      bumpVectorRevision(this.db);
      for (const d of written) {
        this.unindex(d.rid as number);
        this.stmt('DELETE FROM documents WHERE rid = ?').run(d.rid);
      }
      const revived = this.stmt('SELECT rid, title FROM documents WHERE superseded_by = ?').all(id) as Row[];
      for (const d of revived) this.revive(d.rid as number, d.title as string);
      this.db
        .prepare(
          `UPDATE batches SET status = 'rolled_back', finished_at = COALESCE(finished_at, ?) WHERE id = ?`,
        )
        .run(now(), id);
      return { batchId: id, removed: written.length, restored: revived.length };
    });
    const result = tx.immediate();
    this.touched();
    return result;
  }

  private revive(rid: number, title: string): void {
    this.stmt('UPDATE documents SET superseded_by = NULL WHERE rid = ?').run(rid);
    this.stmt('UPDATE sections SET live = 1 WHERE doc_rid = ?').run(rid);
    this.stmt('UPDATE chunks SET live = 1 WHERE doc_rid = ?').run(rid);
    const ins = this.stmt('INSERT INTO sections_fts(rowid, body, title, heading) VALUES (?, ?, ?, ?)');
    for (const r of this.stmt('SELECT rid, text, breadcrumb FROM sections WHERE doc_rid = ?').all(
      rid,
    ) as Row[]) {
      ins.run(r.rid, r.text, title, headingOf(r.breadcrumb as string));
    }
  }

  /** Remove a document version's sections from the FTS index. */
  private unindex(rid: number): void {
    const del = this.stmt('DELETE FROM sections_fts WHERE rowid = ?');
    for (const r of this.stmt('SELECT rid FROM sections WHERE doc_rid = ? AND live = 1').all(rid) as Row[])
      del.run(r.rid);
  }

  private supersede(rid: number, batchId: string): void {
    this.unindex(rid);
    this.stmt('UPDATE documents SET superseded_by = ? WHERE rid = ?').run(batchId, rid);
    this.stmt('UPDATE sections SET live = 0 WHERE doc_rid = ?').run(rid);
    this.stmt('UPDATE chunks SET live = 0 WHERE doc_rid = ?').run(rid);
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
        this.chunkIdFloor = nextChunkIdFloor(this.db);
        const out = inputs.map((i) => this.writeOne(i));
        if (out.some((st) => st !== 'unchanged')) bumpVectorRevision(this.db);
        return out;
      })
      .immediate();
    if (statuses.some((st) => st !== 'unchanged')) this.touched();
    return statuses;
  }

  /** One document inside the caller's transaction. */
  private writeOne(input: WriteDocumentInput): WriteStatus {
    const { document: doc, vectors, fingerprint, batchId } = input;
    const existing = this.stmt(
      'SELECT rid, content_hash, added_at FROM documents WHERE id = ? AND superseded_by IS NULL',
    ).get(doc.id) as Row | undefined;
    if (existing !== undefined && existing.content_hash === doc.contentHash) return 'unchanged';
    if (existing !== undefined) this.supersede(existing.rid as number, batchId);
    const t = now();
    const rid = this.stmt(
      `INSERT INTO documents(id, source, title, kind, meta, content_hash, pages, added_at, updated_at, batch_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      doc.id,
      doc.source,
      doc.title,
      doc.kind,
      JSON.stringify(doc.meta),
      doc.contentHash,
      doc.pages,
      (existing?.added_at as string | undefined) ?? t,
      t,
      batchId,
    ).lastInsertRowid as number;
    const insSection = this.stmt(
      `INSERT INTO sections(id, doc_rid, doc_id, parent_id, seq, level, title, breadcrumb, page_start, page_end, text) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const insFts = this.stmt('INSERT INTO sections_fts(rowid, body, title, heading) VALUES (?, ?, ?, ?)');
    for (const s of doc.sections) {
      const srid = insSection.run(
        `${doc.id}#${s.seq}`,
        rid,
        doc.id,
        s.parentSeq === null ? null : `${doc.id}#${s.parentSeq}`,
        s.seq,
        s.level,
        s.title,
        s.breadcrumb,
        s.pageStart,
        s.pageEnd,
        s.text,
      ).lastInsertRowid;
      insFts.run(srid, s.text, doc.title, headingOf(s.breadcrumb));
    }
    const insChunk = this.stmt(
      `INSERT INTO chunks(id, doc_rid, doc_id, section_id, ord, text, page) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    const insVec = this.stmt('INSERT INTO vectors(fingerprint, chunk_id, vector) VALUES (?, ?, ?)');
    doc.chunks.forEach((c, i) => {
      const given = this.chunkIdFloor;
      this.chunkIdFloor = null;
      const id = insChunk.run(given, rid, doc.id, `${doc.id}#${c.sectionSeq}`, c.ord, c.text, c.page)
        .lastInsertRowid as number;
      insVec.run(fingerprint, id, vectorToBlob(vectors[i]!));
    });
    return existing === undefined ? 'added' : 'updated';
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
    return this.stmt('SELECT 1 FROM marks WHERE noisy = 1 LIMIT 1').get() !== undefined;
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

  /**
   * BM25 over `sections_fts`, best first (ties by rowid). The top `limit` rows are ranked inside FTS5
   * before the join to `sections`, so only those rows are looked up: joining first made every match
   * (most of a large vault for a common word) pay a row lookup, ~5× slower at 100k chunks. With a
   * filter, the top `limit × 4 + 32` matches are ranked and filtered; only when fewer than `limit`
   * survive does the exact join-then-rank query run.
   */
  async lexicalSearch(query: LexicalQuery): Promise<LexicalHit[]> {
    const match = compileFtsQuery(query.terms, query.mode);
    if (match === null || query.limit <= 0) return [];
    const f = docFilterSql(query.filter, this.hasNoisyMarks());
    const w = query.weights;
    const toHits = (rows: Row[]): LexicalHit[] =>
      rows.map((r) => ({
        sectionId: r.id as string,
        docId: r.doc_id as string,
        score: -(r.score as number),
      }));
    const ranked = (fetch: number, where: string, params: unknown[]): Row[] => {
      const sql = `SELECT s.id, s.doc_id, f.score FROM (
          SELECT rowid AS rid, bm25(sections_fts, ?, ?, ?) AS score FROM sections_fts
          WHERE sections_fts MATCH ? ORDER BY score, rowid LIMIT ?) f
        JOIN sections s ON s.rid = f.rid ${where} ORDER BY f.score, f.rid`;
      // Filters vary in their number of parameters: prepare those afresh rather than cache each.
      const st = where === '' ? this.stmt(sql) : this.db.prepare(sql);
      return st.all(w.body, w.title, w.heading, match, fetch, ...params) as Row[];
    };
    if (!f.sql) return toHits(ranked(query.limit, '', []));
    const docs = `JOIN documents d ON d.id = s.doc_id WHERE d.superseded_by IS NULL AND ${f.sql}`;
    const fast = ranked(query.limit * 4 + 32, docs, f.params);
    if (fast.length >= query.limit) return toHits(fast.slice(0, query.limit));
    const sql = `SELECT s.id, s.doc_id, bm25(sections_fts, ?, ?, ?) AS score
      FROM sections_fts JOIN sections s ON s.rid = sections_fts.rowid
      WHERE sections_fts MATCH ? AND s.doc_id IN (SELECT d.id FROM documents d WHERE d.superseded_by IS NULL AND ${f.sql})
      ORDER BY score, s.rid LIMIT ?`;
    return toHits(
      this.db.prepare(sql).all(w.body, w.title, w.heading, match, ...f.params, query.limit) as Row[],
    );
  }

  /**
   * Document frequencies from FTS5's own vocabulary (an `fts5vocab` table in the connection's temp
   * schema, so read-only vaults work and no migration is needed); the section count is cached per
   * data version.
   */
  async termStats(stems: readonly string[]): Promise<TermStats> {
    if (!this.vocabReady) {
      this.db.exec(
        `CREATE VIRTUAL TABLE IF NOT EXISTS temp.sections_vocab USING fts5vocab(main, sections_fts, 'row')`,
      );
      this.vocabReady = true;
    }
    const v = this.version();
    if (this.liveSections?.version !== v) {
      const n = (this.stmt('SELECT count(*) AS n FROM sections WHERE live = 1').get() as Row).n as number;
      this.liveSections = { version: v, count: n };
    }
    const lookup = this.stmt('SELECT doc FROM temp.sections_vocab WHERE term = ?');
    const df = new Map<string, number>();
    for (const s of new Set(stems)) {
      const r = lookup.get(s) as Row | undefined;
      if (r !== undefined) df.set(s, r.doc as number);
    }
    return { docs: this.liveSections.count, df };
  }

  private matrix(fingerprint: string): VectorMatrix {
    const v = this.version();
    const cached = this.matrices.get(fingerprint);
    if (cached !== undefined && cached.version === v) return cached.matrix;
    const rows = this.stmt(
      'SELECT c.id, c.doc_id, c.section_id, v.vector FROM vectors v JOIN chunks c ON c.id = v.chunk_id WHERE v.fingerprint = ? AND c.live = 1 ORDER BY c.id',
    )
      .raw()
      .all(fingerprint) as [number, string, string, Buffer][];
    const dims = rows[0] === undefined ? 0 : rows[0][3].byteLength / 4;
    const ids = new Float64Array(rows.length);
    const docIds: string[] = new Array<string>(rows.length);
    const sectionIds: string[] = new Array<string>(rows.length);
    const data = new Float32Array(rows.length * dims);
    rows.forEach((r, i) => {
      ids[i] = r[0];
      docIds[i] = r[1];
      sectionIds[i] = r[2];
      data.set(blobToVector(r[3]), i * dims);
    });
    const matrix = new VectorMatrix(ids, docIds, sectionIds, data, dims);
    this.matrices.set(fingerprint, { version: v, matrix });
    return matrix;
  }

  /**
   * Exact cosine scan over the in-memory matrix at or below `ann.threshold` live chunks (the
   * reference), HNSW above it (`ann-vector-index.ts`). Filters restrict hits inside either search.
   */
  async vectorSearch(query: VectorQuery): Promise<ChunkHit[]> {
    if (query.limit <= 0) return [];
    const f = docFilterSql(query.filter, this.hasNoisyMarks());
    let ok: Set<string> | undefined;
    if (f.sql) {
      ok = new Set(
        (
          this.db
            .prepare(`SELECT d.id FROM documents d WHERE d.superseded_by IS NULL AND ${f.sql}`)
            .raw()
            .all(...f.params) as [string][]
        ).map((r) => r[0]),
      );
    }
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

  async chunkVectors(chunkIds: readonly number[], fingerprint: string): Promise<Map<number, Float32Array>> {
    const stmt = this.stmt('SELECT vector FROM vectors WHERE fingerprint = ? AND chunk_id = ?');
    const out = new Map<number, Float32Array>();
    for (const id of chunkIds) {
      const r = stmt.get(fingerprint, id) as Row | undefined;
      if (r !== undefined) out.set(id, blobToVector(r.vector as Buffer));
    }
    return out;
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
    const ins = this.stmt(
      'INSERT INTO vectors(fingerprint, chunk_id, vector) VALUES (?, ?, ?) ON CONFLICT(fingerprint, chunk_id) DO UPDATE SET vector = excluded.vector',
    );
    const has = this.stmt('SELECT 1 FROM vectors WHERE fingerprint = ? AND chunk_id = ?');
    this.db
      .transaction(() => {
        let overwrote = false;
        for (const r of rows) {
          if (!overwrote && has.get(fingerprint, r.chunkId) !== undefined) overwrote = true;
          ins.run(fingerprint, r.chunkId, vectorToBlob(r.vector));
        }
        if (rows.length > 0) bumpVectorRevision(this.db, overwrote ? fingerprint : undefined);
      })
      .immediate();
    this.touched();
  }

  async deleteVectors(fingerprint: string): Promise<number> {
    const n = this.db
      .transaction(() => {
        const changes = this.stmt('DELETE FROM vectors WHERE fingerprint = ?').run(fingerprint).changes;
        bumpVectorRevision(this.db, fingerprint);
        return changes;
      })
      .immediate();
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
    this.stmt(
      'INSERT INTO marks(doc_id, noisy, reason, at) VALUES (?, ?, ?, ?) ON CONFLICT(doc_id) DO UPDATE SET noisy = excluded.noisy, reason = excluded.reason, at = excluded.at',
    ).run(docId, noisy === null ? null : noisy ? 1 : 0, reason, now());
    this.touched();
  }

  async listMarks(): Promise<NoiseMark[]> {
    return (this.stmt('SELECT * FROM marks WHERE noisy IS NOT NULL ORDER BY at DESC').all() as Row[]).map(
      (r) => ({
        docId: r.doc_id as string,
        noisy: r.noisy === 1,
        reason: (r.reason as string | null) ?? null,
        at: r.at as string,
      }),
    );
  }

  async addFeedback(rows: readonly FeedbackRecord[]): Promise<void> {
    const ins = this.db.prepare(
      'INSERT INTO feedback(id, at, q, ask_id, section_id, doc_id, rank, score, signal, label, weight) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    let current = '';
    try {
      this.db
        .transaction(() => {
          for (const r of rows) {
            current = r.id;
            ins.run(
              r.id,
              r.at,
              r.q,
              r.askId,
              r.sectionId,
              r.docId,
              r.rank,
              r.score,
              r.signal,
              r.label,
              r.weight,
            );
          }
        })
        .immediate();
    } catch (e) {
      throw conflictOr(e, 'feedback row', current);
    }
  }

  async listFeedback(options: ListFeedbackOptions = {}): Promise<FeedbackRecord[]> {
    const dir = (options.order ?? 'newest') === 'newest' ? 'DESC' : 'ASC';
    const where = options.docId === undefined ? '' : 'WHERE doc_id = ?';
    const params: unknown[] = options.docId === undefined ? [] : [options.docId];
    const sql = `SELECT * FROM feedback ${where} ORDER BY at ${dir}, rid ${dir} LIMIT ?`;
    return (this.db.prepare(sql).all(...params, options.limit ?? -1) as Row[]).map(toFeedback);
  }

  async putTranscript(t: TranscriptRecord): Promise<void> {
    try {
      this.stmt(
        'INSERT INTO transcripts(id, at, question, config_fingerprint, body) VALUES (?, ?, ?, ?, ?)',
      ).run(t.id, t.at, t.question, t.configFingerprint, JSON.stringify(t));
    } catch (e) {
      throw conflictOr(e, 'transcript', t.id);
    }
  }

  async getTranscript(id: string): Promise<TranscriptRecord | null> {
    const r = this.stmt('SELECT body FROM transcripts WHERE id = ?').get(id) as Row | undefined;
    return r === undefined ? null : (JSON.parse(r.body as string) as TranscriptRecord);
  }

  async listTranscripts(options: ListTranscriptsOptions = {}): Promise<TranscriptRecord[]> {
    const rows = this.stmt('SELECT body FROM transcripts ORDER BY at DESC, rid DESC LIMIT ? OFFSET ?').all(
      options.limit ?? 20,
      options.offset ?? 0,
    ) as Row[];
    return rows.map((r) => JSON.parse(r.body as string) as TranscriptRecord);
  }

  async getVerdict(key: string): Promise<boolean | null> {
    const r = this.stmt('SELECT verdict FROM verdicts WHERE key = ?').get(key) as Row | undefined;
    return r === undefined ? null : r.verdict === 1;
  }

  async putVerdict(key: string, verdict: boolean): Promise<void> {
    this.stmt(
      'INSERT INTO verdicts(key, verdict, at) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET verdict = excluded.verdict, at = excluded.at',
    ).run(key, verdict ? 1 : 0, now());
  }
}
