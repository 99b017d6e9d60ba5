import { createHash } from 'node:crypto';
import type pg from 'pg';
import { fromFloat16Bits, toFloat16Bits } from '../../math/float16.js';
import type { ChunkHit, SearchFilter } from '../../types.js';
import { type PgRow, type Queryable, rows, run } from './connection.js';
import { docFilterSql } from './doc-filter.js';

/**
 * The `vectors` table (pgvector `halfvec`, one row per chunk and embedder fingerprint) and the
 * vector leg over it: an exact cosine scan, or an HNSW index once `prepareVectorIndex` built one
 * for the fingerprint.
 */

/**
 * A vector as pgvector's text form, each value rounded to half precision first (what the column
 * keeps; the SQLite store rounds the same way, so a vector reads back identically from both).
 * `String` of a half-precision value is its shortest exact decimal, which pgvector parses exactly.
 */
export function vectorLiteral(v: Float32Array): string {
  let s = '[';
  for (let i = 0; i < v.length; i++) {
    if (i > 0) s += ',';
    s += String(fromFloat16Bits(toFloat16Bits(v[i]!)));
  }
  return `${s}]`;
}

/** pgvector's text form back to a Float32Array (`[1,2.5,-3]`; `[]` → empty). */
export function parseVector(text: string): Float32Array {
  const inner = text.slice(1, -1).trim();
  if (inner === '') return new Float32Array(0);
  return Float32Array.from(inner.split(','), Number);
}

/** The HNSW index of one fingerprint: a name from its hash (any fingerprint text is safe). */
export function vectorIndexName(fingerprint: string): string {
  return `vectors_hnsw_${createHash('sha256').update(fingerprint).digest('hex').slice(0, 16)}`;
}

/** Insert (or replace) vectors of chunks under a fingerprint, in one statement. */
export async function putVectorRows(
  db: Queryable,
  fingerprint: string,
  items: readonly { chunkId: number; vector: Float32Array }[],
): Promise<void> {
  if (items.length === 0) return;
  await run(
    db,
    'writing vectors',
    `INSERT INTO vectors(fingerprint, chunk_id, vector)
       SELECT $1, c, v::halfvec FROM unnest($2::bigint[], $3::text[]) AS t(c, v)
     ON CONFLICT (fingerprint, chunk_id) DO UPDATE SET vector = excluded.vector`,
    [fingerprint, items.map((i) => i.chunkId), items.map((i) => vectorLiteral(i.vector))],
  );
}

/** Stored vectors of chunks under a fingerprint (absent ones left out). */
export async function readChunkVectors(
  db: Queryable,
  chunkIds: readonly number[],
  fingerprint: string,
): Promise<Map<number, Float32Array>> {
  const out = new Map<number, Float32Array>();
  if (chunkIds.length === 0) return out;
  const found = await rows<{ chunk_id: number; v: string }>(
    db,
    'reading vectors',
    'SELECT chunk_id, vector::text AS v FROM vectors WHERE fingerprint = $1 AND chunk_id = ANY($2::bigint[])',
    [fingerprint, [...chunkIds]],
  );
  for (const r of found) out.set(r.chunk_id, parseVector(r.v));
  return out;
}

/** The dimension of a fingerprint's vectors, or null when it has none. */
export async function vectorDims(db: Queryable, fingerprint: string): Promise<number | null> {
  const r = await rows<{ d: number }>(
    db,
    'reading vector dimensions',
    'SELECT vector_dims(vector) AS d FROM vectors WHERE fingerprint = $1 LIMIT 1',
    [fingerprint],
  );
  return r[0]?.d ?? null;
}

/** Whether the fingerprint's HNSW index exists and is valid (a failed concurrent build is not). */
export async function hasVectorIndex(db: Queryable, fingerprint: string): Promise<boolean> {
  const r = await rows(
    db,
    'checking the vector index',
    `SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
      WHERE c.relname = $1 AND c.relnamespace = current_schema()::regnamespace AND i.indisvalid`,
    [vectorIndexName(fingerprint)],
  );
  return r.length > 0;
}

/**
 * Build the fingerprint's HNSW index (cosine, pgvector's m and ef_construction given) without
 * blocking writes (`CONCURRENTLY`, so outside any transaction); a half-built one left by an
 * interrupted build is dropped first. The predicate names the fingerprint as a quoted literal
 * (DDL takes no parameters), escaped by the driver. Returns the dimension indexed, or null when
 * the fingerprint has no vectors yet.
 */
export async function buildVectorIndex(
  pool: pg.Pool,
  fingerprint: string,
  params: { m: number; efConstruction: number },
): Promise<number | null> {
  const dims = await vectorDims(pool, fingerprint);
  if (dims === null) return null;
  if (await hasVectorIndex(pool, fingerprint)) return dims;
  const name = vectorIndexName(fingerprint);
  const client = await pool.connect();
  try {
    await client.query(`DROP INDEX CONCURRENTLY IF EXISTS ${client.escapeIdentifier(name)}`);
    await client.query(
      `CREATE INDEX CONCURRENTLY ${client.escapeIdentifier(name)} ON vectors
         USING hnsw ((vector::halfvec(${Math.floor(dims)})) halfvec_cosine_ops)
         WITH (m = ${Math.floor(params.m)}, ef_construction = ${Math.floor(params.efConstruction)})
         WHERE fingerprint = ${client.escapeLiteral(fingerprint)}`,
    );
  } finally {
    client.release();
  }
  return dims;
}

/** Drop a fingerprint's HNSW index (its vectors are gone). */
export async function dropVectorIndex(db: Queryable, fingerprint: string): Promise<void> {
  await run(db, 'dropping a vector index', `DROP INDEX IF EXISTS ${vectorIndexName(fingerprint)}`);
}

/**
 * Live chunks ranked by cosine similarity (1 − cosine distance) to `vector`, best first, filtered
 * inside the search. A zero vector (stored or asked) has no direction: pgvector's distance is NaN,
 * and such rows are left out (`< 'NaN'`: PostgreSQL orders NaN above every number). With `indexedDims` (the fingerprint has an HNSW index of that dimension) the
 * ORDER BY matches the index expression, so the planner walks the graph, and pgvector's iterative
 * scan keeps walking until `limit` rows pass the filters; without, an exact scan.
 */
export async function searchVectors(
  pool: pg.Pool,
  q: { vector: Float32Array; fingerprint: string; limit: number; filter?: SearchFilter },
  hasNoisyMarks: boolean,
  indexed: { dims: number; efSearch: number } | null,
): Promise<ChunkHit[]> {
  const f = docFilterSql(q.filter, hasNoisyMarks, 4);
  const col = indexed === null ? 'v.vector' : `(v.vector::halfvec(${indexed.dims}))`;
  const arg = indexed === null ? '$1::halfvec' : `$1::halfvec(${indexed.dims})`;
  const where = `v.fingerprint = $2 AND c.live ${f.sql ? `AND ${f.sql}` : ''}`;
  // Live chunks belong to live documents, so the documents are joined only for a filter.
  const from = `vectors v JOIN chunks c ON c.id = v.chunk_id${f.sql ? ' JOIN documents d ON d.rid = c.doc_rid' : ''}`;
  // Exact: each distance computed once, NaN (a zero vector) dropped. Indexed: the ORDER BY is the
  // index's expression itself, so the planner walks the HNSW graph; the NaN filter then only
  // looks at the rows the graph yields.
  const sql =
    indexed === null
      ? `SELECT id, doc_id, section_id, 1 - dist AS score FROM (
           SELECT c.id, c.doc_id, c.section_id, (${col} <=> ${arg}) AS dist FROM ${from} WHERE ${where}) x
         WHERE dist < 'NaN'::float8 ORDER BY dist LIMIT $3`
      : `SELECT c.id, c.doc_id, c.section_id, 1 - (${col} <=> ${arg}) AS score FROM ${from}
          WHERE ${where} AND (${col} <=> ${arg}) < 'NaN'::float8 ORDER BY ${col} <=> ${arg} LIMIT $3`;
  const params = [vectorLiteral(q.vector), q.fingerprint, q.limit, ...f.params];
  let found: PgRow[];
  if (indexed === null) found = await rows(pool, 'searching vectors', sql, params);
  else {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`SET LOCAL hnsw.ef_search = ${Math.max(1, Math.floor(indexed.efSearch))}`);
      await client.query(`SET LOCAL hnsw.iterative_scan = relaxed_order`);
      found = await rows(client, 'searching vectors', sql, params);
      await client.query('COMMIT');
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      client.release();
    }
    // relaxed_order may return rows slightly out of order: sort by the exact score.
    found.sort((a, b) => (b.score as number) - (a.score as number));
  }
  return found.map((r) => ({
    chunkId: r.id as number,
    docId: r.doc_id as string,
    sectionId: r.section_id as string,
    score: r.score as number,
  }));
}
