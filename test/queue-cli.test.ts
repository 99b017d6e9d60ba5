// `quiver add --queue` and `quiver queue list|drain|retry|purge-dead`, run as a person would (the
// CLI in-process on real SQLite files and real folders; one drain as a real `node bin/quiver.js`
// child, for the process exit code).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { quiver } from './faults.js';
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
    // A setting the worker would not see is refused, and nothing is queued.
    const local = await q('add', '--queue', notes, '--chunk-chars', '400');
    expect(local.code).toBe(2);
    expect(local.stderr).toContain('--chunk-chars cannot go with --queue');
    const first = await q('add', '--queue', notes, '--json');
    expect(first.code, first.stderr).toBe(0);
    const again = await q('add', '--queue', notes, '--json');
    expect(again.json<{ job: string }>().job).toBe(first.json<{ job: string }>().job);
    expect(first.json()).toMatchObject({ state: 'queued' });
    // Queued, not run: nothing is in the vault yet.
    expect((await q('docs', '--json')).json<unknown[]>()).toEqual([]);
    const none = await q('search', 'sourdough starter', '--json');
    expect(none.code).toBe(0);
    expect(none.json<{ results: unknown[] }>().results).toEqual([]);
    const listed = (await q('queue', 'list', '--json')).json<Listed>();
    expect(listed.counts.queued).toBe(1);
    expect(listed.jobs[0]).toMatchObject({ kind: 'ingest', state: 'queued', attempts: 0 });
    const drained = await q('queue', 'drain');
    expect(drained.code, drained.stderr).toBe(0);
    expect(drained.stdout).toMatch(/^1 done, 0 to retry, 0 dead/);
    expect((await q('docs', '--json')).json<unknown[]>().length).toBe(2);
    const found = (await q('search', 'sourdough starter', '--json')).json<{
      results: { source: string }[];
    }>();
    expect(found.results[0]!.source).toBe('notes/a.md');
    // Nothing left due: a second drain has nothing to do.
    const idle = await q('queue', 'drain');
    expect([idle.code, idle.stdout]).toEqual([
      0,
      '0 done, 0 to retry, 0 dead, 0 lost; 0 queued, 0 dead in all\n',
    ]);
    expect((await q('queue', 'list', '--json')).json<Listed>().jobs[0]!.state).toBe('done');
  });

  it('keeps a job that cannot succeed as dead with its error; retry and purge-dead', async () => {
    const gone = join(tmp.dir, 'gone');
    mkdirSync(gone);
    writeFileSync(join(gone, 'x.md'), '# x\n\nx');
    const added = await q('add', '--queue', gone);
    expect(added.stdout).toMatch(/^job [0-9a-f]{16} queued \(quiver queue drain runs it\)\n$/);
    const queued = added.stdout.split(' ')[1]!;
    rmSync(gone, { recursive: true });
    // The folder is gone when the job runs: NOT_FOUND, which no retry mends, so dead at once.
    const drained = await quiver(['queue', 'drain', '--vault', vault]);
    expect(drained.code, drained.stderr).toBe(4);
    expect(drained.stderr).toContain(`job ${queued} ingest: dead after attempt 1`);
    expect(drained.stdout).toMatch(/^0 done, 0 to retry, 1 dead, 0 lost; 0 queued, 1 dead in all/);
    const table = await q('queue', 'list', '--state', 'dead');
    expect(table.stdout).toContain(queued.slice(0, 12));
    expect(table.stdout).toMatch(/dead +1\/\d+ .*quiver: .*gone does not exist/);
    const dead = (await q('queue', 'list', '--state', 'dead', '--json')).json<Listed>().jobs;
    expect(dead.map((j) => j.id)).toEqual([queued]);
    expect(dead[0]!.lastError).toBe(`quiver: ${gone} does not exist; nothing was added`);
    const retried = await q('queue', 'retry', queued.slice(0, 6));
    expect(retried.code, retried.stderr).toBe(0);
    expect(retried.stdout).toBe(`job ${queued} is queued again\n`);
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
      [['queue', 'retry', 'zzz'], 2, /a job id is 4 to 16 hex digits, got "zzz"/],
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

describe('quiver queue drain with files that fail', () => {
  it('exits 4, as add does, when a queued ingest could not read a file', async () => {
    const dir = join(tmp.dir, 'mixed');
    mkdirSync(dir);
    writeFileSync(join(dir, 'good.md'), '# Good\n\nA readable note.\n');
    writeFileSync(join(dir, 'bad.md'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0, 1, 2, 3, 0, 0]));
    const other = join(tmp.dir, 'mixed.db');
    expect(
      (await runCli(['add', '--queue', join(dir, 'bad.md'), join(dir, 'good.md'), '--vault', other])).code,
    ).toBe(0);
    const drained = await runCli(['queue', 'drain', '--vault', other, '--json']);
    expect(drained.code).toBe(4);
    expect(drained.json()).toMatchObject({ done: 1, failedFiles: 1 });
  });
});
