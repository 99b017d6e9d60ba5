import { QuiverError } from '../errors.js';

/**
 * The state several `quiver serve` processes must agree on when they share one store (a team's
 * PostgreSQL): what a process cannot keep in its own memory without another process seeing
 * something else. A store that several processes use at once declares it as `Store.shared`; a
 * store that one process serves (a SQLite file) leaves it out, and the server keeps that state in
 * memory.
 *
 * Each operation is one atomic step in the database, so concurrent callers in any process never
 * see a half-done change, and the database's clock is the one clock (servers' clocks may differ).
 */

/** A token bucket's shape: it holds at most `burst` requests and refills at `perSecond`. */
export interface BucketRate {
  /** Requests per second the bucket refills; > 0. */
  perSecond: number;
  /** Most requests the bucket holds; ≥ 1. */
  burst: number;
}

/** What taking a request from a bucket found. */
export interface BucketTake {
  /** Whether the request was admitted (a whole request was in the bucket and was taken). */
  allowed: boolean;
  /** The requests in the bucket after its refill, before the take (what `Retry-After` is computed from). */
  tokens: number;
}

export interface SharedState {
  /**
   * Take one request from the token bucket `key`, refilled first up to now on the database's clock,
   * with the formula of `refill` in src/server/rate-limit.ts (the one definition; a backend's
   * statement transcribes it and its tests check it against that function):
   *   tokens(t) = min(burst, tokens(t₀) + max(0, t − t₀) · perSecond), allowed ⇔ tokens(t) ≥ 1.
   * A bucket seen for the first time is full. Atomic per key: the refill and the take of
   * concurrent callers are serialised, so all processes together admit no more than
   * `burst + perSecond · elapsed`.
   */
  takeRequest(key: string, rate: BucketRate): Promise<BucketTake>;
  /**
   * Compare and set a meta value: set `key` to `value` only when it now holds `expected` (null:
   * only when it is not set), atomically; true when it was set. Read-modify-write of a meta value
   * (the token list) loops on it, so no concurrent change is lost; `expected` null makes a value
   * that is created once (the report-link key) and then read by everyone.
   */
  swapMeta(key: string, expected: string | null, value: string): Promise<boolean>;
}

/**
 * The value under meta `key`, first set to `make()` when it is not set, such that every process
 * gets the same value however many race to create it: insert-if-absent (`swapMeta` from null),
 * then read back. A store without `shared` (one process) is simply set when the key is absent.
 *
 * @example const key = await metaOnce(store, 'server.reportLinkKey', () => randomBytes(32).toString('hex'));
 */
export async function metaOnce(
  store: {
    getMeta(key: string): Promise<string | null>;
    setMeta(key: string, value: string): Promise<void>;
    readonly shared?: SharedState;
  },
  key: string,
  make: () => string,
): Promise<string> {
  const found = await store.getMeta(key);
  if (found !== null) return found;
  const value = make();
  if (store.shared === undefined) {
    await store.setMeta(key, value);
    return value;
  }
  await store.shared.swapMeta(key, null, value);
  const stored = await store.getMeta(key);
  if (stored === null) throw new QuiverError('STORE', `quiver: meta ${key} was set but reads back as unset`);
  return stored;
}
