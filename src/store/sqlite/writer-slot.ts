import type { WriterClaim, WriterHolder } from '../store.js';
import type { StatementCache } from './connection.js';
import { now, type Row, toHolder } from '../records.js';

/**
 * The `writer` table's one row: which process may write batches, reindex or undo now. Claiming is
 * one immediate transaction (read the holder, take the slot if it is free, ours, or its process is
 * gone), so two processes can never both hold it. Whether a holder is alive is the caller's
 * judgement (`isAlive`), made from the recorded pid, host and process start (src/store/writer.ts).
 */

const same = (a: WriterClaim, b: WriterClaim): boolean =>
  a.pid === b.pid && a.host === b.host && a.procStart === b.procStart;

export function readWriter(statements: StatementCache): WriterHolder | null {
  const r = statements.get('SELECT * FROM writer WHERE slot = 1').get() as Row | undefined;
  return r === undefined ? null : toHolder(r);
}

/** Take the slot for `me`: null when taken (or already ours), else the live holder that keeps it. */
export function claimWriter(
  statements: StatementCache,
  me: WriterClaim,
  isAlive: (holder: WriterHolder) => boolean,
): WriterHolder | null {
  const { db } = statements;
  return db
    .transaction((): WriterHolder | null => {
      const holder = readWriter(statements);
      if (holder !== null && same(holder, me)) return null;
      if (holder !== null && isAlive(holder)) return holder;
      const t = now();
      db.prepare(
        `INSERT INTO writer(slot, pid, host, proc_start, command, batch_id, started_at, heartbeat_at) VALUES (1, ?, ?, ?, ?, NULL, ?, ?)
         ON CONFLICT(slot) DO UPDATE SET pid = excluded.pid, host = excluded.host, proc_start = excluded.proc_start,
           command = excluded.command, batch_id = NULL, started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at`,
      ).run(me.pid, me.host, me.procStart, me.command, t, t);
      return null;
    })
    .immediate();
}

/** Refresh the holder's heartbeat (and the batch it runs, when given); no-op when not the holder. */
export function touchWriter(statements: StatementCache, me: WriterClaim, batchId?: string | null): void {
  const sql =
    batchId === undefined
      ? 'UPDATE writer SET heartbeat_at = ? WHERE slot = 1 AND pid = ? AND host = ?'
      : 'UPDATE writer SET heartbeat_at = ?, batch_id = ? WHERE slot = 1 AND pid = ? AND host = ?';
  const args = batchId === undefined ? [now(), me.pid, me.host] : [now(), batchId, me.pid, me.host];
  statements.get(sql).run(...args);
}

/** Give the slot up (only when `me` holds it). */
export function releaseWriter(statements: StatementCache, me: WriterClaim): void {
  statements.get('DELETE FROM writer WHERE slot = 1 AND pid = ? AND host = ?').run(me.pid, me.host);
}
