import type {
  BatchRecord,
  BuiltDocument,
  ChunkHit,
  ChunkRecord,
  DocKind,
  DocumentRecord,
  QueryMode,
  SearchFilter,
  SectionRecord,
} from '../types.js';
import type { IndexMaintenance } from './maintenance.js';
import type { SharedState } from './shared-state.js';

/** Field weights for the lexical leg's BM25 (chunk text, document title, section breadcrumb). */
/** Corpus statistics for lexical terms: live sections and each stem's document frequency. */
export interface TermStats {
  docs: number;
  /** Stem → number of live sections containing it (absent: unknown to the index). */
  df: ReadonlyMap<string, number>;
}

export interface FieldWeights {
  body: number;
  title: number;
  heading: number;
}

/**
 * A section found by the lexical leg. What its score means is the same in every backend (checked by
 * number in the contract suite): BM25 over the live sections, each with three fields (its own
 * text, its document's title, its heading), as analysed by `src/text/analyzer.ts`. A query term
 * analysed into one term is a phrase of one; into several (`patient's` → `patient s`), a phrase;
 * `phrase` mode makes one phrase of all terms. For a section and a phrase, f = Σ over the phrase's
 * occurrences of its field's weight; n = live sections containing the phrase; N = live sections;
 * D = the section's terms over all fields; avgdl = the mean D. Then
 *
 *   score = Σ over phrases  max(ln((N − n + 0.5)/(n + 0.5)), 1e-6) · f(k1 + 1) / (f + k1(1 − b + b·D/avgdl))
 *
 * with k1 = 1.2 and b = 0.75 (src/math/bm25.ts, which is SQLite FTS5's `bm25()` negated). `any`
 * returns sections holding at least one phrase, `all` those holding every one.
 */
export interface LexicalHit {
  sectionId: string;
  docId: string;
  /** The BM25 score above; higher is better, always > 0. */
  score: number;
}

/** The lexical leg's query: already tokenised terms (user text never reaches the engine raw). */
export interface LexicalQuery {
  terms: string[];
  mode: QueryMode;
  limit: number;
  weights: FieldWeights;
  filter?: SearchFilter;
}

export interface VectorQuery {
  vector: Float32Array;
  fingerprint: string;
  limit: number;
  filter?: SearchFilter;
}

/** What `writeDocument` did. */
export type WriteStatus = 'added' | 'updated' | 'unchanged';

export interface WriteDocumentInput {
  batchId: string;
  document: BuiltDocument;
  /** One vector per chunk in `document.chunks` order, under `fingerprint`. */
  vectors: Float32Array[];
  fingerprint: string;
}

export interface RollbackResult {
  batchId: string;
  removed: number;
  restored: number;
}

/** The process running a batch. */
export interface BatchOwner {
  pid: number;
  host: string;
}

/** A process asking for the writer slot: pid and host, plus its start time to tell a reused pid apart. */
export interface WriterClaim extends BatchOwner {
  /** Opaque start time of the process (Linux: /proc/<pid>/stat field 22), or null where unknown. */
  procStart: string | null;
  /** What it is doing, for the message another process sees (`add notes/`, `undo`). */
  command: string;
}

/** The process holding the writer slot. */
export interface WriterHolder extends WriterClaim {
  /** The batch it is writing, once it began one. */
  batchId: string | null;
  startedAt: string;
  /** Last sign of life (ISO-8601 UTC); refreshed while it writes. */
  heartbeatAt: string;
}

/**
 * A switch of the vault's embedder, applied in one transaction so that readers see either the old
 * embedder with all its vectors or the new one with all of its own: the `embedder` meta key set
 * to `to`, the other meta keys and blobs written (a null blob is deleted), and every vector of
 * `deleteFingerprint` removed.
 */
export interface EmbedderSwitch {
  to: string;
  meta: Record<string, string>;
  blobs: Record<string, Uint8Array | null>;
  deleteFingerprint: string | null;
}

/** What `health` finds: the facts `quiver doctor` reports and repairs. */
export interface StoreHealth {
  /** Live chunks with no vector under the active fingerprint. */
  chunksWithoutVector: number;
  /** Vectors of live chunks under other fingerprints (left by an interrupted reindex or refit). */
  otherFingerprints: Record<string, number>;
  /** Bytes that `compact` could give back (free pages), or null when the backend cannot tell. */
  reclaimableBytes: number | null;
  /** Size of the store's files in bytes, or null when not file-based. */
  totalBytes: number | null;
  /** Index files beside the store that nothing uses (another embedder's, half-written ones). */
  orphanFiles: string[];
  /** Live sections written before languages were recorded, indexed as English ({@link Store.reanalyse}). */
  unanalysedSections: number;
}

/** What `compact` did. */
export interface CompactResult {
  bytesBefore: number;
  bytesAfter: number;
  removedFiles: string[];
}

export interface StoreStats {
  documents: number;
  sections: number;
  chunks: number;
  vectors: Record<string, number>;
  batches: number;
  schemaVersion: number;
  /**
   * The database engine and version, and the oldest version another program needs to read the
   * vault (SQLite: 3.43, for FTS5's contentless-delete tables); shown by `quiver doctor`.
   */
  engine?: { name: string; version: string; readersNeed: string };
  /**
   * The read replica searches read from, when the backend has one (PostgreSQL with `store.replica`);
   * absent otherwise.
   */
  replica?: ReplicaLag;
}

/**
 * How far a read replica is behind its primary. A replica that did not answer has `error` set and
 * null lags; its reads went to the primary meanwhile.
 */
export interface ReplicaLag {
  /** The replica's location, its password redacted. */
  location: string;
  /** WAL bytes the primary has written that the replica has not replayed yet; 0 when caught up. */
  bytes: number | null;
  /**
   * Seconds since the primary committed the last transaction the replica replayed, when it has
   * something left to replay; 0 when caught up; null when unknown (nothing replayed since it started).
   */
  seconds: number | null;
  /** Why the replica did not answer, or null when it did. */
  error: string | null;
}

export interface ListDocumentsOptions {
  filter?: SearchFilter;
  limit?: number;
  offset?: number;
}

/** A person's judgement of a document as noise (true) or a confirmed keeper (false). */
export interface NoiseMark {
  docId: string;
  noisy: boolean;
  reason: string | null;
  at: string;
}

/** One row of the feedback log: a signal about one section for one question. */
export interface FeedbackRecord {
  id: string;
  /** ISO-8601 UTC. */
  at: string;
  /** The question ('' when none was given). */
  q: string;
  /** Groups the rows of one question (one answer, or one un-grouped rating). */
  askId: string;
  sectionId: string | null;
  docId: string | null;
  /** 1-based position the section was shown at, when known. */
  rank: number | null;
  score: number | null;
  signal: string;
  label: number;
  weight: number;
}

export interface ListFeedbackOptions {
  docId?: string;
  limit?: number;
  /** Defaults to 'newest' (time descending); 'oldest' is log order. Ties keep insertion order. */
  order?: 'newest' | 'oldest';
  /** Rows to skip in that order (paging, as `quiver export` reads the log). Defaults to 0. */
  offset?: number;
}

/** What one `ask` did, kept so an answer can be looked at (and re-run) later. */
export interface TranscriptRecord {
  id: string;
  /** ISO-8601 UTC. */
  at: string;
  question: string;
  /** SHA-256 (hex) of the JSON of the effective configuration without secrets. */
  configFingerprint: string;
  config: Record<string, unknown>;
  prompt: { system: string; user: string };
  answer: string;
  /** Section ids the answer cited, in citation order. */
  cited: string[];
  invalidCitations: number[];
  generator: string;
  usage: { promptTokens: number; completionTokens: number };
  /** Milliseconds per stage. */
  timings: Record<string, number>;
}

export interface ListTranscriptsOptions {
  /** Defaults to 20. */
  limit?: number;
  offset?: number;
}

/** Where a job is: waiting (maybe for a retry time), leased by a worker, done, or given up on. */
export type JobState = 'queued' | 'leased' | 'done' | 'dead';

/** A unit of background work (src/jobs/): its kind names the handler, `payload` its input. */
export interface JobRecord {
  id: string;
  kind: string;
  payload: Record<string, unknown>;
  /** Idempotence key (an ingest's content hash): a second enqueue with a live job's key returns it. */
  key: string | null;
  state: JobState;
  /** Leases taken so far (the one running included). */
  attempts: number;
  maxAttempts: number;
  /** Epoch milliseconds: when it was enqueued, when it may next run, when its lease ends. */
  createdAt: number;
  runAt: number;
  leaseUntil: number | null;
  /** The worker holding the lease (pid, host, start), to tell a killed worker from a slow one. */
  worker: WriterClaim | null;
  /** The handler's last progress report (`{done, total}` or anything JSON). */
  progress: Record<string, unknown> | null;
  /** What `ack` stored. */
  result: Record<string, unknown> | null;
  /** The last failure's message (kept on a dead job). */
  lastError: string | null;
  finishedAt: number | null;
}

export interface EnqueueJobInput {
  kind: string;
  payload: Record<string, unknown>;
  key?: string | null;
  maxAttempts: number;
  /** Epoch ms; the job is not leased before. */
  runAt: number;
}

export interface ListJobsOptions {
  state?: JobState;
  kind?: string;
  /** Defaults to 100; newest first. */
  limit?: number;
}

/**
 * One stored version of a document (the live one, or one an update or a removal superseded and
 * `undo` can bring back) with its sections, chunks and every vector of those chunks: what
 * `quiver export` carries (src/transfer/) and {@link Store.importDocumentVersions} writes back.
 */
export interface DocumentVersion {
  /** The batch that superseded this version (an update or a removal), or null for the live one. */
  supersededBy: string | null;
  /** `batchId`, `addedAt` and `updatedAt` are kept as they are on import. */
  document: DocumentRecord;
  sections: SectionRecord[];
  /** In `ord` order per section, sections in `seq` order; `id` is the store's own chunk id. */
  chunks: ChunkRecord[];
  /** Every vector stored for these chunks, under any fingerprint (chunk ids as in `chunks`). */
  vectors: { fingerprint: string; chunkId: number; vector: Float32Array }[];
}

/** A {@link DocumentVersion} as {@link Store.scanDocumentVersions} pages them. */
export interface ScannedDocumentVersion extends DocumentVersion {
  /** The store's position of this version in write order: the paging cursor (`after`). */
  position: number;
}

/** An LLM judge's cached verdict, as {@link Store.listVerdicts} pages them. */
export interface VerdictRecord {
  key: string;
  verdict: boolean;
}

/**
 * The storage seam. SQLite (`src/store/sqlite/`) is the default; PostgreSQL will implement the same
 * interface and run the same contract suite (`src/store/store.contract.ts`).
 *
 * Writes are transactional per document: a crash never leaves a half-written document.
 */
export interface Store {
  readonly kind: string;
  /** Where the data lives, for humans: a file path, or a URL with its password redacted (`redactLocation`). */
  readonly location: string;

  close(): Promise<void>;
  /**
   * Capability: a consistent copy of the whole store in the file `destination` while it stays in
   * use (SQLite: online backup). Backends whose data lives on a server leave this out (their own
   * tools back them up: `pg_dump`); `quiver backup` then refuses with UNSUPPORTED.
   */
  backup?(destination: string): Promise<void>;
  /**
   * Capability: upkeep and inspection of indexes the backend keeps of its own (SQLite: the HNSW
   * graph and lexical index beside the file; `maintenance.ts`). Backends whose database keeps every
   * index current in its own transactions leave this out, and callers skip the step.
   */
  readonly indexes?: IndexMaintenance;
  /**
   * Capability: state that several server processes share through this store (rate-limit buckets,
   * compare-and-set of meta; `shared-state.ts`). Backends that several processes use at once
   * (PostgreSQL) declare it; a backend one process serves (SQLite) leaves it out, and the server
   * keeps that state in memory.
   */
  readonly shared?: SharedState;

  getMeta(key: string): Promise<string | null>;
  setMeta(key: string, value: string): Promise<void>;
  /** Larger binary state (fitted embedders, models). */
  getBlob(name: string): Promise<Uint8Array | null>;
  putBlob(name: string, data: Uint8Array): Promise<void>;
  /** Remove a blob (an upload whose job has run); false when there was none. */
  deleteBlob(name: string): Promise<boolean>;

  /** Record a running batch (and the process running it, so a crash can be told from a run). */
  beginBatch(label: string, owner?: BatchOwner): Promise<BatchRecord>;
  /** Store its counts and status; a batch that changed nothing and failed nothing leaves no record. */
  finishBatch(batch: BatchRecord): Promise<void>;
  /** Mark batches still 'running' as 'interrupted' (the caller holds the writer slot); those changed. */
  interruptRunningBatches(): Promise<BatchRecord[]>;

  /**
   * Take the writer slot atomically: null when `me` now holds it, else the holder that keeps it
   * (`isAlive` judges whether a recorded holder's process still runs).
   */
  claimWriter(me: WriterClaim, isAlive: (holder: WriterHolder) => boolean): Promise<WriterHolder | null>;
  /** Heartbeat of the slot's holder, optionally naming the batch it runs. */
  touchWriter(me: WriterClaim, batchId?: string | null): Promise<void>;
  releaseWriter(me: WriterClaim): Promise<void>;
  currentWriter(): Promise<WriterHolder | null>;
  listBatches(limit?: number): Promise<BatchRecord[]>;
  getBatch(id: string): Promise<BatchRecord | null>;
  /** Remove what the batch wrote and restore what it replaced. Only the newest live batch may be rolled back. */
  rollbackBatch(id: string): Promise<RollbackResult>;

  /** The current content hash of a document id, or null when absent. */
  contentHash(docId: string): Promise<string | null>;
  /** Write (add or replace) one document with its sections, chunks and vectors in one transaction. */
  writeDocument(input: WriteDocumentInput): Promise<WriteStatus>;
  /** Write several documents in one transaction (faster ingest); statuses in input order. */
  writeDocuments(inputs: readonly WriteDocumentInput[]): Promise<WriteStatus[]>;
  /**
   * Take live documents out of the vault as part of batch `batchId` (undo brings them back);
   * returns how many were live. One transaction.
   */
  removeDocuments(batchId: string, docIds: readonly string[]): Promise<number>;
  /** Every live document's id, source and content hash (for `add --sync`). */
  listDocumentHashes(): Promise<{ id: string; source: string; contentHash: string }[]>;

  getDocument(id: string): Promise<DocumentRecord | null>;
  /** The live documents among `ids`, in the order of `ids` (unknown ids skipped, repeats once). One round trip. */
  getDocuments(ids: readonly string[]): Promise<DocumentRecord[]>;
  findDocuments(ref: string): Promise<DocumentRecord[]>;
  listDocuments(options?: ListDocumentsOptions): Promise<DocumentRecord[]>;
  getSections(ids: readonly string[]): Promise<SectionRecord[]>;
  listSections(docId: string): Promise<SectionRecord[]>;
  getChunks(ids: readonly number[]): Promise<ChunkRecord[]>;
  chunksOfSections(sectionIds: readonly string[]): Promise<ChunkRecord[]>;

  /** Sections ranked by BM25, best first. */
  lexicalSearch(query: LexicalQuery): Promise<LexicalHit[]>;
  /**
   * Live sections and, for each stem (a word as `stem` in text/tokens.ts reduces it), how many of
   * them contain it (unknown stems are absent). Feeds pseudo-relevance feedback (retrieve/prf.ts).
   */
  termStats(stems: readonly string[]): Promise<TermStats>;
  /**
   * The languages the live sections were analysed in (codes of src/text/language.ts, sorted;
   * sections written before languages were recorded are not counted). A query takes the extra
   * forms its words have in these languages (`queryVariants`). Cheap: called by every search.
   */
  languages(): Promise<string[]>;
  /**
   * Record the language of every live section written before languages were recorded and index
   * it as a new write would (stores that always record it leave this out); how many sections were
   * indexed anew. Needs the writer slot.
   */
  reanalyse?(onProgress?: (done: number, total: number) => void): Promise<number>;
  /** Chunks ranked by cosine to the query vector, best first. */
  vectorSearch(query: VectorQuery): Promise<ChunkHit[]>;
  /** Stored vectors of the given chunks under one fingerprint. */
  chunkVectors(chunkIds: readonly number[], fingerprint: string): Promise<Map<number, Float32Array>>;
  /** Every live chunk (id, doc, section, text) in id order, in pages; for reindexing and corpus statistics. */
  scanChunks(afterId: number, limit: number): Promise<ChunkRecord[]>;
  /** Replace vectors of chunks under a fingerprint (reindex). */
  putVectors(fingerprint: string, rows: { chunkId: number; vector: Float32Array }[]): Promise<void>;
  /** Delete every vector of a fingerprint (after a reindex replaced them); returns how many. */
  deleteVectors(fingerprint: string): Promise<number>;
  /** Fingerprints present and their vector counts. */
  stats(): Promise<StoreStats>;
  /** Switch the vault's embedder atomically (end of a reindex or refit). */
  switchEmbedder(change: EmbedderSwitch): Promise<void>;
  /** Consistency facts for `doctor`, judged against the active fingerprint. */
  health(activeFingerprint: string | null): Promise<StoreHealth>;
  /** Give free space back and remove orphaned index files; backends without files leave this out. */
  compact?(activeFingerprint: string | null): Promise<CompactResult>;

  setMark(docId: string, noisy: boolean | null, reason: string | null): Promise<void>;
  listMarks(): Promise<NoiseMark[]>;

  /** Append feedback rows (one transaction). A duplicate id is a CONFLICT. */
  addFeedback(rows: readonly FeedbackRecord[]): Promise<void>;
  listFeedback(options?: ListFeedbackOptions): Promise<FeedbackRecord[]>;

  /** Store an answer's transcript (a duplicate id is a CONFLICT). */
  putTranscript(t: TranscriptRecord): Promise<void>;
  getTranscript(id: string): Promise<TranscriptRecord | null>;
  /** Newest first. */
  listTranscripts(options?: ListTranscriptsOptions): Promise<TranscriptRecord[]>;

  /**
   * Moving a vault between backends (`quiver export` / `quiver import`, src/transfer/). Reads:
   * - `listMeta`: every meta entry that is the vault's state (embedder, switches, tokens, a
   *   reindex's progress), without the backend's own bookkeeping (SQLite: the vector revision and
   *   its log, breaks, the chunk-id high-water mark, the rollback count).
   * - `listBlobNames`: every blob's name, sorted.
   * - `scanDocumentVersions(after, limit)`: every document version (live and superseded), in
   *   write order from the first `position` above `after` (start at 0), at most `limit` per page.
   * - `listVerdicts(after, limit)`: cached verdicts in key order from the first key above `after`
   *   (null: from the start).
   * Writes, each one transaction, for a vault being filled by an import:
   * - `importBatches`: batch records as given (id, times, status, owner, counts, errors), after
   *   every batch already there and in the order given (oldest first); an id already there is a
   *   CONFLICT and none of the call is written.
   * - `importDocumentVersions`: versions as given (their batch ids, times and superseding batch
   *   kept; live ones searchable in both legs, superseded ones only revived by `undo`); chunks get
   *   new store ids, and the result maps each given chunk id to its new one. A live version whose
   *   document id is already live is a CONFLICT and none of the call is written.
   * - `importMarks`: noise marks with their own times, replacing any mark of the same document.
   */
  listMeta(): Promise<Record<string, string>>;
  listBlobNames(): Promise<string[]>;
  scanDocumentVersions(after: number, limit: number): Promise<ScannedDocumentVersion[]>;
  listVerdicts(after: string | null, limit: number): Promise<VerdictRecord[]>;
  importBatches(batches: readonly BatchRecord[]): Promise<void>;
  importDocumentVersions(versions: readonly DocumentVersion[]): Promise<Map<number, number>>;
  importMarks(marks: readonly NoiseMark[]): Promise<void>;

  /** The LLM judge's cached verdict for a key, or null when not cached. */
  getVerdict(key: string): Promise<boolean | null>;
  putVerdict(key: string, verdict: boolean): Promise<void>;

  /**
   * The job queue (policy such as backoff lives in src/jobs/; the store only records). `enqueue`
   * with a `key` that a queued or leased job already has returns that job unchanged.
   */
  enqueueJob(input: EnqueueJobInput): Promise<JobRecord>;
  /**
   * Lease the next job due at `now` (queued with runAt <= now, oldest runAt first, or leased with
   * an expired lease or a holder `isAlive` says is gone) for `leaseMs`, atomically; attempts + 1.
   * Only jobs whose kind is in `kinds` (when given). Null when none is due.
   */
  leaseJob(
    worker: WriterClaim,
    now: number,
    leaseMs: number,
    isAlive: (worker: WriterClaim) => boolean,
    kinds?: readonly string[],
  ): Promise<JobRecord | null>;
  /** Extend the lease (and store progress) while `worker` holds it; false when it no longer does. */
  heartbeatJob(
    id: string,
    worker: WriterClaim,
    leaseUntil: number,
    progress?: Record<string, unknown>,
  ): Promise<boolean>;
  /** Finish a held job as done with its result; false when the lease was lost. */
  ackJob(id: string, worker: WriterClaim, result: Record<string, unknown>, now: number): Promise<boolean>;
  /**
   * Record a failed attempt of a held job: back to 'queued' at `retryAt`, or 'dead' when
   * `retryAt` is null; the error is kept. False when the lease was lost.
   */
  failJob(
    id: string,
    worker: WriterClaim,
    error: string,
    retryAt: number | null,
    now: number,
  ): Promise<boolean>;
  /**
   * Give a held job back unfinished, due at `now`, without using up the attempt (its worker was
   * asked to stop: SIGTERM); its last error is left as it was. False when the lease was lost.
   */
  releaseJob(id: string, worker: WriterClaim, now: number): Promise<boolean>;
  getJob(id: string): Promise<JobRecord | null>;
  listJobs(options?: ListJobsOptions): Promise<JobRecord[]>;
  /** A dead job back to 'queued' (attempts reset, due at `now`); false when it is not dead. */
  retryJob(id: string, now: number): Promise<boolean>;
  /** Delete dead jobs; how many. */
  purgeDeadJobs(): Promise<number>;
  /** Counts per state. */
  jobCounts(): Promise<Record<JobState, number>>;
}

export type { DocKind };
