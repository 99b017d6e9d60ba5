import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { refill } from '../../server/rate-limit.js';
import { createTestDatabase, describePostgres, type TestDatabase } from './_test-database.js';
import { PostgresStore } from './postgres-store.js';

/**
 * The state servers share through PostgreSQL (shared-state.ts): rate-limit buckets taken in one
 * statement that agrees with `refill` (server/rate-limit.ts) and never over-admits across pools,
 * and compare-and-set of meta.
 */
describePostgres('PostgresStore.shared', () => {
  let db: TestDatabase;
  let a: PostgresStore;
  let b: PostgresStore;
  let admin: pg.Client;
  beforeAll(async () => {
    db = await createTestDatabase();
    a = await PostgresStore.open(db.url);
    b = await PostgresStore.open(db.url);
    admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await a?.close();
    await b?.close();
    await db?.drop();
  });

  const bucket = async (key: string): Promise<{ tokens: number; at: number }> => {
    const r = await admin.query<{ tokens: number; at: number }>(
      'SELECT tokens, at FROM rate_buckets WHERE key = $1',
      [key],
    );
    return r.rows[0]!;
  };

  it('a first request finds a full bucket; a burst goes through, then requests are refused', async () => {
    const rate = { perSecond: 0.001, burst: 3 };
    const takes = [];
    for (let i = 0; i < 5; i++) takes.push(await a.shared.takeRequest('burst', rate));
    expect(takes.map((t) => t.allowed)).toEqual([true, true, true, false, false]);
    // Before each take: 3, 2, 1, then less than one (a sliver refilled at 0.001/s).
    expect(takes[0]!.tokens).toBe(3);
    expect(takes[1]!.tokens).toBeCloseTo(2, 3);
    expect(takes[3]!.tokens).toBeLessThan(1);
  });

  it('each take is refill(bucket, t) of the one before, on the database clock', async () => {
    const rate = { perSecond: 40, burst: 4 };
    let before = { tokens: rate.burst, at: 0 };
    for (let i = 0; i < 30; i++) {
      const took = await a.shared.takeRequest('formula', rate);
      const after = await bucket('formula');
      const expected = i === 0 ? rate.burst : refill(before, after.at, rate);
      expect(took.tokens).toBeCloseTo(expected, 9);
      expect(took.allowed).toBe(expected >= 1);
      expect(after.tokens).toBeCloseTo(took.allowed ? expected - 1 : expected, 9);
      before = after;
      if (i % 3 === 0) await new Promise((r) => setTimeout(r, 15));
    }
  });

  it('two pools taking at once admit no more than the burst (plus what refills meanwhile)', async () => {
    const rate = { perSecond: 0.01, burst: 25 };
    const t0 = performance.now();
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? a : b).shared.takeRequest('race', rate)),
    );
    const seconds = (performance.now() - t0) / 1000;
    const admitted = results.filter((r) => r.allowed).length;
    expect(admitted).toBeGreaterThanOrEqual(rate.burst);
    expect(admitted).toBeLessThanOrEqual(Math.floor(rate.burst + rate.perSecond * seconds));
  });

  it('swapMeta sets a value only over the one expected, and an absent key exactly once', async () => {
    const won = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).shared.swapMeta('once', null, `v${i}`)),
    );
    expect(won.filter(Boolean)).toHaveLength(1);
    const v = await b.getMeta('once');
    expect(v).toBe(`v${won.indexOf(true)}`);
    expect(await a.shared.swapMeta('once', 'not it', 'x')).toBe(false);
    expect(await a.shared.swapMeta('once', v, 'next')).toBe(true);
    expect(await b.getMeta('once')).toBe('next');
  });

  it('the buckets are not vault state: listMeta (export) does not see them', async () => {
    await a.shared.takeRequest('unseen', { perSecond: 1, burst: 1 });
    expect(Object.keys(await a.listMeta()).some((k) => k.includes('unseen'))).toBe(false);
  });
});
