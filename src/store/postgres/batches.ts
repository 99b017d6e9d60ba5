import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { QuiverError } from '../../errors.js';
import type { BatchRecord } from '../../types.js';
import type { BatchOwner } from '../store.js';
import { pgError, type Queryable, rows, run, transaction } from './connection.js';
import { now, toBatch } from './rows.js';

/**
 * The `batches` table: one row per ingest run, numbered by `seq` (a sequence, so processes that
 * begin batches at once never collide) so the newest can be found for a rollback. The PostgreSQL
 * twin of src/store/sqlite/batches.ts; a running batch's counts are read from the documents it has
 * written so far, in the same query that reads the batch.
 */

/** Documents batch $1 wrote so far: added (new ids) and updated (ids it superseded). */
const ADDED_SO_FAR = `(SELECT COUNT(*) FROM documents d WHERE d.batch_id = b.id
   AND NOT EXISTS (SELECT 1 FROM documents p WHERE p.superseded_by = b.id AND p.id = d.id))`;
const UPDATED_SO_FAR = `(SELECT COUNT(*) FROM documents d WHERE d.batch_id = b.id
   AND EXISTS (SELECT 1 FROM documents p WHERE p.superseded_by = b.id AND p.id = d.id))`;

/** A batch row with a running batch's counts replaced by what it has written so far. */
const WITH_COUNTS = `SELECT b.id, b.seq, b.label, b.started_at, b.finished_at, b.status, b.unchanged, b.removed,
   b.failed, b.errors, b.owner_pid, b.owner_host,
   CASE WHEN b.status = 'running' THEN ${ADDED_SO_FAR} ELSE b.added END AS added,
   CASE WHEN b.status = 'running' THEN ${UPDATED_SO_FAR} ELSE b.updated END AS updated
 FROM batches b`;

/** Record a new running batch with a random 12-hex id, the next `seq` and the process running it. */
export async function insertBatch(
  db: Queryable,
  label: string,
  owner: BatchOwner | null,
): Promise<BatchRecord> {
  const id = randomUUID().replace(/-/g, '').slice(0, 12);
  const startedAt = now();
  await run(
    db,
    'begin batch',
    `INSERT INTO batches(id, label, started_at, status, owner_pid, owner_host) VALUES ($1, $2, $3, 'running', $4, $5)`,
    [id, label, startedAt, owner?.pid ?? null, owner?.host ?? null],
  );
  return {
    id,
    startedAt,
    finishedAt: null,
    status: 'running',
    label,
    owner,
    added: 0,
    updated: 0,
    unchanged: 0,
    removed: 0,
    failed: 0,
    errors: [],
  };
}

/**
 * Store a batch's counts and errors; a still 'running' status becomes 'done', a null finish time
 * now. A batch that changed nothing and had no failure leaves no row (`undo` then finds the last
 * batch that did something), unless it was interrupted or wrote a document row after all (the
 * delete checks that in the same statement).
 */
export async function updateFinishedBatch(db: Queryable, batch: BatchRecord): Promise<void> {
  const empty = batch.added + batch.updated + batch.removed + batch.failed === 0;
  if (empty && batch.status !== 'interrupted') {
    const deleted = await run(
      db,
      'finish batch',
      `DELETE FROM batches WHERE id = $1
         AND NOT EXISTS (SELECT 1 FROM documents WHERE batch_id = $1)
         AND NOT EXISTS (SELECT 1 FROM documents WHERE superseded_by = $1)`,
      [batch.id],
    );
    if (deleted > 0) return;
  }
  await run(
    db,
    'finish batch',
    `UPDATE batches SET finished_at = $1, status = $2, added = $3, updated = $4, unchanged = $5, removed = $6,
       failed = $7, errors = $8 WHERE id = $9`,
    [
      batch.finishedAt ?? now(),
      batch.status === 'running' ? 'done' : batch.status,
      batch.added,
      batch.updated,
      batch.unchanged,
      batch.removed,
      batch.failed,
      JSON.stringify(batch.errors),
      batch.id,
    ],
  );
}

/**
 * Mark every batch still 'running' as 'interrupted' (the caller holds the writer slot, so no live
 * process can be running one), with counts filled in from what they wrote; those batches, oldest
 * first. One statement, so it is atomic.
 */
export async function interruptRunning(db: Queryable): Promise<BatchRecord[]> {
  const changed = await rows(
    db,
    'interrupt running batches',
    `UPDATE batches b SET status = 'interrupted', finished_at = COALESCE(b.finished_at, $1),
       added = ${ADDED_SO_FAR}, updated = ${UPDATED_SO_FAR}
     WHERE b.status = 'running' RETURNING b.*`,
    [now()],
  );
  return changed.sort((x, y) => Number(x.seq) - Number(y.seq)).map(toBatch);
}

/** The newest `limit` batches, newest first. */
export async function selectBatches(db: Queryable, limit: number): Promise<BatchRecord[]> {
  return (await rows(db, 'list batches', `${WITH_COUNTS} ORDER BY b.seq DESC LIMIT $1`, [limit])).map(
    toBatch,
  );
}

/** One batch by id (a running one with its counts so far), or null. */
export async function selectBatch(db: Queryable, id: string): Promise<BatchRecord | null> {
  const r = await rows(db, 'read batch', `${WITH_COUNTS} WHERE b.id = $1`, [id]);
  return r[0] === undefined ? null : toBatch(r[0]);
}

/**
 * Append batch records as given (`quiver import`), oldest first, after every batch already there;
 * one transaction. An id already there is a CONFLICT naming it, and none of the call is written.
 */
export async function importBatches(pool: pg.Pool, batches: readonly BatchRecord[]): Promise<void> {
  if (batches.length === 0) return;
  await transaction(pool, 'import batches', async (client: pg.PoolClient) => {
    for (const b of batches) {
      try {
        await client.query(
          `INSERT INTO batches(id, label, started_at, finished_at, status, added, updated, unchanged, removed, failed,
             errors, owner_pid, owner_host) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
          [
            b.id,
            b.label,
            b.startedAt,
            b.finishedAt,
            b.status,
            b.added,
            b.updated,
            b.unchanged,
            b.removed,
            b.failed,
            JSON.stringify(b.errors),
            b.owner?.pid ?? null,
            b.owner?.host ?? null,
          ],
        );
      } catch (e) {
        if ((e as { code?: unknown }).code === '23505')
          throw new QuiverError(
            'CONFLICT',
            `quiver: batch ${b.id} already exists; nothing of this call was written`,
            { cause: e },
          );
        throw pgError(e, 'import batches');
      }
    }
  });
}
