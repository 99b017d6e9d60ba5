// Issue 13, concurrency: one writer at a time across processes, read-only commands that never write.
// Every test runs the real CLI as child processes on real SQLite files; kills are real SIGKILLs (at
// named crash points, `src/_failpoint.ts`, or at a moment the test picks); races are real processes.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import {
  afterFault,
  fileHash,
  hasRunningBatch,
  quiver,
  startQuiver,
  until,
  vaultCounts,
  writeNotes,
} from './faults.js';

const tmp = tempDir('quiver-faults-');
afterAll(() => tmp.cleanup());

let seq = 0;
const fresh = (): string => join(tmp.dir, `v${++seq}.db`);

/** After any fault: a search works and every live chunk has a vector. */
const expectHealthy = async (vault: string): Promise<void> =>
  expect(await afterFault(vault)).toEqual({ searchCode: 0, chunksWithoutVector: 0 });

describe('one writer at a time', () => {
  let notes: string;
  let small: string;
  let mid: string;
  beforeAll(() => {
    notes = writeNotes(join(tmp.dir, 'notes'), 'n', 1500);
    mid = writeNotes(join(tmp.dir, 'mid'), 'm', 500, 5);
    small = writeNotes(join(tmp.dir, 'small'), 's', 40, 7);
  });

  it('undo while add runs is refused with exit 8 naming the batch, and the add keeps every document', async () => {
    const vault = fresh();
    const add = startQuiver(['add', notes, '--vault', vault, '--quiet']);
    await until(() => hasRunningBatch(vault), 20_000, 'the add to start its batch');
    const undo = await quiver(['undo', '--vault', vault]);
    expect(undo.code).toBe(8);
    expect(undo.stderr).toMatch(/busy: process \d+ .* running `add .*` \(batch [0-9a-f]{12}\)/);
    const a = await add.done;
    expect(a.code, a.stderr).toBe(0);
    const c = vaultCounts(vault);
    expect(c.documents).toBe(1500);
    expect(c.batches.map((b) => [b.status, b.added])).toEqual([['done', 1500]]);
    await expectHealthy(vault);
  });

  it('undo and add started together, both waiting: the end state is one of the two orders, never a mix', async () => {
    for (const delayMs of [0, 400]) {
      const vault = fresh();
      expect((await quiver(['add', small, '--vault', vault, '--quiet'])).code).toBe(0);
      const add = startQuiver(['add', mid, '--vault', vault, '--quiet', '--wait', '60']);
      await new Promise((r) => setTimeout(r, delayMs));
      const undo = await quiver(['undo', '--vault', vault, '--wait', '60']);
      const a = await add.done;
      expect(a.code, a.stderr).toBe(0);
      expect(undo.code, undo.stderr).toBe(0);
      const c = vaultCounts(vault);
      const [first, second] = c.batches;
      // Undo first: the small batch is rolled back, then the add lands. Add first: undo removes it.
      if (first!.status === 'rolled_back') {
        expect(second).toMatchObject({ status: 'done', added: 500 });
        expect(c.documents).toBe(500);
      } else {
        expect(first).toMatchObject({ status: 'done', added: 40 });
        expect(second).toMatchObject({ status: 'rolled_back', added: 500 });
        expect(c.documents).toBe(40);
      }
      await expectHealthy(vault);
    }
  });

  it('two undos of one batch: one rolls it back, the other says it found it already rolled back', async () => {
    const vault = fresh();
    const add = await quiver(['add', small, '--vault', vault, '--json']);
    const batch = (JSON.parse(add.stdout) as { batch: string }).batch;
    const runs = await Promise.all([
      quiver(['undo', '--batch', batch, '--vault', vault, '--wait', '30']),
      quiver(['undo', '--batch', batch, '--vault', vault, '--wait', '30']),
    ]);
    expect(runs.map((r) => r.code).sort()).toEqual([0, 8]);
    expect(runs.find((r) => r.code === 8)!.stderr).toMatch(/already rolled back \(at \d{4}-/);
    expect(vaultCounts(vault).documents).toBe(0);
  });

  it('three concurrent adds and an outside connection holding the write lock: every document, every vector', async () => {
    const vault = fresh();
    const folders = [0, 1, 2].map((i) => writeNotes(join(tmp.dir, `conc-${i}`), `c${i}`, 200, 11 + i));
    expect((await quiver(['init', '--vault', vault])).code).toBe(0);
    const outside = new Database(vault);
    outside.exec('BEGIN IMMEDIATE');
    const adds = folders.map((f) => startQuiver(['add', f, '--vault', vault, '--quiet', '--wait', '120']));
    await new Promise((r) => setTimeout(r, 1500));
    outside.exec('COMMIT');
    outside.close();
    for (const a of adds) {
      const r = await a.done;
      expect(r.code, r.stderr).toBe(0);
    }
    const c = vaultCounts(vault);
    expect(c.documents).toBe(600);
    expect(c.chunksWithoutVector).toBe(0);
    expect(c.staleVectors).toBe(0);
    expect(c.batches.map((b) => b.status)).toEqual(['done', 'done', 'done']);
  });

  it('an outside lock held past the busy timeout stops the add with exit 8, no document failed, and a re-run completes', async () => {
    const vault = fresh();
    expect((await quiver(['add', small, '--vault', vault, '--quiet'])).code).toBe(0);
    const outside = new Database(vault);
    outside.exec('BEGIN IMMEDIATE');
    const r = await quiver(['add', mid, '--vault', vault, '--json'], { QUIVER_BUSY_TIMEOUT_MS: '200' });
    outside.exec('COMMIT');
    outside.close();
    expect(r.code).toBe(8);
    expect(r.stderr).toMatch(/locked by another connection/);
    expect(r.stdout).not.toMatch(/"status":"failed"/);
    const again = await quiver(['add', mid, '--vault', vault, '--quiet']);
    expect(again.code, again.stderr).toBe(0);
    expect(vaultCounts(vault).documents).toBe(540);
    await expectHealthy(vault);
  });
});

describe('read-only commands never create or change a file', () => {
  it('a missing vault is exit 3 with its path, and neither the file nor its folder appears', async () => {
    const missing = join(tmp.dir, 'typo', 'nested', 'vault.db');
    for (const args of [['search', 'x'], ['docs'], ['batches'], ['read', 'abc#0'], ['doctor']]) {
      const r = await quiver([...args, '--vault', missing]);
      expect(r.code, args[0]).toBe(3);
      expect(r.stderr).toContain(missing);
    }
    expect(existsSync(join(tmp.dir, 'typo'))).toBe(false);
  });

  it("another program's SQLite database is exit 5 'not a quiver vault', byte for byte unchanged", async () => {
    const other = join(tmp.dir, 'other.db');
    const db = new Database(other);
    db.exec("CREATE TABLE contacts (name TEXT, phone TEXT); INSERT INTO contacts VALUES ('a', '1')");
    db.close();
    const before = fileHash(other);
    for (const args of [['docs'], ['search', 'x'], ['batches'], ['add', '--text', 'hello'], ['undo']]) {
      const r = await quiver([...args, '--vault', other]);
      expect(r.code, args[0]).toBe(5);
      expect(r.stderr).toMatch(/not a quiver vault/);
    }
    expect(fileHash(other)).toBe(before);
    expect(existsSync(`${other}-wal`)).toBe(false);
  });

  it('a file that is not SQLite at all is exit 5 too, unchanged', async () => {
    const junk = join(tmp.dir, 'notes.txt.db');
    writeFileSync(junk, 'just some text\n'.repeat(200));
    const before = fileHash(junk);
    expect((await quiver(['docs', '--vault', junk])).code).toBe(5);
    expect((await quiver(['add', '--text', 'x', '--vault', junk])).code).toBe(5);
    expect(fileHash(junk)).toBe(before);
  });
});
