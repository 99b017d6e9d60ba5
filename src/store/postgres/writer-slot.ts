import type pg from 'pg';
import type { WriterClaim, WriterHolder } from '../store.js';
import { type Queryable, rows, run, transaction } from './connection.js';
import { now, toHolder } from './rows.js';

/**
 * The `writer` table's one row: which process may write batches, reindex or undo now. The
 * PostgreSQL twin of src/store/sqlite/writer-slot.ts. Claiming is one transaction that first takes
 * the table in EXCLUSIVE mode (plain reads go on; a second claim, from any process or server, waits
 * for the first to commit), then reads the holder and takes the slot if it is free, ours, or its
 * process is gone, so two claimants can never both hold it. Whether a holder is alive is the
 * caller's judgement (`isAlive`), made from the recorded pid, host and process start
 * (src/store/writer.ts).
 */

const same = (a: WriterClaim, b: WriterClaim): boolean =>
  a.pid === b.pid && a.host === b.host && a.procStart === b.procStart;

/** The slot's holder, or null when it is free. */
export async function readWriter(db: Queryable): Promise<WriterHolder | null> {
  const r = await rows(db, 'read the writer slot', 'SELECT * FROM writer WHERE slot = 1');
  return r[0] === undefined ? null : toHolder(r[0]);
}

/** Take the slot for `me`: null when taken (or already ours), else the live holder that keeps it. */
export async function claimWriter(
  pool: pg.Pool,
  me: WriterClaim,
  isAlive: (holder: WriterHolder) => boolean,
): Promise<WriterHolder | null> {
  return transaction(pool, 'claim the writer slot', async (client) => {
    await client.query('LOCK TABLE writer IN EXCLUSIVE MODE');
    const holder = await readWriter(client);
    if (holder !== null && same(holder, me)) return null;
    if (holder !== null && isAlive(holder)) return holder;
    const t = now();
    await client.query(
      `INSERT INTO writer(slot, pid, host, proc_start, command, batch_id, started_at, heartbeat_at)
       VALUES (1, $1, $2, $3, $4, NULL, $5, $5)
       ON CONFLICT (slot) DO UPDATE SET pid = excluded.pid, host = excluded.host, proc_start = excluded.proc_start,
         command = excluded.command, batch_id = NULL, started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at`,
      [me.pid, me.host, me.procStart, me.command, t],
    );
    return null;
  });
}

/** Refresh the holder's heartbeat (and the batch it runs, when given); no-op when not the holder. */
export async function touchWriter(db: Queryable, me: WriterClaim, batchId?: string | null): Promise<void> {
  if (batchId === undefined)
    await run(
      db,
      'touch the writer slot',
      'UPDATE writer SET heartbeat_at = $1 WHERE slot = 1 AND pid = $2 AND host = $3',
      [now(), me.pid, me.host],
    );
  else
    await run(
      db,
      'touch the writer slot',
      'UPDATE writer SET heartbeat_at = $1, batch_id = $2 WHERE slot = 1 AND pid = $3 AND host = $4',
      [now(), batchId, me.pid, me.host],
    );
}

/** Give the slot up (only when `me` holds it). */
export async function releaseWriter(db: Queryable, me: WriterClaim): Promise<void> {
  await run(db, 'release the writer slot', 'DELETE FROM writer WHERE slot = 1 AND pid = $1 AND host = $2', [
    me.pid,
    me.host,
  ]);
}
