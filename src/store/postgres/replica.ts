import type pg from 'pg';
import { isQuiverError } from '../../errors.js';
import type { ReplicaLag } from '../store.js';
import { createPool, type PoolOptions, redactUrl, rows } from './connection.js';

/**
 * Reads from a hot standby with read-your-writes. A {@link PostgresStore} given a replica sends
 * the reads that search and ask make to it, except while the replica has not yet replayed a write
 * this store made: those reads go to the primary until it has. The mechanism:
 *
 * - after a write, the store calls {@link ReadRouter.wrote} (no query);
 * - the next read asks the primary once for its WAL insert position (`pg_current_wal_insert_lsn()`,
 *   at or past the commit of every write this store finished) and keeps it as the position the
 *   replica must reach;
 * - it asks the replica how far it has replayed (`pg_last_wal_replay_lsn()`), an answer trusted for
 *   `checkMs`; once the replica is there, the position is forgotten and reads go to the replica
 *   without another check until the next write.
 *
 * A replica that does not answer (or is not a standby) is left alone for `retryMs`, its reads going
 * to the primary, and `onNotice` hears of it once per outage. A read the replica fails with a STORE
 * error (a dropped connection, a recovery conflict) is run again on the primary.
 */

/** How long an answer from the replica about its replay position is trusted, in ms. */
export const DEFAULT_REPLICA_CHECK_MS = 250;
/** How long an unreachable replica is left alone (its reads go to the primary), in ms. */
export const DEFAULT_REPLICA_RETRY_MS = 30_000;

/**
 * A WAL position as PostgreSQL prints it (`pg_lsn`: `16/B374D848`, the high and low 32 bits in
 * hex, 1 to 8 digits each) as a byte offset. Throws a TypeError for anything else.
 *
 * @example parseLsn('16/B374D848') // 0x16_B374D848n
 */
export function parseLsn(text: string): bigint {
  const m = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text);
  if (m === null) throw new TypeError(`quiver: not a WAL position (pg_lsn): ${JSON.stringify(text)}`);
  return (BigInt(`0x${m[1]!}`) << 32n) | BigInt(`0x${m[2]!}`);
}

/** A byte offset in the WAL as PostgreSQL prints it (upper-case hex, no leading zeros): the inverse of {@link parseLsn}. */
export function formatLsn(lsn: bigint): string {
  if (lsn < 0n || lsn >= 1n << 64n) throw new RangeError(`quiver: WAL position out of range: ${lsn}`);
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffff_ffffn).toString(16).toUpperCase()}`;
}

/** Bytes of WAL at `ahead` past `behind`: `ahead − behind`, or 0 when `behind` is not behind. */
export function walBytesBetween(ahead: bigint, behind: bigint): number {
  return ahead > behind ? Number(ahead - behind) : 0;
}

/** Sizes of the WAL's page headers: a page's own, and the longer one opening each segment. */
const SHORT_PAGE_HEADER = 24n;
const LONG_PAGE_HEADER = 40n;

/**
 * The position a replica must have replayed to hold every record before the primary's insert
 * position `insert` (`pg_current_wal_insert_lsn()`). Usually `insert` itself; but when the last
 * record ended exactly at a page's end, the insert position points past the next page's header
 * while a replica's replay position (`pg_last_wal_replay_lsn()`, the end of the last record) stops
 * at the page boundary, and would stay short of it until the next record. So a position right
 * after a page header (24 bytes into a page; 40 into a segment's first page) is moved back to the
 * page boundary. `blockSize` and `segmentSize` are the server's `wal_block_size` and
 * `wal_segment_size` in bytes.
 */
export function replayTarget(insert: bigint, blockSize: number, segmentSize: number): bigint {
  if (insert % BigInt(segmentSize) === LONG_PAGE_HEADER) return insert - LONG_PAGE_HEADER;
  if (insert % BigInt(segmentSize) >= BigInt(blockSize) && insert % BigInt(blockSize) === SHORT_PAGE_HEADER)
    return insert - SHORT_PAGE_HEADER;
  return insert;
}

/** Longest wait for a connection to the replica, in ms: a read would rather go to the primary than wait. */
export const REPLICA_CONNECT_TIMEOUT_MS = 2_000;

export interface ReadRouterOptions {
  /** The replica's location for messages (its password is redacted here). */
  location: string;
  /** See {@link DEFAULT_REPLICA_CHECK_MS}. */
  checkMs?: number;
  /** See {@link DEFAULT_REPLICA_RETRY_MS}. */
  retryMs?: number;
  /** Told once per outage that the replica is unreachable and reads go to the primary. */
  onNotice?: (message: string) => void;
  /** The clock, in ms. Defaults to `Date.now`. */
  now?: () => number;
}

/** Chooses the pool for each read: the replica when it holds this store's writes, else the primary. */
export class ReadRouter {
  /** Reads served by each side since the router was made (for tests and diagnostics). */
  readonly reads = { primary: 0, replica: 0 };
  private readonly location: string;
  private readonly checkMs: number;
  private readonly retryMs: number;
  private readonly onNotice: ((message: string) => void) | undefined;
  private readonly now: () => number;
  /** Writes this store finished, and how many of them `pending` accounts for. */
  private writes = 0;
  private writesCovered = 0;
  /** The WAL position the replica must reach before it holds this store's writes; null when it does. */
  private pending: bigint | null = null;
  /** The replica's replay position and when it was read. */
  private replayed: { at: number; lsn: bigint } | null = null;
  /** Until when the replica is left alone, and whether its outage was told. */
  private downUntil = 0;
  private told = false;
  /** Queries in flight, shared by concurrent reads. */
  private primaryCheck: Promise<void> | null = null;
  private replicaCheck: Promise<void> | null = null;

  constructor(
    private readonly primary: pg.Pool,
    private readonly replica: pg.Pool,
    options: ReadRouterOptions,
  ) {
    this.location = redactUrl(options.location);
    this.checkMs = options.checkMs ?? DEFAULT_REPLICA_CHECK_MS;
    this.retryMs = options.retryMs ?? DEFAULT_REPLICA_RETRY_MS;
    this.onNotice = options.onNotice;
    this.now = options.now ?? Date.now;
  }

  /**
   * A router from `primary` to a new pool on `replicaUrl` (the primary's pool options, connecting
   * within {@link REPLICA_CONNECT_TIMEOUT_MS}). Nothing connects until the first read.
   */
  static open(
    primary: pg.Pool,
    replicaUrl: string,
    pool: PoolOptions,
    options: Omit<ReadRouterOptions, 'location'> = {},
  ): ReadRouter {
    const connectTimeoutMs = Math.min(
      pool.connectTimeoutMs ?? REPLICA_CONNECT_TIMEOUT_MS,
      REPLICA_CONNECT_TIMEOUT_MS,
    );
    const replica = createPool(replicaUrl, { ...pool, connectTimeoutMs });
    return new ReadRouter(primary, replica, { ...options, location: replicaUrl });
  }

  /** Close the replica's pool (the primary's belongs to the caller). */
  async close(): Promise<void> {
    await this.replica.end();
  }

  /** This store finished a write (committed or not): reads wait for the replica to replay it. */
  wrote(): void {
    this.writes++;
  }

  /**
   * Run `read` on the replica when it has replayed every write this store finished before the
   * call, else on the primary; a STORE failure on the replica runs it again on the primary.
   */
  async read<T>(read: (db: pg.Pool) => Promise<T>): Promise<T> {
    if (await this.replicaHoldsWrites()) {
      try {
        const out = await read(this.replica);
        this.reads.replica++;
        return out;
      } catch (e) {
        if (!isQuiverError(e, 'STORE')) throw e;
        if (unreachable(e)) this.leaveAlone(e);
      }
    }
    const out = await read(this.primary);
    this.reads.primary++;
    return out;
  }

  /** How far the replica is behind the primary (an unreachable one has `error` set). */
  async lag(): Promise<ReplicaLag> {
    let replay: { lsn: string | null; age: number | null } | undefined;
    try {
      // Replica first: the primary's position, read after, is never behind what it replayed.
      [replay] = await rows<{ lsn: string | null; age: number | null }>(
        this.replica,
        'reading the replica’s lag',
        `SELECT pg_last_wal_replay_lsn()::text AS lsn,
                EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp())::float8 AS age`,
      );
    } catch (e) {
      return { location: this.location, bytes: null, seconds: null, error: (e as Error).message };
    }
    if (replay?.lsn == null)
      return { location: this.location, bytes: null, seconds: null, error: NOT_A_STANDBY };
    const [primary] = await rows<{ lsn: string }>(
      this.primary,
      'reading the primary’s WAL position',
      'SELECT pg_current_wal_lsn()::text AS lsn',
    );
    const bytes = walBytesBetween(parseLsn(primary!.lsn), parseLsn(replay.lsn));
    return { location: this.location, bytes, seconds: bytes === 0 ? 0 : replay.age, error: null };
  }

  /** Whether a read may go to the replica now. */
  private async replicaHoldsWrites(): Promise<boolean> {
    if (this.now() < this.downUntil) return false;
    if (this.writes !== this.writesCovered) await this.shared('primaryCheck', () => this.readPrimary());
    if (this.pending === null) return true;
    if (this.replayed === null || this.now() - this.replayed.at >= this.checkMs)
      await this.shared('replicaCheck', () => this.readReplica());
    if (this.now() < this.downUntil || this.replayed === null) return false;
    const pending = this.pending; // a concurrent read may have moved it meanwhile
    if (pending !== null && this.replayed.lsn >= pending) this.pending = null;
    return this.pending === null;
  }

  /** Run `check` unless the same check is in flight already; then wait for that one instead. */
  private async shared(slot: 'primaryCheck' | 'replicaCheck', check: () => Promise<void>): Promise<void> {
    const running =
      this[slot] ??
      check().finally(() => {
        this[slot] = null;
      });
    this[slot] = running;
    await running;
  }

  /** Bring `pending` up to the primary's position after every write finished so far. */
  private async readPrimary(): Promise<void> {
    const covering = this.writes;
    const [r] = await rows<{ lsn: string; block: number; segment: number }>(
      this.primary,
      'reading the primary’s WAL position',
      `SELECT pg_current_wal_insert_lsn()::text AS lsn, current_setting('wal_block_size')::int AS block,
              pg_size_bytes(current_setting('wal_segment_size'))::int AS segment`,
    );
    const target = replayTarget(parseLsn(r!.lsn), r!.block, r!.segment);
    if (this.pending === null || target > this.pending) this.pending = target;
    this.writesCovered = Math.max(this.writesCovered, covering);
  }

  /** Read the replica's replay position, or leave the replica alone when it does not answer. */
  private async readReplica(): Promise<void> {
    try {
      const [r] = await rows<{ lsn: string | null }>(
        this.replica,
        'reading the replica’s replay position',
        'SELECT pg_last_wal_replay_lsn()::text AS lsn',
      );
      if (r?.lsn == null) throw new Error(NOT_A_STANDBY);
      this.replayed = { at: this.now(), lsn: parseLsn(r.lsn) };
      this.told = false;
    } catch (e) {
      this.leaveAlone(e);
    }
  }

  private leaveAlone(e: unknown): void {
    this.downUntil = this.now() + this.retryMs;
    this.replayed = null;
    if (this.told) return;
    this.told = true;
    this.onNotice?.(
      `quiver: the read replica ${this.location} is unavailable (${(e as Error).message}); reading from the primary, trying the replica again in ${Math.round(this.retryMs / 1000)} s`,
    );
  }
}

const NOT_A_STANDBY = 'it is not a hot standby (pg_last_wal_replay_lsn() is null)';

/** Whether a STORE error means the server could not be reached (not a failing statement). */
function unreachable(e: unknown): boolean {
  const code = (e as { cause?: { code?: unknown } }).cause?.code;
  // No SQLSTATE (a socket error or a timeout), a connection exception (08…), or the server
  // shutting down or starting (57P01…57P03).
  return typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code) || /^(08|57P0[123])/.test(code);
}
