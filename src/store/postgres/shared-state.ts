import type pg from 'pg';
import type { BucketRate, BucketTake, SharedState } from '../shared-state.js';
import { rows, run } from './connection.js';

/**
 * What several `quiver serve` processes share through the database (src/store/shared-state.ts):
 * rate-limit buckets in the `rate_buckets` table (schema.ts; unlogged: a crash forgets them, which
 * leaves every bucket full, as a new one is) and compare-and-set of `meta`. One statement each.
 */

/**
 * One take from a bucket: a first request inserts a full bucket less one; otherwise, with the row
 * locked (ON CONFLICT DO UPDATE waits for a concurrent taker), the clock is read, the bucket
 * refilled and, when a whole request is in it, one taken. `refill` in src/server/rate-limit.ts is
 * the formula this transcribes:
 *   r = min(burst, tokens + max(0, t − at) · perSecond); allowed ⇔ r ≥ 1; tokens ← r − allowed; at ← t.
 * The clock (`clock_timestamp()`, seconds) is read after the lock, so takes that waited for each
 * other see increasing times and never refill the same interval twice. `$2` perSecond, `$3` burst.
 */
const TAKE = `
INSERT INTO rate_buckets AS b (key, tokens, at, allowed)
VALUES ($1, $3::float8 - 1, extract(epoch FROM clock_timestamp())::float8, true)
ON CONFLICT (key) DO UPDATE SET (tokens, at, allowed) = (
  SELECT CASE WHEN f.r >= 1 THEN f.r - 1 ELSE f.r END, f.t, f.r >= 1
  FROM (
    SELECT least($3::float8, b.tokens + greatest(0, c.t - b.at) * $2::float8) AS r, c.t
    FROM (SELECT extract(epoch FROM clock_timestamp())::float8 AS t) AS c
  ) AS f
)
RETURNING tokens, allowed`;

/** Set meta `key` only when it holds `$3` (or, with `$3` null, only when it is absent). */
const SWAP_EXISTING = 'UPDATE meta SET value = $2 WHERE key = $1 AND value = $3';
const SWAP_ABSENT = 'INSERT INTO meta(key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING';

export function postgresSharedState(pool: pg.Pool): SharedState {
  return {
    async takeRequest(key: string, rate: BucketRate): Promise<BucketTake> {
      const [r] = await rows<{ tokens: number; allowed: boolean }>(pool, 'taking a request', TAKE, [
        key,
        rate.perSecond,
        rate.burst,
      ]);
      if (r === undefined) throw new Error('unreachable: INSERT … RETURNING returned no row');
      // What was in the bucket before the take.
      return { allowed: r.allowed, tokens: r.allowed ? r.tokens + 1 : r.tokens };
    },
    async swapMeta(key: string, expected: string | null, value: string): Promise<boolean> {
      return expected === null
        ? (await run(pool, 'setting meta', SWAP_ABSENT, [key, value])) === 1
        : (await run(pool, 'setting meta', SWAP_EXISTING, [key, value, expected])) === 1;
    },
  };
}
