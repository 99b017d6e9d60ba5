// Issue 13, crashes: kill -9 and SIGINT anywhere leave whole documents; batches, rm and sync.
// Every test runs the real CLI as child processes on real SQLite files; kills are real SIGKILLs (at
// named crash points, `src/_failpoint.ts`, or at a moment the test picks); races are real processes.
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { afterFault, quiver, startQuiver, until, vaultCounts, writeNotes } from './faults.js';

const tmp = tempDir('quiver-crash2-');
afterAll(() => tmp.cleanup());

let seq = 0;
const fresh = (): string => join(tmp.dir, `v${++seq}.db`);

/** After any fault: a search works and every live chunk has a vector. */
const expectHealthy = async (vault: string): Promise<void> =>
  expect(await afterFault(vault)).toEqual({ searchCode: 0, chunksWithoutVector: 0 });

describe('kill -9 anywhere', () => {
  let notes: string;
  beforeAll(() => {
    notes = writeNotes(join(tmp.dir, 'kill-notes'), 'k', 400, 3);
  });

  // Each crash point: where the process dies, and what it was doing.
  const points = [
    ['ingest.flush:3', 'mid-ingest, after three groups of documents were written'],
    ['refit.fitted', 'mid-refit, IDF fitted but nothing re-embedded'],
    ['reindex.batch:2', 'mid-refit, half the chunks re-embedded'],
    ['writer.claimed', 'right after taking the writer slot'],
  ] as const;

  for (const [point, what] of points) {
    it(`${what} (${point}): every command works afterwards and re-adding reaches the exact count`, async () => {
      const vault = fresh();
      const crashed = await quiver(['add', notes, '--vault', vault, '--quiet'], { QUIVER_FAILPOINT: point });
      expect(crashed.signal).toBe('SIGKILL');
      for (const args of [['batches'], ['doctor']]) {
        const r = await quiver([...args, '--vault', vault]);
        expect(r.code, `${args[0]}: ${r.stderr}`).toBe(0);
      }
      const batches = await quiver(['batches', '--vault', vault, '--json']);
      const statuses = (JSON.parse(batches.stdout) as { status: string }[]).map((b) => b.status);
      expect(statuses.every((s) => s === 'interrupted' || s === 'done')).toBe(true);
      const again = await quiver(['add', notes, '--vault', vault, '--quiet']);
      expect(again.code, again.stderr).toBe(0);
      const c = vaultCounts(vault);
      expect(c.documents).toBe(400);
      expect(c.staleVectors).toBe(0);
      await expectHealthy(vault);
    });
  }

  it('a kill -9 at a moment picked mid-add, then undo of the interrupted batch removes exactly what it wrote', async () => {
    const vault = fresh();
    const base = writeNotes(join(tmp.dir, 'kill-base'), 'b', 20, 5);
    expect((await quiver(['add', base, '--vault', vault, '--quiet'])).code).toBe(0);
    const add = startQuiver(['add', notes, '--vault', vault, '--quiet']);
    await until(
      () => existsSync(vault) && vaultCounts(vault).documents > 100,
      30_000,
      'the add to write some documents',
    );
    add.child.kill('SIGKILL');
    await add.done;
    const undo = await quiver(['undo', '--vault', vault, '--json']);
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.stderr).toMatch(/was interrupted/);
    const c = vaultCounts(vault);
    expect(c.documents).toBe(20);
    expect(c.batches.map((b) => b.status)).toEqual(['done', 'rolled_back']);
    await expectHealthy(vault);
  });

  it('SIGINT during add: exit 130, the batch is interrupted with whole documents, a re-run finishes it', async () => {
    const vault = fresh();
    const add = startQuiver(['add', notes, '--vault', vault]);
    await until(
      () => existsSync(vault) && vaultCounts(vault).documents > 40,
      30_000,
      'the add to write some documents',
    );
    add.child.kill('SIGINT');
    const r = await add.done;
    expect(r.code).toBe(130);
    const c = vaultCounts(vault);
    expect(c.batches.map((b) => b.status)).toEqual(['interrupted']);
    expect(c.batches[0]!.added).toBe(c.documents);
    expect(c.chunksWithoutVector).toBe(0);
    const again = await quiver(['add', notes, '--vault', vault, '--quiet']);
    expect(again.code, again.stderr).toBe(0);
    expect(vaultCounts(vault).documents).toBe(400);
  });
});

describe('batches, rm and sync', () => {
  it('rm takes documents out as a batch that undo brings back; an unknown ref changes nothing', async () => {
    const vault = fresh();
    const dir = writeNotes(join(tmp.dir, 'rm-notes'), 'r', 12, 9);
    mkdirSync(join(dir, 'sub'));
    writeNotes(join(dir, 'sub'), 'q', 3, 4);
    expect((await quiver(['add', dir, '--vault', vault, '--quiet'])).code).toBe(0);
    expect(vaultCounts(vault).documents).toBe(15);
    const bad = await quiver(['rm', 'no-such-doc', '--vault', vault]);
    expect(bad.code).toBe(3);
    expect(vaultCounts(vault).documents).toBe(15);
    const docs = JSON.parse((await quiver(['docs', '--vault', vault, '--json'])).stdout) as {
      id: string;
      source: string;
    }[];
    const sub = docs[0]!.source.replace(/[^/]+$/, 'sub/');
    const one = docs.find((d) => !d.source.includes('/sub/'))!;
    const rm = await quiver(['rm', one.id, sub, '--vault', vault, '--json']);
    expect(rm.code, rm.stderr).toBe(0);
    expect((JSON.parse(rm.stdout) as { removed: unknown[] }).removed).toHaveLength(4);
    expect(vaultCounts(vault).documents).toBe(11);
    expect((await quiver(['undo', '--vault', vault])).code).toBe(0);
    expect(vaultCounts(vault).documents).toBe(15);
    await expectHealthy(vault);
  });

  it('add --sync removes documents whose files are gone and reports a renamed file as renamed', async () => {
    const vault = fresh();
    const dir = writeNotes(join(tmp.dir, 'sync-notes'), 'y', 6, 2);
    expect((await quiver(['add', dir, '--vault', vault, '--quiet'])).code).toBe(0);
    rmSync(join(dir, 'y-00000.md'));
    renameSync(join(dir, 'y-00001.md'), join(dir, 'renamed.md'));
    const r = await quiver(['add', dir, '--sync', '--vault', vault, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as {
      added: number;
      removed: number;
      removed_documents: { source: string; renamedTo?: string }[];
    };
    expect(report).toMatchObject({ added: 1, removed: 2 });
    expect(vaultCounts(vault).documents).toBe(5);
    const byName = Object.fromEntries(
      report.removed_documents.map((d) => [d.source.split('/').pop(), d.renamedTo?.split('/').pop() ?? null]),
    );
    expect(byName).toEqual({ 'y-00000.md': null, 'y-00001.md': 'renamed.md' });
    expect((await quiver(['undo', '--vault', vault])).code).toBe(0);
    expect(vaultCounts(vault).documents).toBe(6);
  });

  it('an add that changes nothing records no batch, so undo rolls back the last real ingest', async () => {
    const vault = fresh();
    const dir = writeNotes(join(tmp.dir, 'noop-notes'), 'z', 5, 8);
    expect((await quiver(['add', dir, '--vault', vault, '--quiet'])).code).toBe(0);
    const again = await quiver(['add', dir, '--vault', vault]);
    expect(again.stdout).toMatch(/nothing changed \(no batch recorded\)/);
    expect(vaultCounts(vault).batches).toHaveLength(1);
    expect((await quiver(['undo', '--vault', vault])).code).toBe(0);
    expect(vaultCounts(vault).documents).toBe(0);
  });
});
