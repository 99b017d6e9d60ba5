import type Database from 'better-sqlite3';
import { QuiverError } from '../../errors.js';

/**
 * The vault file's schema, as an ordered list of migrations. `user_version` records how many have
 * run. A file with a newer version than this code knows is refused (never silently downgraded).
 *
 * Versioned rows: a document update or a rollback never rewrites history in place. Each document
 * version is a row (`rid`); the live version has `superseded_by IS NULL`; sections and chunks carry
 * a `live` flag kept in step, and only live sections are in the FTS index (the lexical leg ranks
 * sections: measured better than ranking chunks, see README) and only live chunks are in the
 * vector cache. Undo of
 * batch B deletes the rows B wrote and revives the rows B superseded.
 */
export const MIGRATIONS: readonly string[] = [
  // 1: the core vault.
  `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  CREATE TABLE blobs (name TEXT PRIMARY KEY, data BLOB NOT NULL, updated_at TEXT NOT NULL);
  CREATE TABLE batches (
    id TEXT PRIMARY KEY,
    seq INTEGER NOT NULL UNIQUE,
    label TEXT NOT NULL,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    status TEXT NOT NULL,
    added INTEGER NOT NULL DEFAULT 0,
    updated INTEGER NOT NULL DEFAULT 0,
    unchanged INTEGER NOT NULL DEFAULT 0,
    failed INTEGER NOT NULL DEFAULT 0,
    errors TEXT NOT NULL DEFAULT '[]'
  );
  CREATE TABLE documents (
    rid INTEGER PRIMARY KEY,
    id TEXT NOT NULL,
    source TEXT NOT NULL,
    title TEXT NOT NULL,
    kind TEXT NOT NULL,
    meta TEXT NOT NULL DEFAULT '{}',
    content_hash TEXT NOT NULL,
    pages INTEGER,
    added_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    batch_id TEXT NOT NULL,
    superseded_by TEXT
  );
  CREATE UNIQUE INDEX documents_live ON documents(id) WHERE superseded_by IS NULL;
  CREATE INDEX documents_batch ON documents(batch_id);
  CREATE INDEX documents_superseded ON documents(superseded_by);
  CREATE INDEX documents_source ON documents(source) WHERE superseded_by IS NULL;
  CREATE TABLE sections (
    rid INTEGER PRIMARY KEY,
    id TEXT NOT NULL,
    doc_rid INTEGER NOT NULL REFERENCES documents(rid) ON DELETE CASCADE,
    doc_id TEXT NOT NULL,
    parent_id TEXT,
    seq INTEGER NOT NULL,
    level INTEGER NOT NULL,
    title TEXT NOT NULL,
    breadcrumb TEXT NOT NULL,
    page_start INTEGER,
    page_end INTEGER,
    text TEXT NOT NULL,
    live INTEGER NOT NULL DEFAULT 1
  );
  CREATE INDEX sections_doc ON sections(doc_rid);
  CREATE INDEX sections_live_id ON sections(id) WHERE live = 1;
  CREATE TABLE chunks (
    id INTEGER PRIMARY KEY,
    doc_rid INTEGER NOT NULL REFERENCES documents(rid) ON DELETE CASCADE,
    doc_id TEXT NOT NULL,
    section_id TEXT NOT NULL,
    ord INTEGER NOT NULL,
    text TEXT NOT NULL,
    page INTEGER,
    live INTEGER NOT NULL DEFAULT 1
  );
  CREATE INDEX chunks_doc ON chunks(doc_rid);
  CREATE INDEX chunks_live_section ON chunks(section_id) WHERE live = 1;
  CREATE TABLE vectors (
    fingerprint TEXT NOT NULL,
    chunk_id INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
    vector BLOB NOT NULL,
    PRIMARY KEY (fingerprint, chunk_id)
  ) WITHOUT ROWID;
  CREATE INDEX vectors_chunk ON vectors(chunk_id);
  CREATE VIRTUAL TABLE sections_fts USING fts5(
    body, title, heading,
    content = '', contentless_delete = 1,
    tokenize = 'porter unicode61 remove_diacritics 2'
  );
  CREATE TABLE marks (
    doc_id TEXT PRIMARY KEY,
    noisy INTEGER,
    reason TEXT,
    at TEXT NOT NULL
  );
  `,
  // 2: the quality loop (feedback log, answer transcripts, LLM-judge verdict cache). Switches and
  // fitted models live in `meta` and `blobs`. `rid` orders rows that share a timestamp.
  `
  CREATE TABLE feedback (
    rid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    at TEXT NOT NULL,
    q TEXT NOT NULL,
    ask_id TEXT NOT NULL,
    section_id TEXT,
    doc_id TEXT,
    rank INTEGER,
    score REAL,
    signal TEXT NOT NULL,
    label REAL NOT NULL,
    weight REAL NOT NULL
  );
  CREATE INDEX feedback_doc ON feedback(doc_id);
  CREATE INDEX feedback_at ON feedback(at);
  CREATE TABLE transcripts (
    rid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    at TEXT NOT NULL,
    question TEXT NOT NULL,
    config_fingerprint TEXT NOT NULL,
    body TEXT NOT NULL
  );
  CREATE TABLE verdicts (
    key TEXT PRIMARY KEY,
    verdict INTEGER NOT NULL,
    at TEXT NOT NULL
  );
  `,
  // 3: safe concurrency. Each batch records the process that runs it (so a crashed one is told from
  // a running one) and how many documents it removed (`quiver rm`, `add --sync`); `writer` holds at
  // most one row: the process allowed to write batches, reindex or undo now (src/store/writer.ts).
  `
  ALTER TABLE batches ADD COLUMN owner_pid INTEGER;
  ALTER TABLE batches ADD COLUMN owner_host TEXT;
  ALTER TABLE batches ADD COLUMN removed INTEGER NOT NULL DEFAULT 0;
  CREATE TABLE writer (
    slot INTEGER PRIMARY KEY CHECK (slot = 1),
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    proc_start TEXT,
    command TEXT NOT NULL,
    batch_id TEXT,
    started_at TEXT NOT NULL,
    heartbeat_at TEXT NOT NULL
  );
  `,
  // 4: compact vectors. New rows are half precision (src/store/sqlite/vector-blob.ts: odd-length
  // BLOBs; the float32 rows already there stay valid), and the table becomes an ordinary rowid table
  // keyed by a unique index: in the WITHOUT ROWID table a row over about 1,000 bytes (a 512-dim
  // vector, half or single precision) spilled to an overflow page of its own, 4 KiB per vector.
  `
  CREATE TABLE vectors_v4 (
    fingerprint TEXT NOT NULL,
    chunk_id INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
    vector BLOB NOT NULL
  );
  INSERT INTO vectors_v4(fingerprint, chunk_id, vector)
    SELECT fingerprint, chunk_id, vector FROM vectors ORDER BY fingerprint, chunk_id;
  DROP TABLE vectors;
  ALTER TABLE vectors_v4 RENAME TO vectors;
  CREATE UNIQUE INDEX vectors_key ON vectors(fingerprint, chunk_id);
  CREATE INDEX vectors_chunk ON vectors(chunk_id);
  `,
  // 5: languages. Each document and section records the language its words were analysed in
  // (src/text/language.ts; NULL: written by an earlier release, read as English), so the index
  // stems each in its own language and a query knows which languages the vault holds.
  `
  ALTER TABLE documents ADD COLUMN lang TEXT;
  ALTER TABLE sections ADD COLUMN lang TEXT;
  CREATE INDEX sections_lang ON sections(lang) WHERE live = 1;
  `,
  // 6: the job queue (src/jobs/, src/store/sqlite/jobs.ts). A job is queued (due at `run_at`),
  // leased by one worker until `lease_until` (times are epoch ms), done, or dead with its last
  // error. `job_key` makes enqueueing idempotent: at most one live (queued or leased) job per key.
  `
  CREATE TABLE jobs (
    rid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    job_key TEXT,
    state TEXT NOT NULL CHECK (state IN ('queued', 'leased', 'done', 'dead')),
    attempts INTEGER NOT NULL DEFAULT 0,
    max_attempts INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    run_at INTEGER NOT NULL,
    lease_until INTEGER,
    worker_pid INTEGER,
    worker_host TEXT,
    worker_start TEXT,
    worker_command TEXT,
    progress TEXT,
    result TEXT,
    last_error TEXT,
    finished_at INTEGER
  );
  CREATE UNIQUE INDEX jobs_live_key ON jobs(job_key) WHERE job_key IS NOT NULL AND state IN ('queued', 'leased');
  CREATE INDEX jobs_due ON jobs(state, run_at);
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Run every migration the file has not seen, each in its own transaction. */
export function migrate(db: Database.Database): number {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > SCHEMA_VERSION) {
    throw new QuiverError(
      'SCHEMA',
      `quiver: the vault file has schema version ${current}, newer than this quiver knows (${SCHEMA_VERSION}); upgrade quiver`,
    );
  }
  for (let v = current; v < SCHEMA_VERSION; v++) {
    const sql = MIGRATIONS[v]!;
    db.transaction(() => {
      db.exec(sql);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
  return SCHEMA_VERSION;
}
