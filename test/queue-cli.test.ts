// `quiver add --queue` and `quiver queue list|drain|retry|purge-dead`, run as a person would (the
// CLI in-process on real SQLite files and real folders).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from './helpers.js';

const tmp = tempDir('quiver-queue-cli-');
afterAll(() => tmp.cleanup());
const vault = join(tmp.dir, 'v.db');
const q = (...args: string[]) => runCli([...args, '--vault', vault]);

interface Listed {
  counts: Record<string, number>;
  jobs: { id: string; kind: string; state: string; lastError: string | null; attempts: number }[];
}

describe('quiver queue', () => {
  it('queues an ingest that drain then runs; a second --queue of the same input is the same job', async () => {
    const notes = join(tmp.dir, 'notes');
    mkdirSync(notes);
    writeFileSync(join(notes, 'a.md'), '# Sourdough\n\nFeed the starter twice a day.\n');
    writeFileSync(join(notes, 'b.md'), '# Bees\n\nA swarm settles within a day.\n');
    const first = await q('add', '--queue', notes, '--json');
    expect(first.code, first.stderr).toBe(0);
    const again = await q('add', '--queue', notes, '--json');
    expect(again.json<{ job: string }>().job).toBe(first.json<{ job: string }>().job);
    expect((await q('docs', '--json')).json<unknown[]>()).toEqual([]);
    const listed = (await q('queue', 'list', '--json')).json<Listed>();
    expect(listed.counts.queued).toBe(1);
    expect(listed.jobs[0]).toMatchObject({ kind: 'ingest', state: 'queued', attempts: 0 });
    const drained = await q('queue', 'drain');
    expect(drained.code, drained.stderr).toBe(0);
    expect(drained.stdout).toMatch(/^1 done, 0 to retry, 0 dead/);
    expect((await q('docs', '--json')).json<unknown[]>().length).toBe(2);
    expect((await q('queue', 'list', '--json')).json<Listed>().jobs[0]!.state).toBe('done');
  });

  it('keeps a job that cannot succeed as dead with its error; retry and purge-dead', async () => {
    const gone = join(tmp.dir, 'gone');
    mkdirSync(gone);
    writeFileSync(join(gone, 'x.md'), '# x\n\nx');
    const queued = (await q('add', '--queue', gone, '--json')).json<{ job: string }>().job;
    rmSync(gone, { recursive: true });
    const drained = await q('queue', 'drain');
    expect(drained.code).toBe(4);
    expect(drained.stderr).toContain(`job ${queued} ingest: dead after attempt 1`);
    const dead = (await q('queue', 'list', '--state', 'dead', '--json')).json<Listed>().jobs;
    expect(dead.map((j) => j.id)).toEqual([queued]);
    expect(dead[0]!.lastError).toMatch(/gone/);
    const retried = await q('queue', 'retry', queued.slice(0, 6));
    expect(retried.code, retried.stderr).toBe(0);
    expect(
      (await q('queue', 'list', '--state', 'queued', '--json')).json<Listed>().jobs.map((j) => j.id),
    ).toEqual([queued]);
    expect((await q('queue', 'drain')).code).toBe(4);
    const purged = await q('queue', 'purge-dead', '--json');
    expect(purged.json()).toEqual({ purged: 1 });
    expect((await q('queue', 'list', '--state', 'dead', '--json')).json<Listed>().jobs).toEqual([]);
  });

  it('refuses bad input with a clear message and exit 2 or 3, changing nothing', async () => {
    const before = (await q('queue', 'list', '--json')).stdout;
    const cases: [string[], number, RegExp][] = [
      [['queue', 'list', '--state', 'nope'], 2, /--state must be one of queued, leased, done, dead/],
      [['queue', 'list', '--limit', '0'], 2, /--limit/],
      [['queue', 'retry'], 2, /give the job id/],
      [['queue', 'retry', 'zz!'], 2, /hex digits/],
      [['queue', 'retry', 'abcdef'], 3, /no dead job abcdef/],
      [['queue'], 2, /purge-dead/],
    ];
    for (const [args, code, message] of cases) {
      const r = await q(...args);
      expect([args.join(' '), r.code]).toEqual([args.join(' '), code]);
      expect(r.stderr + r.stdout).toMatch(message);
    }
    expect((await q('queue', 'list', '--json')).stdout).toBe(before);
  });
});
