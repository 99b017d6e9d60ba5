import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isQuiverError } from '../errors.js';
import { SqliteStore } from './sqlite/sqlite-store.js';
import { acquireWriter, describeHolder } from './writer.js';

const dir = mkdtempSync(join(tmpdir(), 'quiver-writer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('acquireWriter (two connections to one real file, as two processes would hold)', () => {
  it('a second claim from another process is refused at once with CONFLICT naming the holder', async () => {
    const path = join(dir, 'a.db');
    const a = SqliteStore.open(path);
    const b = SqliteStore.open(path);
    const lease = await acquireWriter(a, 'add notes/');
    await lease.running('abc123');
    // Pretend b is another live process: claim under a different pid that is alive (our parent).
    const holder = await b.claimWriter(
      { pid: process.ppid, host: 'x', procStart: null, command: 'undo' },
      () => true,
    );
    expect(holder).toMatchObject({ pid: process.pid, command: 'add notes/', batchId: 'abc123' });
    expect(describeHolder(holder!)).toMatch(
      /^process \d+ on .+ is running `add notes\/` \(batch abc123\) since /,
    );
    await lease.release();
    await a.close();
    await b.close();
  });

  it('waits up to waitMs for a holder, then CONFLICT; succeeds when the holder lets go in time', async () => {
    const path = join(dir, 'b.db');
    const a = SqliteStore.open(path);
    const other = { pid: process.ppid, host: hostname(), procStart: null, command: 'reindex' };
    expect(await a.claimWriter(other, () => true)).toBeNull();
    const waits: string[] = [];
    await expect(
      acquireWriter(a, 'add', { waitMs: 300, onWait: (h) => waits.push(h.command) }),
    ).rejects.toSatisfy(
      (e) => isQuiverError(e, 'CONFLICT') && /the vault is busy: .*`reindex`/.test((e as Error).message),
    );
    expect(waits).toEqual(['reindex']);
    setTimeout(() => void a.releaseWriter(other), 150);
    const lease = await acquireWriter(a, 'add', { waitMs: 5000 });
    expect((await a.currentWriter())?.pid).toBe(process.pid);
    await lease.release();
    expect(await a.currentWriter()).toBeNull();
    await a.close();
  });

  it('an abort while waiting ends the wait with ABORTED', async () => {
    const path = join(dir, 'c.db');
    const a = SqliteStore.open(path);
    const other = { pid: process.ppid, host: hostname(), procStart: null, command: 'add' };
    await a.claimWriter(other, () => true);
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    await expect(acquireWriter(a, 'undo', { waitMs: 10_000, signal: ac.signal })).rejects.toSatisfy((e) =>
      isQuiverError(e, 'ABORTED'),
    );
    await a.close();
  });
});
