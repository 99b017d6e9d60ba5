import { randomUUID } from 'node:crypto';
import type { BatchRecord } from '../../types.js';
import type { BatchOwner } from '../store.js';
import type { StatementCache } from './connection.js';
import { now, type Row, toBatch } from './rows.js';

/**
 * The `batches` table: one row per ingest run, numbered by `seq` so the newest can be found for a
 * rollback (the rollback itself is `revertBatch` in `document-versions.ts`).
 */

/** Record a new running batch with a random 12-hex id, the next `seq` and the process running it. */
export function insertBatch(
  statements: StatementCache,
  label: string,
  owner: BatchOwner | null,
): BatchRecord {
  const id = randomUUID().replace(/-/g, '').slice(0, 12);
  const startedAt = now();
  statements.db
    .prepare(
      `INSERT INTO batches(id, seq, label, started_at, status, owner_pid, owner_host) VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM batches), ?, ?, 'running', ?, ?)`,
    )
    .run(id, label, startedAt, owner?.pid ?? null, owner?.host ?? null);
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
 * batch that did something), unless `keepEmpty`.
 */
export function updateFinishedBatch(statements: StatementCache, batch: BatchRecord): void {
  const { db } = statements;
  const empty = batch.added + batch.updated + batch.removed + batch.failed === 0;
  const wrote = (): boolean =>
    db
      .prepare(
        'SELECT 1 FROM documents WHERE batch_id = ? UNION ALL SELECT 1 FROM documents WHERE superseded_by = ? LIMIT 1',
      )
      .get(batch.id, batch.id) !== undefined;
  db.transaction(() => {
    if (empty && batch.status !== 'interrupted' && !wrote()) {
      db.prepare('DELETE FROM batches WHERE id = ?').run(batch.id);
      return;
    }
    db.prepare(
      `UPDATE batches SET finished_at = ?, status = ?, added = ?, updated = ?, unchanged = ?, removed = ?, failed = ?, errors = ? WHERE id = ?`,
    ).run(
      batch.finishedAt ?? now(),
      batch.status === 'running' ? 'done' : batch.status,
      batch.added,
      batch.updated,
      batch.unchanged,
      batch.removed,
      batch.failed,
      JSON.stringify(batch.errors),
      batch.id,
    );
  }).immediate();
}

/**
 * Mark every batch still 'running' as 'interrupted' (the caller holds the writer slot, so no live
 * process can be running one); their ids, oldest first. Counts are filled in from what they wrote.
 */
export function interruptRunning(statements: StatementCache): BatchRecord[] {
  const { db } = statements;
  return db
    .transaction(() => {
      const rows = db.prepare(`SELECT * FROM batches WHERE status = 'running' ORDER BY seq`).all() as Row[];
      const set = db.prepare(
        `UPDATE batches SET status = 'interrupted', finished_at = COALESCE(finished_at, @at), added = @added, updated = @updated WHERE id = @id`,
      );
      for (const r of rows) {
        const c = statements.get(WRITTEN_SO_FAR).get({ id: r.id }) as Row;
        set.run({ at: now(), id: r.id, added: c.added, updated: c.updated });
      }
      return rows.map((r) => toBatch(db.prepare('SELECT * FROM batches WHERE id = ?').get(r.id) as Row));
    })
    .immediate();
}

/** Documents a batch wrote so far: added (new ids) and updated (ids it superseded). */
const WRITTEN_SO_FAR = `SELECT
   (SELECT COUNT(*) FROM documents d WHERE d.batch_id = @id AND NOT EXISTS (SELECT 1 FROM documents p WHERE p.superseded_by = @id AND p.id = d.id)) AS added,
   (SELECT COUNT(*) FROM documents d WHERE d.batch_id = @id AND EXISTS (SELECT 1 FROM documents p WHERE p.superseded_by = @id AND p.id = d.id)) AS updated`;

/** A batch row; a running batch's counts are read from what it has written so far. */
function withCounts(statements: StatementCache, r: Row): BatchRecord {
  const b = toBatch(r);
  if (b.status !== 'running') return b;
  const c = statements.get(WRITTEN_SO_FAR).get({ id: b.id }) as Row;
  return { ...b, added: c.added as number, updated: c.updated as number };
}

/** The newest `limit` batches, newest first. */
export function selectBatches(statements: StatementCache, limit: number): BatchRecord[] {
  return (statements.get('SELECT * FROM batches ORDER BY seq DESC LIMIT ?').all(limit) as Row[]).map((r) =>
    withCounts(statements, r),
  );
}

export function selectBatch(statements: StatementCache, id: string): BatchRecord | null {
  const r = statements.get('SELECT * FROM batches WHERE id = ?').get(id) as Row | undefined;
  return r === undefined ? null : withCounts(statements, r);
}
