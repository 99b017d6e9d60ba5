import { randomUUID } from 'node:crypto';
import type { BatchRecord } from '../../types.js';
import type { StatementCache } from './connection.js';
import { now, type Row, toBatch } from './rows.js';

/**
 * The `batches` table: one row per ingest run, numbered by `seq` so the newest can be found for a
 * rollback (the rollback itself is `revertBatch` in `document-versions.ts`).
 */

/** Record a new running batch with a random 12-hex id and the next `seq`. */
export function insertBatch(statements: StatementCache, label: string): BatchRecord {
  const id = randomUUID().replace(/-/g, '').slice(0, 12);
  const startedAt = now();
  statements.db
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

/** Store a batch's counts and errors; a still 'running' status becomes 'done', a null finish time now. */
export function updateFinishedBatch(statements: StatementCache, batch: BatchRecord): void {
  statements.db
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

/** The newest `limit` batches, newest first. */
export function selectBatches(statements: StatementCache, limit: number): BatchRecord[] {
  return (statements.get('SELECT * FROM batches ORDER BY seq DESC LIMIT ?').all(limit) as Row[]).map(toBatch);
}

export function selectBatch(statements: StatementCache, id: string): BatchRecord | null {
  const r = statements.get('SELECT * FROM batches WHERE id = ?').get(id) as Row | undefined;
  return r === undefined ? null : toBatch(r);
}
