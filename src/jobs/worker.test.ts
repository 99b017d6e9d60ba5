import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { processStart } from '../store/liveness.js';
import type { WriterClaim } from '../store/store.js';
import { Vault } from '../vault.js';
import { keepUpload } from './enqueue.js';
import { submitJob } from './queue.js';
import { drain, runNext } from './worker.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';

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
    expect((await vault.store.getJob(job.id))!.lastError).toMatch(/add elsewhere|writ/);
    t += 499;
    expect(await runNext(vault, { now, random: () => 0.5 })).toBeNull();
    t += 1;
    expect((await runNext(vault, { now, random: () => 0.5 }))!.retryAt).toBe(t + 1000); // ceiling doubled
    t += 1000;
    expect(await runNext(vault, { now, random: () => 0.5 })).toMatchObject({ outcome: 'dead' });
    expect(await vault.store.getJob(job.id)).toMatchObject({ state: 'dead', attempts: 3 });
    await vault.store.releaseWriter(parent);
  });

  it('sends a job whose input is wrong to the dead letter at once', async () => {
    const job = await submitJob(vault, 'ingest', { paths: [join(dir, 'no-such-folder')] });
    const s = await drain(vault);
    expect(s).toEqual({ done: 0, retried: 0, dead: 1, lost: 0 });
    expect(await vault.store.getJob(job.id)).toMatchObject({ state: 'dead', attempts: 1 });
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
  });

  it('puts a job stopped by its owner (SIGTERM) back on the queue, due at once', async () => {
    const texts = Array.from({ length: 200 }, (_, i) => ({
      text: `Note ${i} about sourdough starters.`,
      source: `s${i}.md`,
    }));
    const job = await submitJob(vault, 'ingest', { texts });
    const stop = new AbortController();
    const at = Date.now() + 10_000;
    const e = await runNext(vault, { signal: stop.signal, onProgress: () => stop.abort(), now: () => at });
    expect(e).toMatchObject({ outcome: 'retry', retryAt: at });
    expect(await vault.store.getJob(job.id)).toMatchObject({ state: 'queued', runAt: at });
    expect(await drain(vault, { now: () => at })).toMatchObject({ done: 1 });
    expect((await vault.stats()).documents).toBe(200);
  });
});
