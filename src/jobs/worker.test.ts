import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isQuiverError } from '../errors.js';
import { holderAlive, processStart } from '../store/liveness.js';
import type { WriterClaim } from '../store/store.js';
import { Vault } from '../vault.js';
import { keepUpload } from './enqueue.js';
import { purgeDeadJobs, retryDeadJob, submitJob } from './queue.js';
import { isPermanent } from './run-job.js';
import { BUSY_PAUSE_MS, drain, runNext } from './worker.js';

// The worker on a real SQLite vault: the clock and the jitter are passed in, never waited for.
const dir = mkdtempSync(join(tmpdir(), 'quiver-worker-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
let vault: Vault;
beforeEach(async () => {
  vault = await Vault.open({
    overrides: { vault: join(dir, `v${n++}.db`), 'queue.maxAttempts': 3 },
    env: {},
  });
});
afterEach(async () => {
  await vault.close();
});

/** Another live process (this one's parent) holding the vault's writer slot: writes meet CONFLICT. */
const parent: WriterClaim = {
  pid: process.ppid,
  host: hostname(),
  procStart: processStart(process.ppid),
  command: 'add elsewhere',
};

describe('the worker', () => {
  it('runs an ingest job: done, with the add report, and the text is searchable', async () => {
    const job = await submitJob(vault, 'ingest', {
      texts: [{ text: 'Descale the kettle monthly.', source: 'k.md' }],
    });
    const e = await runNext(vault);
    expect(e).toMatchObject({ outcome: 'done' });
    expect(await vault.store.getJob(job.id)).toMatchObject({ state: 'done', attempts: 1 });
    expect((await vault.search('descale kettle')).hits[0]!.source).toBe('k.md');
    expect(await runNext(vault)).toBeNull();
  });

  it('keeps one job for one input while it is pending, and takes the same input again once it is done', async () => {
    const payload = { texts: [{ text: 'Prune roses in March.', source: 'roses.md', title: 'Roses' }] };
    const a = await submitJob(vault, 'ingest', payload);
    // The same payload with its keys in another order is the same request.
    const b = await submitJob(vault, 'ingest', {
      texts: [{ title: 'Roses', source: 'roses.md', text: 'Prune roses in March.' }],
    });
    expect(b.id).toBe(a.id);
    const other = await submitJob(vault, 'ingest', { texts: [{ text: 'Prune apple trees in winter.' }] });
    expect(other.id).not.toBe(a.id);
    expect(await vault.store.jobCounts()).toEqual({ queued: 2, leased: 0, done: 0, dead: 0 });
    expect(await drain(vault)).toEqual({ done: 2, retried: 0, dead: 0, lost: 0 });
    const later = await submitJob(vault, 'ingest', payload);
    expect(later.id).not.toBe(a.id);
    expect(await drain(vault)).toMatchObject({ done: 1 });
    // Run twice, written once: the second run found the content already stored.
    expect((await vault.stats()).documents).toBe(2);
    expect((await vault.store.getJob(later.id))!.result).toMatchObject({ batch: { added: 0, unchanged: 1 } });
    // Leased by a live worker (this process's parent) counts as pending too.
    const mulch = { texts: [{ text: 'Mulch the beds in autumn.' }] };
    const held = await submitJob(vault, 'ingest', mulch);
    expect((await vault.store.leaseJob(parent, Date.now() + 1000, 3_600_000, holderAlive))!.id).toBe(held.id);
    expect(await submitJob(vault, 'ingest', mulch)).toMatchObject({ id: held.id, state: 'leased' });
  });

  it('retries a transient failure after the backoff, keeping the error, then dies after the last attempt', async () => {
    await vault.store.claimWriter(parent, () => true);
    const job = await submitJob(vault, 'ingest', { texts: [{ text: 'Bees swarm in May.' }] });
    let t = Date.now() + 10_000;
    const now = (): number => t;
    const first = await runNext(vault, { now, random: () => 0.5 });
    expect(first).toMatchObject({ outcome: 'retry' });
    // Attempt 1, full jitter at 0.5 of a 1 s ceiling: due 500 ms later, not before.
    expect(first!.retryAt).toBe(t + 500);
    expect(await vault.store.getJob(job.id)).toMatchObject({ state: 'queued', attempts: 1, runAt: t + 500 });
    expect((await vault.store.getJob(job.id))!.lastError).toMatch(/busy.*`add elsewhere`/);
    t += 499;
    expect(await runNext(vault, { now, random: () => 0.5 })).toBeNull();
    t += 1;
    expect((await runNext(vault, { now, random: () => 0.5 }))!.retryAt).toBe(t + 1000); // ceiling doubled
    t += 1000;
    expect(await runNext(vault, { now, random: () => 0.5 })).toMatchObject({ outcome: 'dead' });
    const dead = (await vault.store.getJob(job.id))!;
    expect(dead).toMatchObject({ state: 'dead', attempts: 3 });
    expect(dead.lastError).toMatch(/busy.*`add elsewhere`/);
    expect(await runNext(vault, { now: () => t + 1e9 })).toBeNull();
    await vault.store.releaseWriter(parent);
    expect((await vault.stats()).documents).toBe(0);
  });

  it('gives a job back, its attempt not counted, when another worker running a job holds the writer slot', async () => {
    // Another server's worker (this process's parent): it leased a job and holds the slot for it.
    const theirs = await submitJob(vault, 'ingest', { texts: [{ text: 'Wasps nest in eaves.' }] });
    expect((await vault.store.leaseJob(parent, Date.now(), 3_600_000, holderAlive))!.id).toBe(theirs.id);
    await vault.store.claimWriter(parent, () => true);
    const mine = await submitJob(vault, 'ingest', { texts: [{ text: 'Bees swarm in May.' }] });
    const t = Date.now() + 10_000;
    const e = await runNext(vault, { now: () => t, random: () => 0.5 });
    // Due again after the pause (BUSY_PAUSE_MS at the middle of its ±50%), as if never tried.
    expect(e).toMatchObject({ outcome: 'retry', retryAt: t + BUSY_PAUSE_MS });
    expect(await vault.store.getJob(mine.id)).toMatchObject({
      state: 'queued',
      attempts: 0,
      runAt: t + BUSY_PAUSE_MS,
    });
    await vault.store.releaseWriter(parent);
    expect(await drain(vault, { now: () => t + BUSY_PAUSE_MS })).toMatchObject({ done: 1 });
    expect(await vault.store.getJob(mine.id)).toMatchObject({ state: 'done', attempts: 1 });
  });

  it('sends a job whose input is wrong to the dead letter at once', async () => {
    const missing = join(dir, 'no-such-folder');
    // What the handler meets: vault.add refuses a path that is not there with NOT_FOUND, a permanent code.
    const thrown = await vault.add([missing]).catch((e: unknown) => e);
    expect(isQuiverError(thrown, 'NOT_FOUND')).toBe(true);
    expect(isPermanent(thrown)).toBe(true);
    const job = await submitJob(vault, 'ingest', { paths: [missing] });
    const s = await drain(vault);
    expect(s).toEqual({ done: 0, retried: 0, dead: 1, lost: 0 });
    const dead = (await vault.store.getJob(job.id))!;
    expect(dead).toMatchObject({ state: 'dead', attempts: 1 });
    expect(dead.lastError).toContain('no-such-folder does not exist');
  });

  it('takes over at once a job whose worker process is gone, and calls it dead when that was its last try', async () => {
    // A real process that has exited: its pid is no longer running.
    const exited = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
    const ghost: WriterClaim = {
      pid: Number(exited.stdout.trim()),
      host: hostname(),
      procStart: '1',
      command: 'queue work',
    };
    expect(holderAlive(ghost)).toBe(false);
    const t = Date.now() + 10_000; // later than every enqueue below
    const job = await submitJob(vault, 'ingest', { texts: [{ text: 'Wax the skis.', source: 'ski.md' }] });
    // The ghost leased it for an hour and died: the next worker need not wait for the hour.
    expect((await vault.store.leaseJob(ghost, t, 3_600_000, holderAlive))!.id).toBe(job.id);
    expect(await runNext(vault, { now: () => t + 1 })).toMatchObject({ outcome: 'done' });
    expect(await vault.store.getJob(job.id)).toMatchObject({ state: 'done', attempts: 2 });
    const last = await submitJob(vault, 'ingest', {
      texts: [{ text: 'Oil the chain.', source: 'chain.md' }],
    });
    for (let i = 0; i < 3; i++) {
      expect((await vault.store.leaseJob(ghost, t + i, 3_600_000, holderAlive))!.id).toBe(last.id);
    }
    expect(await runNext(vault, { now: () => t + 10 })).toBeNull();
    const dead = (await vault.store.getJob(last.id))!;
    expect(dead).toMatchObject({ state: 'dead', attempts: 3 });
    expect(dead.lastError).toMatch(/worker \(pid \d+ on .*\) was lost during attempt 3/);
  });

  it('removes an upload blob once its job is done, but not while another live job needs it', async () => {
    const bytes = new TextEncoder().encode('# Teapot\n\nWarm the pot first.\n');
    const a = await keepUpload(vault.store, 'teapot.md', bytes);
    const b = await keepUpload(vault.store, 'teapot-copy.md', bytes);
    expect(a.blob).toBe(b.blob);
    await submitJob(vault, 'ingest', { uploads: [a] });
    await submitJob(vault, 'ingest', { uploads: [b] });
    await runNext(vault);
    expect(await vault.store.getBlob(a.blob)).not.toBeNull();
    await runNext(vault);
    expect(await vault.store.getBlob(a.blob)).toBeNull();
    expect((await vault.search('warm the pot')).hits[0]!.source).toBe('teapot.md');
  });

  it('keeps the upload of a dead job so a retry can run it, and frees it when the dead letter is purged', async () => {
    const bytes = (t: string) => new TextEncoder().encode(t);
    const c = await keepUpload(vault.store, 'kettle.md', bytes('# Kettle\n\nDescale it with citric acid.\n'));
    const missing = join(dir, 'not-here.md');
    const job = await submitJob(vault, 'ingest', { uploads: [c], paths: [missing] });
    expect(await runNext(vault)).toMatchObject({ outcome: 'dead' });
    expect(await vault.store.getBlob(c.blob)).not.toBeNull();
    // The missing file appears; the retried job now runs, upload included, and frees the blob.
    writeFileSync(missing, '# Here now\n\nThe file arrived late.\n');
    await retryDeadJob(vault, job.id);
    expect(await runNext(vault)).toMatchObject({ outcome: 'done' });
    expect((await vault.search('descale citric acid')).hits[0]!.source).toBe('kettle.md');
    expect(await vault.store.getBlob(c.blob)).toBeNull();
    // Another dead job's upload goes when the dead letter is purged.
    const d = await keepUpload(vault.store, 'mug.md', bytes('# Mug\n\nRinse it.\n'));
    await submitJob(vault, 'ingest', { uploads: [d], paths: [join(dir, 'never.md')] });
    expect(await runNext(vault)).toMatchObject({ outcome: 'dead' });
    expect(await purgeDeadJobs(vault)).toBeGreaterThan(0);
    expect(await vault.store.getBlob(d.blob)).toBeNull();
  });

  it('puts a job stopped by its owner (SIGTERM) back on the queue, due at once, its attempt not used', async () => {
    const texts = Array.from({ length: 200 }, (_, i) => ({
      text: `Note ${i} about sourdough starters.`,
      source: `s${i}.md`,
    }));
    const job = await submitJob(vault, 'ingest', { texts });
    const stop = new AbortController();
    const at = Date.now() + 10_000;
    const e = await runNext(vault, { signal: stop.signal, onProgress: () => stop.abort(), now: () => at });
    expect(e).toMatchObject({ outcome: 'retry', retryAt: at });
    expect(await vault.store.getJob(job.id)).toMatchObject({ state: 'queued', runAt: at, attempts: 0 });
    expect((await vault.stats()).documents).toBeLessThan(200);
    expect(await drain(vault, { now: () => at })).toMatchObject({ done: 1 });
    expect((await vault.stats()).documents).toBe(200);
  });
});
