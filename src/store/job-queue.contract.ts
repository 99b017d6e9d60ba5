import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StoreContractOptions } from './store.contract.js';
import type { Store, WriterClaim } from './store.js';

/**
 * The Store contract's job-queue part (issue 17): enqueue (idempotent by key while a job is live),
 * lease with a deadline (atomic, oldest due first, kinds), heartbeat, ack, fail with a retry time
 * or into the dead letter, expired and orphaned leases, retry and purge of dead jobs. Every time is
 * passed in explicitly, so no test waits on a clock.
 */
export function runJobQueueContract(name: string, options: StoreContractOptions): void {
  describe(`Store job-queue contract: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await options.make();
    });
    afterEach(async () => {
      await store.close();
    });

    const w = (pid: number): WriterClaim => ({ pid, host: 'h', procStart: '1', command: 'queue work' });
    const alive = (): boolean => true;
    const gone = (): boolean => false;
    const job = (kind = 'ingest', key: string | null = null, runAt = 1000, maxAttempts = 3) =>
      store.enqueueJob({ kind, payload: { n: 1, nested: { a: [1, 2] } }, key, maxAttempts, runAt });

    it('enqueues a queued job that keeps its payload, and reads it back', async () => {
      const j = await job();
      expect(j).toMatchObject({ kind: 'ingest', state: 'queued', attempts: 0, maxAttempts: 3, runAt: 1000 });
      expect(j.payload).toEqual({ n: 1, nested: { a: [1, 2] } });
      expect(await store.getJob(j.id)).toEqual(j);
      expect(await store.getJob('nope')).toBeNull();
    });

    it('returns the live job for a key enqueued twice, and a new one once that job is done', async () => {
      const a = await job('ingest', 'k1');
      const b = await job('ingest', 'k1');
      expect(b.id).toBe(a.id);
      expect((await store.listJobs()).length).toBe(1);
      const l = await store.leaseJob(w(1), 1000, 60_000, alive);
      expect((await job('ingest', 'k1')).id).toBe(a.id); // leased is still live
      await store.ackJob(l!.id, w(1), { ok: true }, 1001);
      const c = await job('ingest', 'k1');
      expect(c.id).not.toBe(a.id);
      expect(c.state).toBe('queued');
    });

    it('leases nothing before a job is due, then the earliest due job, once', async () => {
      const late = await job('ingest', null, 5000);
      const early = await job('reindex', null, 2000);
      expect(await store.leaseJob(w(1), 1999, 60_000, alive)).toBeNull();
      const first = await store.leaseJob(w(1), 6000, 60_000, alive);
      expect(first).toMatchObject({ id: early.id, state: 'leased', attempts: 1, leaseUntil: 66_000 });
      expect(first!.worker).toMatchObject({ pid: 1, host: 'h' });
      const second = await store.leaseJob(w(2), 6000, 60_000, alive);
      expect(second!.id).toBe(late.id);
      expect(await store.leaseJob(w(3), 6000, 60_000, alive)).toBeNull();
    });

    it('leases only the kinds asked for', async () => {
      await job('ingest');
      const r = await job('reindex');
      expect((await store.leaseJob(w(1), 2000, 1000, alive, ['reindex']))!.id).toBe(r.id);
      expect(await store.leaseJob(w(1), 2000, 1000, alive, ['refit'])).toBeNull();
      expect(await store.leaseJob(w(1), 2000, 1000, alive, [])).toBeNull();
    });

    it('heartbeats and acks only for the holder', async () => {
      const j = await job();
      await store.leaseJob(w(1), 1000, 1000, alive);
      expect(await store.heartbeatJob(j.id, w(2), 9000)).toBe(false);
      expect(await store.heartbeatJob(j.id, w(1), 9000, { done: 3, total: 10 })).toBe(true);
      const seen = await store.getJob(j.id);
      expect(seen).toMatchObject({ leaseUntil: 9000, progress: { done: 3, total: 10 } });
      expect(await store.ackJob(j.id, w(2), {}, 2000)).toBe(false);
      expect(await store.ackJob(j.id, w(1), { added: 4 }, 2000)).toBe(true);
      expect(await store.getJob(j.id)).toMatchObject({
        state: 'done',
        result: { added: 4 },
        finishedAt: 2000,
        leaseUntil: null,
      });
      expect(await store.heartbeatJob(j.id, w(1), 9999)).toBe(false); // done is final
    });

    it('fails into a retry at the time given, keeping the error, then into the dead letter', async () => {
      const j = await job();
      await store.leaseJob(w(1), 1000, 1000, alive);
      expect(await store.failJob(j.id, w(1), 'disk full', 4000, 1500)).toBe(true);
      expect(await store.getJob(j.id)).toMatchObject({
        state: 'queued',
        runAt: 4000,
        lastError: 'disk full',
        attempts: 1,
      });
      expect(await store.leaseJob(w(1), 3999, 1000, alive)).toBeNull();
      await store.leaseJob(w(1), 4000, 1000, alive);
      expect(await store.failJob(j.id, w(1), 'bad file', null, 4100)).toBe(true);
      expect(await store.getJob(j.id)).toMatchObject({
        state: 'dead',
        lastError: 'bad file',
        attempts: 2,
        finishedAt: 4100,
      });
      expect(await store.failJob(j.id, w(1), 'again', null, 4200)).toBe(false);
      expect(await store.jobCounts()).toEqual({ queued: 0, leased: 0, done: 0, dead: 1 });
    });

    it('takes a released job back unfinished, due at once, with its attempt given back', async () => {
      const j = await job();
      await store.leaseJob(w(1), 1000, 1000, alive);
      expect(await store.releaseJob(j.id, w(2), 1200)).toBe(false); // not the holder
      expect(await store.releaseJob(j.id, w(1), 1200)).toBe(true);
      expect(await store.getJob(j.id)).toMatchObject({ state: 'queued', runAt: 1200, attempts: 0 });
      expect(await store.releaseJob(j.id, w(1), 1300)).toBe(false); // no longer held
      expect((await store.leaseJob(w(2), 1200, 1000, alive))!.id).toBe(j.id);
    });

    it('gives an expired lease to the next worker, and the first worker can no longer ack', async () => {
      const j = await job();
      await store.leaseJob(w(1), 1000, 1000, alive);
      expect(await store.leaseJob(w(2), 1999, 1000, alive)).toBeNull(); // still held
      const taken = await store.leaseJob(w(2), 2000, 1000, alive);
      expect(taken).toMatchObject({ id: j.id, attempts: 2 });
      expect(taken!.lastError).toMatch(/lost/);
      expect(await store.ackJob(j.id, w(1), {}, 2100)).toBe(false);
      expect(await store.ackJob(j.id, w(2), {}, 2100)).toBe(true);
    });

    it('takes over a lease at once when its worker is gone (killed), before the deadline', async () => {
      const j = await job();
      await store.leaseJob(w(1), 1000, 60_000, alive);
      const taken = await store.leaseJob(w(2), 1001, 60_000, gone);
      expect(taken).toMatchObject({ id: j.id, attempts: 2 });
    });

    it('puts a job whose worker was lost on its last attempt into the dead letter', async () => {
      const j = await job('ingest', null, 1000, 1);
      await store.leaseJob(w(1), 1000, 1000, alive);
      expect(await store.leaseJob(w(2), 5000, 1000, alive)).toBeNull();
      expect(await store.getJob(j.id)).toMatchObject({ state: 'dead', attempts: 1 });
      expect((await store.getJob(j.id))!.lastError).toMatch(/lost during attempt 1/);
    });

    it('gives a job to exactly one of many concurrent lessees', async () => {
      await job();
      const got = await Promise.all(
        [1, 2, 3, 4, 5, 6].map((pid) => store.leaseJob(w(pid), 1000, 60_000, alive)),
      );
      expect(got.filter((g) => g !== null).length).toBe(1);
    });

    it('retries a dead job with attempts from zero; purges only dead jobs', async () => {
      const dead = await job('ingest', 'k');
      await store.leaseJob(w(1), 1000, 1000, alive);
      await store.failJob(dead.id, w(1), 'x', null, 1100);
      const other = await job('reindex');
      expect(await store.retryJob(other.id, 2000)).toBe(false); // not dead
      expect(await store.retryJob(dead.id, 2000)).toBe(true);
      expect(await store.getJob(dead.id)).toMatchObject({
        state: 'queued',
        attempts: 0,
        runAt: 2000,
        finishedAt: null,
      });
      const again = await store.leaseJob(w(1), 2000, 1000, alive, ['ingest']);
      expect(again!.id).toBe(dead.id);
      await store.failJob(again!.id, w(1), 'y', null, 2100);
      expect(await store.purgeDeadJobs()).toBe(1);
      expect(await store.getJob(dead.id)).toBeNull();
      expect(await store.getJob(other.id)).not.toBeNull();
    });

    it('does not revive a dead job whose key a live job now has', async () => {
      const dead = await job('ingest', 'k');
      await store.leaseJob(w(1), 1000, 1000, alive);
      await store.failJob(dead.id, w(1), 'x', null, 1100);
      await job('ingest', 'k');
      expect(await store.retryJob(dead.id, 2000)).toBe(false);
    });

    it('lists newest first, filtered by state and kind, with a limit', async () => {
      const a = await job('ingest');
      const b = await job('reindex');
      const c = await job('ingest');
      expect((await store.listJobs()).map((j) => j.id)).toEqual([c.id, b.id, a.id]);
      expect((await store.listJobs({ kind: 'ingest' })).map((j) => j.id)).toEqual([c.id, a.id]);
      expect((await store.listJobs({ limit: 1 })).map((j) => j.id)).toEqual([c.id]);
      await store.leaseJob(w(1), 1000, 1000, alive);
      expect((await store.listJobs({ state: 'leased' })).map((j) => j.id)).toEqual([a.id]);
      expect(await store.jobCounts()).toEqual({ queued: 2, leased: 1, done: 0, dead: 0 });
    });

    it('deletes a blob once, and says whether there was one', async () => {
      await store.putBlob('upload:x', new Uint8Array([1, 2, 3]));
      expect(await store.deleteBlob('upload:x')).toBe(true);
      expect(await store.getBlob('upload:x')).toBeNull();
      expect(await store.deleteBlob('upload:x')).toBe(false);
    });

    if (options.reopen !== undefined) {
      const reopen = options.reopen;
      it('keeps the queue across a reopen', async () => {
        const j = await job('ingest', 'k');
        store = await reopen(store);
        expect(await store.getJob(j.id)).toMatchObject({ state: 'queued', key: 'k' });
      });
    }
  });
}
