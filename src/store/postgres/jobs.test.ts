// The PostgreSQL job queue (jobs.ts) against a real database: every behaviour of the job-queue
// contract (job-queue.contract.ts), plus what only several processes can show: concurrent lessees
// on separate pools share one queue with each job leased once, and concurrent enqueues of one key
// make one job.
import type pg from 'pg';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import type { JobRecord, WriterClaim } from '../store.js';
import { createTestDatabase, describePostgres, type TestDatabase } from './_test-database.js';
import { createPool } from './connection.js';
import {
  ackJob,
  enqueueJob,
  failJob,
  getJob,
  heartbeatJob,
  jobCounts,
  leaseJob,
  listJobs,
  purgeDeadJobs,
  releaseJob,
  retryJob,
} from './jobs.js';
import { migrate } from './schema.js';

describePostgres('PostgreSQL job queue', () => {
  let db: TestDatabase;
  let pool: pg.Pool;

  beforeAll(async () => {
    db = await createTestDatabase();
    pool = createPool(db.url);
    const client = await pool.connect();
    try {
      await migrate(client);
    } finally {
      client.release();
    }
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });
  beforeEach(async () => {
    await pool.query('TRUNCATE jobs RESTART IDENTITY');
  });

  /** `n` pools of a few connections each: stand-ins for separate servers. */
  async function withPools<T>(n: number, fn: (pools: pg.Pool[]) => Promise<T>): Promise<T> {
    const pools = Array.from({ length: n }, () => createPool(db.url, { max: 2 }));
    try {
      return await fn(pools);
    } finally {
      await Promise.all(pools.map((p) => p.end()));
    }
  }

  const w = (pid: number): WriterClaim => ({ pid, host: 'h', procStart: '1', command: 'queue work' });
  const alive = (): boolean => true;
  const gone = (): boolean => false;
  const job = (
    kind = 'ingest',
    key: string | null = null,
    runAt = 1000,
    maxAttempts = 3,
    on: pg.Pool = pool,
  ) => enqueueJob(on, { kind, payload: { n: 1, nested: { a: [1, 2] } }, key, maxAttempts, runAt });
  const lease = (worker: WriterClaim, now: number, leaseMs: number, isAlive = alive, kinds?: string[]) =>
    leaseJob(pool, worker, now, leaseMs, isAlive, kinds);

  it('enqueues a queued job that keeps its payload, and reads it back', async () => {
    const j = await job();
    expect(j).toMatchObject({
      kind: 'ingest',
      state: 'queued',
      attempts: 0,
      maxAttempts: 3,
      runAt: 1000,
      createdAt: 1000,
      key: null,
      worker: null,
      leaseUntil: null,
      progress: null,
      result: null,
      lastError: null,
      finishedAt: null,
    });
    expect(j.id).toMatch(/^[0-9a-f]{16}$/);
    expect(j.payload).toEqual({ n: 1, nested: { a: [1, 2] } });
    expect(await getJob(pool, j.id)).toEqual(j);
    expect(await getJob(pool, 'nope')).toBeNull();
    expect((await job('ingest', null, 1000, 0)).maxAttempts).toBe(1); // at least one attempt
  });

  it('returns the live job for a key enqueued twice, and a new one once that job is done', async () => {
    const a = await job('ingest', 'k1');
    const b = await job('ingest', 'k1');
    expect(b).toEqual(a);
    expect((await listJobs(pool)).length).toBe(1);
    const l = await lease(w(1), 1000, 60_000);
    expect((await job('ingest', 'k1')).id).toBe(a.id); // leased is still live
    await ackJob(pool, l!.id, w(1), { ok: true }, 1001);
    const c = await job('ingest', 'k1');
    expect(c.id).not.toBe(a.id);
    expect(c.state).toBe('queued');
  });

  it('makes one job of concurrent enqueues of one key from several servers', async () => {
    const got = await withPools(5, (pools) =>
      Promise.all(pools.flatMap((p) => [1, 2, 3, 4].map(() => job('ingest', 'same', 1000, 3, p)))),
    );
    expect(new Set(got.map((j) => j.id)).size).toBe(1);
    expect((await listJobs(pool)).length).toBe(1);
  });

  it('leases nothing before a job is due, then the earliest due job, once', async () => {
    const late = await job('ingest', null, 5000);
    const early = await job('reindex', null, 2000);
    expect(await lease(w(1), 1999, 60_000)).toBeNull();
    const first = await lease(w(1), 6000, 60_000);
    expect(first).toMatchObject({ id: early.id, state: 'leased', attempts: 1, leaseUntil: 66_000 });
    expect(first!.worker).toEqual(w(1));
    const second = await lease(w(2), 6000, 60_000);
    expect(second!.id).toBe(late.id);
    expect(await lease(w(3), 6000, 60_000)).toBeNull();
  });

  it('leases the oldest of jobs due at the same time first', async () => {
    const a = await job('ingest', null, 1000);
    const b = await job('ingest', null, 1000);
    expect((await lease(w(1), 1000, 1000))!.id).toBe(a.id);
    expect((await lease(w(1), 1000, 1000))!.id).toBe(b.id);
  });

  it('leases only the kinds asked for', async () => {
    await job('ingest');
    const r = await job('reindex');
    expect((await lease(w(1), 2000, 1000, alive, ['reindex']))!.id).toBe(r.id);
    expect(await lease(w(1), 2000, 1000, alive, ['refit'])).toBeNull();
    expect(await lease(w(1), 2000, 1000, alive, [])).toBeNull();
    expect((await lease(w(1), 2000, 1000, alive, ['refit', 'ingest']))!.kind).toBe('ingest');
  });

  it('heartbeats and acks only for the holder (pid, host and process start)', async () => {
    const j = await job();
    await lease(w(1), 1000, 1000);
    expect(await heartbeatJob(pool, j.id, w(2), 9000)).toBe(false);
    expect(await heartbeatJob(pool, j.id, { ...w(1), procStart: '2' }, 9000)).toBe(false); // a reused pid
    expect(await heartbeatJob(pool, j.id, { ...w(1), host: 'other' }, 9000)).toBe(false);
    expect(await heartbeatJob(pool, j.id, w(1), 9000, { done: 3, total: 10 })).toBe(true);
    expect(await getJob(pool, j.id)).toMatchObject({ leaseUntil: 9000, progress: { done: 3, total: 10 } });
    expect(await heartbeatJob(pool, j.id, w(1), 9500)).toBe(true); // progress kept
    expect(await getJob(pool, j.id)).toMatchObject({ leaseUntil: 9500, progress: { done: 3, total: 10 } });
    expect(await ackJob(pool, j.id, w(2), {}, 2000)).toBe(false);
    expect(await ackJob(pool, j.id, w(1), { added: 4 }, 2000)).toBe(true);
    expect(await getJob(pool, j.id)).toMatchObject({
      state: 'done',
      result: { added: 4 },
      finishedAt: 2000,
      leaseUntil: null,
    });
    expect(await heartbeatJob(pool, j.id, w(1), 9999)).toBe(false); // done is final
  });

  it('matches a worker with no recorded process start', async () => {
    const j = await job();
    const bare = { ...w(1), procStart: null };
    await lease(bare, 1000, 1000);
    expect((await getJob(pool, j.id))?.worker).toEqual(bare);
    expect(await heartbeatJob(pool, j.id, w(1), 5000)).toBe(false);
    expect(await ackJob(pool, j.id, bare, {}, 1100)).toBe(true);
  });

  it('fails into a retry at the time given, keeping the error, then into the dead letter', async () => {
    const j = await job();
    await lease(w(1), 1000, 1000);
    expect(await failJob(pool, j.id, w(1), 'disk full', 4000, 1500)).toBe(true);
    expect(await getJob(pool, j.id)).toMatchObject({
      state: 'queued',
      runAt: 4000,
      lastError: 'disk full',
      attempts: 1,
      leaseUntil: null,
    });
    expect(await lease(w(1), 3999, 1000)).toBeNull();
    await lease(w(1), 4000, 1000);
    expect(await failJob(pool, j.id, w(2), 'not mine', null, 4050)).toBe(false);
    expect(await failJob(pool, j.id, w(1), 'bad file', null, 4100)).toBe(true);
    expect(await getJob(pool, j.id)).toMatchObject({
      state: 'dead',
      lastError: 'bad file',
      attempts: 2,
      finishedAt: 4100,
    });
    expect(await failJob(pool, j.id, w(1), 'again', null, 4200)).toBe(false);
    expect(await jobCounts(pool)).toEqual({ queued: 0, leased: 0, done: 0, dead: 1 });
  });

  it('takes a released job back unfinished, due at once, with its attempt given back', async () => {
    const j = await job();
    await lease(w(1), 1000, 1000);
    expect(await releaseJob(pool, j.id, w(2), 1200)).toBe(false); // not the holder
    expect(await releaseJob(pool, j.id, w(1), 1200)).toBe(true);
    expect(await getJob(pool, j.id)).toMatchObject({ state: 'queued', runAt: 1200, attempts: 0 });
    expect(await releaseJob(pool, j.id, w(1), 1300)).toBe(false); // no longer held
    expect((await lease(w(2), 1200, 1000))!.id).toBe(j.id);
  });

  it('gives an expired lease to the next worker, and the first worker can no longer ack', async () => {
    const j = await job();
    await lease(w(1), 1000, 1000);
    expect(await lease(w(2), 1999, 1000)).toBeNull(); // still held
    const taken = await lease(w(2), 2000, 1000);
    expect(taken).toMatchObject({ id: j.id, attempts: 2 });
    expect(taken!.lastError).toBe('the worker (pid 1 on h) was lost during attempt 1');
    expect(await ackJob(pool, j.id, w(1), {}, 2100)).toBe(false);
    expect(await ackJob(pool, j.id, w(2), {}, 2100)).toBe(true);
  });

  it('takes over a lease at once when its worker is gone (killed), before the deadline', async () => {
    const j = await job();
    await lease(w(1), 1000, 60_000);
    const taken = await leaseJob(pool, w(2), 1001, 60_000, gone);
    expect(taken).toMatchObject({ id: j.id, attempts: 2 });
  });

  it('leaves a live worker’s lease alone, and asks about the holder it recorded', async () => {
    const j = await job();
    await lease(w(1), 1000, 60_000);
    const asked: WriterClaim[] = [];
    const got = await leaseJob(pool, w(2), 1001, 60_000, (h) => {
      asked.push(h);
      return true;
    });
    expect(got).toBeNull();
    expect(asked).toEqual([w(1)]);
    expect(await getJob(pool, j.id)).toMatchObject({ state: 'leased', worker: w(1), lastError: null });
  });

  it('puts a job whose worker was lost on its last attempt into the dead letter', async () => {
    const j = await job('ingest', null, 1000, 1);
    await lease(w(1), 1000, 1000);
    expect(await lease(w(2), 5000, 1000)).toBeNull();
    expect(await getJob(pool, j.id)).toMatchObject({ state: 'dead', attempts: 1, finishedAt: 5000 });
    expect((await getJob(pool, j.id))!.lastError).toMatch(/lost during attempt 1/);
  });

  it('gives a job to exactly one of many concurrent lessees', async () => {
    await job();
    const got = await Promise.all([1, 2, 3, 4, 5, 6].map((pid) => lease(w(pid), 1000, 60_000)));
    expect(got.filter((g) => g !== null).length).toBe(1);
  });

  it('shares one queue between 4 servers: each of 20 jobs leased and done exactly once', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++) ids.add((await job(i % 2 === 0 ? 'ingest' : 'reindex')).id);
    const leasedBy = await withPools(4, (pools) =>
      Promise.all(
        pools.map(async (p, i) => {
          const mine: JobRecord[] = [];
          for (;;) {
            const j = await leaseJob(p, w(10 + i), 2000, 60_000, alive);
            if (j === null) return mine;
            mine.push(j);
            expect(await ackJob(p, j.id, w(10 + i), { by: i }, 2001)).toBe(true);
          }
        }),
      ),
    );
    const all = leasedBy.flat();
    expect(all.map((j) => j.id).sort()).toEqual([...ids].sort());
    expect(all.every((j) => j.attempts === 1)).toBe(true);
    expect(await jobCounts(pool)).toEqual({ queued: 0, leased: 0, done: 20, dead: 0 });
  });

  it('settles a lost lease once when several lessees see it at the same time', async () => {
    const j = await job('ingest', null, 1000, 5);
    await lease(w(1), 1000, 1000);
    const got = await withPools(4, (pools) =>
      Promise.all(pools.map((p, i) => leaseJob(p, w(20 + i), 5000, 1000, alive))),
    );
    expect(got.filter((g) => g !== null).map((g) => g!.id)).toEqual([j.id]);
    expect((await getJob(pool, j.id))?.attempts).toBe(2);
  });

  it('retries a dead job with attempts from zero; purges only dead jobs', async () => {
    const dead = await job('ingest', 'k');
    await lease(w(1), 1000, 1000);
    await failJob(pool, dead.id, w(1), 'x', null, 1100);
    const other = await job('reindex');
    expect(await retryJob(pool, other.id, 2000)).toBe(false); // not dead
    expect(await retryJob(pool, 'nope', 2000)).toBe(false);
    expect(await retryJob(pool, dead.id, 2000)).toBe(true);
    expect(await getJob(pool, dead.id)).toMatchObject({
      state: 'queued',
      attempts: 0,
      runAt: 2000,
      finishedAt: null,
    });
    const again = await lease(w(1), 2000, 1000, alive, ['ingest']);
    expect(again!.id).toBe(dead.id);
    await failJob(pool, again!.id, w(1), 'y', null, 2100);
    expect(await purgeDeadJobs(pool)).toBe(1);
    expect(await getJob(pool, dead.id)).toBeNull();
    expect(await getJob(pool, other.id)).not.toBeNull();
  });

  it('does not revive a dead job whose key a live job now has', async () => {
    const dead = await job('ingest', 'k');
    await lease(w(1), 1000, 1000);
    await failJob(pool, dead.id, w(1), 'x', null, 1100);
    await job('ingest', 'k');
    expect(await retryJob(pool, dead.id, 2000)).toBe(false);
    expect((await getJob(pool, dead.id))?.state).toBe('dead');
  });

  it('lists newest first, filtered by state and kind, with a limit', async () => {
    const a = await job('ingest');
    const b = await job('reindex');
    const c = await job('ingest');
    expect((await listJobs(pool)).map((j) => j.id)).toEqual([c.id, b.id, a.id]);
    expect((await listJobs(pool, { kind: 'ingest' })).map((j) => j.id)).toEqual([c.id, a.id]);
    expect((await listJobs(pool, { limit: 1 })).map((j) => j.id)).toEqual([c.id]);
    await lease(w(1), 1000, 1000);
    expect((await listJobs(pool, { state: 'leased' })).map((j) => j.id)).toEqual([a.id]);
    expect((await listJobs(pool, { state: 'queued', kind: 'ingest' })).map((j) => j.id)).toEqual([c.id]);
    expect(await jobCounts(pool)).toEqual({ queued: 2, leased: 1, done: 0, dead: 0 });
  });
});
