import type pg from 'pg';
import { QuiverError } from '../../errors.js';

/**
 * The PostgreSQL vault's schema, as an ordered list of migrations; `quiver_schema.version` records
 * how many have run. A database with a newer version than this code knows is refused, never
 * downgraded. Migrations run under a transaction-scoped advisory lock, so several servers starting
 * at once migrate exactly once.
 *
 * The tables mirror the SQLite vault (src/store/sqlite/schema.ts) so both backends hold the same
 * records: versioned document rows (`superseded_by IS NULL` is live; sections and chunks carry a
 * `live` flag kept in step), batches numbered by `seq`, and the quality and job tables. Two
 * differences:
 * - the lexical index is a table of postings of the analysed terms (src/text/analyzer.ts) of live
 *   sections only, each with its count per field and its positions (field · 2^24 + index, for
 *   phrases) and the section's token count (so scoring reads postings alone), plus each section's
 *   token count and one row of corpus totals; BM25 is computed from
 *   them in SQL (postgres/lexical-search.ts), with FTS5's formula (src/math/bm25.ts);
 * - vectors are pgvector `halfvec` values (half precision, as the SQLite store keeps them, so both
 *   backends score the same numbers) of any dimension, keyed by embedder fingerprint; an HNSW
 *   index per fingerprint is an expression index over `vector::halfvec(<dims>)` restricted to that
 *   fingerprint (postgres/vectors.ts).
 *
 * Times that SQLite keeps as ISO-8601 text stay text here, so records compare equal across backends;
 * job times are epoch milliseconds (bigint).
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE EXTENSION IF NOT EXISTS vector;
  CREATE TABLE meta (key text PRIMARY KEY, value text NOT NULL);
  CREATE TABLE blobs (name text PRIMARY KEY, data bytea NOT NULL, updated_at text NOT NULL);
  CREATE TABLE batches (
    id text PRIMARY KEY,
    seq bigserial UNIQUE, -- a sequence: batches begun at once by several processes never collide
    label text NOT NULL,
    started_at text NOT NULL,
    finished_at text,
    status text NOT NULL,
    added integer NOT NULL DEFAULT 0,
    updated integer NOT NULL DEFAULT 0,
    unchanged integer NOT NULL DEFAULT 0,
    removed integer NOT NULL DEFAULT 0,
    failed integer NOT NULL DEFAULT 0,
    errors text NOT NULL DEFAULT '[]',
    owner_pid integer,
    owner_host text
  );
  CREATE TABLE documents (
    rid bigserial PRIMARY KEY,
    id text NOT NULL,
    source text NOT NULL,
    title text NOT NULL,
    kind text NOT NULL,
    meta text NOT NULL DEFAULT '{}',
    content_hash text NOT NULL,
    pages integer,
    added_at text NOT NULL,
    updated_at text NOT NULL,
    batch_id text NOT NULL,
    superseded_by text,
    lang text
  );
  CREATE UNIQUE INDEX documents_live ON documents(id) WHERE superseded_by IS NULL;
  CREATE INDEX documents_batch ON documents(batch_id);
  CREATE INDEX documents_superseded ON documents(superseded_by);
  CREATE INDEX documents_source ON documents(source) WHERE superseded_by IS NULL;
  CREATE TABLE sections (
    rid bigserial PRIMARY KEY,
    id text NOT NULL,
    doc_rid bigint NOT NULL REFERENCES documents(rid) ON DELETE CASCADE,
    doc_id text NOT NULL,
    parent_id text,
    seq integer NOT NULL,
    level integer NOT NULL,
    title text NOT NULL,
    breadcrumb text NOT NULL,
    page_start integer,
    page_end integer,
    text text NOT NULL,
    live boolean NOT NULL DEFAULT true,
    lang text,
    tokens integer NOT NULL DEFAULT 0
  );
  CREATE INDEX sections_doc ON sections(doc_rid);
  CREATE INDEX sections_live_id ON sections(id) WHERE live;
  CREATE INDEX sections_live_doc ON sections(doc_id, seq) WHERE live;
  CREATE INDEX sections_lang ON sections(lang) WHERE live;
  CREATE TABLE chunks (
    id bigserial PRIMARY KEY,
    doc_rid bigint NOT NULL REFERENCES documents(rid) ON DELETE CASCADE,
    doc_id text NOT NULL,
    section_id text NOT NULL,
    ord integer NOT NULL,
    text text NOT NULL,
    page integer,
    live boolean NOT NULL DEFAULT true
  );
  CREATE INDEX chunks_doc ON chunks(doc_rid);
  CREATE INDEX chunks_live_section ON chunks(section_id) WHERE live;
  CREATE TABLE vectors (
    fingerprint text NOT NULL,
    chunk_id bigint NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
    vector halfvec NOT NULL,
    PRIMARY KEY (fingerprint, chunk_id)
  );
  CREATE INDEX vectors_chunk ON vectors(chunk_id);
  CREATE TABLE postings (
    term text NOT NULL,
    section_rid bigint NOT NULL REFERENCES sections(rid) ON DELETE CASCADE,
    body integer NOT NULL,
    title integer NOT NULL,
    heading integer NOT NULL,
    len integer NOT NULL,
    pos integer[] NOT NULL,
    -- Covering: scoring reads a term's postings from the index alone (index-only scan), never
    -- the wide rows with their positions, which only phrases need.
    PRIMARY KEY (term, section_rid) INCLUDE (body, title, heading, len)
  );
  CREATE INDEX postings_section ON postings(section_rid);
  CREATE TABLE lexical_totals (
    one integer PRIMARY KEY CHECK (one = 1),
    sections bigint NOT NULL,
    tokens bigint NOT NULL
  );
  INSERT INTO lexical_totals VALUES (1, 0, 0);
  CREATE TABLE marks (doc_id text PRIMARY KEY, noisy boolean, reason text, at text NOT NULL);
  CREATE TABLE feedback (
    rid bigserial PRIMARY KEY,
    id text NOT NULL UNIQUE,
    at text NOT NULL,
    q text NOT NULL,
    ask_id text NOT NULL,
    section_id text,
    doc_id text,
    rank integer,
    score double precision,
    signal text NOT NULL,
    label double precision NOT NULL,
    weight double precision NOT NULL
  );
  CREATE INDEX feedback_doc ON feedback(doc_id);
  CREATE INDEX feedback_at ON feedback(at);
  CREATE TABLE transcripts (
    rid bigserial PRIMARY KEY,
    id text NOT NULL UNIQUE,
    at text NOT NULL,
    question text NOT NULL,
    config_fingerprint text NOT NULL,
    body text NOT NULL
  );
  CREATE TABLE verdicts (key text PRIMARY KEY, verdict boolean NOT NULL, at text NOT NULL);
  CREATE TABLE writer (
    slot integer PRIMARY KEY CHECK (slot = 1),
    pid integer NOT NULL,
    host text NOT NULL,
    proc_start text,
    command text NOT NULL,
    batch_id text,
    started_at text NOT NULL,
    heartbeat_at text NOT NULL
  );
  CREATE TABLE jobs (
    rid bigserial PRIMARY KEY,
    id text NOT NULL UNIQUE,
    kind text NOT NULL,
    payload text NOT NULL,
    job_key text,
    state text NOT NULL CHECK (state IN ('queued', 'leased', 'done', 'dead')),
    attempts integer NOT NULL DEFAULT 0,
    max_attempts integer NOT NULL,
    created_at bigint NOT NULL,
    run_at bigint NOT NULL,
    lease_until bigint,
    worker_pid integer,
    worker_host text,
    worker_start text,
    worker_command text,
    progress text,
    result text,
    last_error text,
    finished_at bigint
  );
  CREATE UNIQUE INDEX jobs_live_key ON jobs(job_key) WHERE job_key IS NOT NULL AND state IN ('queued', 'leased');
  CREATE INDEX jobs_due ON jobs(state, run_at);
  `,
  // 2: rate-limit buckets shared by every server (postgres/shared-state.ts). Unlogged: not written
  // to the WAL (a take per request stays cheap) and emptied by a crash, which leaves every bucket
  // full, as a new one is; a standby has none, and needs none (only the primary admits requests).
  `
  CREATE UNLOGGED TABLE rate_buckets (
    key text PRIMARY KEY,
    tokens double precision NOT NULL,
    at double precision NOT NULL,
    allowed boolean NOT NULL
  );
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Any key; held for the migrating transaction only (`pg_advisory_xact_lock`). */
const MIGRATION_LOCK = 0x71756976; // 'quiv'

/**
 * Run every migration the database has not seen, all in one transaction under the advisory lock
 * (a second process waits, then finds nothing to do). Refuses a newer schema with SCHEMA, and a
 * database that holds tables but no `quiver_schema` (someone else's) with SCHEMA before writing.
 */
export async function migrate(client: pg.ClientBase): Promise<number> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    const has = await client.query<{ n: string }>(
      `SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'quiver_schema'`,
    );
    let current = 0;
    if (Number(has.rows[0]?.n ?? 0) === 0) {
      const other = await client.query<{ table_name: string }>(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_name IN ('documents', 'sections', 'chunks') LIMIT 3`,
      );
      if (other.rows.length > 0)
        throw new QuiverError(
          'SCHEMA',
          `quiver: the database has tables of its own (${other.rows.map((r) => r.table_name).join(', ')}) but is not a quiver vault; it was left unchanged`,
        );
      await client.query('CREATE TABLE quiver_schema (version integer NOT NULL)');
      await client.query('INSERT INTO quiver_schema VALUES (0)');
    } else {
      const v = await client.query<{ version: number }>('SELECT version FROM quiver_schema');
      current = v.rows[0]?.version ?? 0;
    }
    if (current > SCHEMA_VERSION)
      throw new QuiverError(
        'SCHEMA',
        `quiver: the database has schema version ${current}, newer than this quiver knows (${SCHEMA_VERSION}); upgrade quiver`,
      );
    for (let v = current; v < SCHEMA_VERSION; v++) await client.query(MIGRATIONS[v]!);
    if (current < SCHEMA_VERSION)
      await client.query('UPDATE quiver_schema SET version = $1', [SCHEMA_VERSION]);
    await client.query('COMMIT');
    return SCHEMA_VERSION;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  }
}
