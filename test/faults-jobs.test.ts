// Issue 17, the queue under faults: a 500-note ingest queued as five jobs, its worker killed with
// SIGKILL five times at moments the test picks (the vault's document count passing a mark), then a
// last worker finishing. Every note must end up in the vault exactly once, whole, with no job dead.
// Real `quiver queue work` child processes on a real SQLite file; kills are real SIGKILLs.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { afterFault, quiver, startQuiver, until, vaultCounts, writeNotes } from './faults.js';
import Database from 'better-sqlite3';

const tmp = tempDir('quiver-jobs-faults-');
afterAll(() => tmp.cleanup());

const jobStates = (vault: string): Record<string, number> => {
  const db = new Database(vault, { readonly: true });
  try {
    const rows = db.prepare('SELECT state, COUNT(*) AS n FROM jobs GROUP BY state').all() as {
      state: string;
      n: number;
    }[];
    return Object.fromEntries(rows.map((r) => [r.state, r.n]));
  } finally {
    db.close();
  }
};

describe('kill -9 the worker during a queued 500-note ingest, five times', () => {
  it('ends with every note in the vault exactly once and no dead job', async () => {
    const vault = join(tmp.dir, 'v.db');
    const folders = [0, 1, 2, 3, 4].map((i) => writeNotes(join(tmp.dir, `notes-${i}`), `n${i}`, 100, i + 1));
    for (const f of folders) {
      const r = await quiver(['add', '--queue', f, '--vault', vault, '--json']);
      expect(r.code, r.stderr).toBe(0);
    }
    expect(jobStates(vault)).toEqual({ queued: 5 });
    const env = { QUIVER_JOB_LEASE: '3' };
    const marks = [30, 130, 220, 330, 420];
    for (const mark of marks) {
      const w = startQuiver(['queue', 'work', '--vault', vault, '--quiet'], env);
      await until(() => vaultCounts(vault).documents >= mark, 60_000, `${mark} documents`);
      w.child.kill('SIGKILL');
      expect((await w.done).signal).toBe('SIGKILL');
    }
    const last = startQuiver(['queue', 'work', '--vault', vault, '--quiet'], env);
    await until(
      () => {
        const s = jobStates(vault);
        return (s.queued ?? 0) + (s.leased ?? 0) === 0;
      },
      90_000,
      'the queue to empty',
    );
    last.child.kill('SIGTERM');
    expect((await last.done).code).toBe(0);

    expect(jobStates(vault)).toEqual({ done: 5 });
    const db = new Database(vault, { readonly: true });
    try {
      const sources = db
        .prepare('SELECT source FROM documents WHERE superseded_by IS NULL')
        .pluck()
        .all() as string[];
      expect(sources.length).toBe(500);
      expect(new Set(sources).size).toBe(500);
      // Whole documents only: every live document has its sections and chunks.
      const hollow = db
        .prepare(
          `SELECT COUNT(*) FROM documents d WHERE d.superseded_by IS NULL
             AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.doc_rid = d.rid AND c.live = 1)`,
        )
        .pluck()
        .get() as number;
      expect(hollow).toBe(0);
    } finally {
      db.close();
    }
    expect(vaultCounts(vault).documents).toBe(500);
    expect(await afterFault(vault)).toEqual({ searchCode: 0, chunksWithoutVector: 0 });
    const dead = await quiver(['queue', 'list', '--state', 'dead', '--vault', vault, '--json']);
    expect((JSON.parse(dead.stdout) as { jobs: unknown[] }).jobs).toEqual([]);
  }, 240_000);
});
