// `quiver export` / `quiver import` as a person runs them: files (gzipped or not), exit codes for a
// missing vault, an existing file, a vault that is not empty and a malformed export; and the real
// binary piping `export -` into `import -`.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from './helpers.js';

const t = tempDir('quiver-transfer-cli-');
afterAll(() => t.cleanup());
const v = join(t.dir, 'vault.db');

/** Run `node bin/quiver.js … | node bin/quiver.js …`; both exit codes and the second's output. */
function pipe(
  from: string[],
  to: string[],
): Promise<{ codes: (number | null)[]; stdout: string; stderr: string }> {
  const env = { ...process.env, QUIVER_PROGRESS: 'false' };
  const a = spawn(process.execPath, ['bin/quiver.js', ...from], { stdio: ['ignore', 'pipe', 'pipe'], env });
  const b = spawn(process.execPath, ['bin/quiver.js', ...to], { stdio: ['pipe', 'pipe', 'pipe'], env });
  a.stdout.pipe(b.stdin);
  let stdout = '';
  let stderr = '';
  b.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  b.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  a.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const ended = (p: ChildProcess) => new Promise<number | null>((ok) => p.on('close', (code) => ok(code)));
  return Promise.all([ended(a), ended(b)]).then((codes) => ({ codes, stdout, stderr }));
}

describe('quiver export / import', () => {
  beforeAll(async () => {
    expect((await runCli(['add', 'demo/corpus/coffee', 'demo/corpus/sourdough', '--vault', v])).code).toBe(0);
  }, 60_000);

  it('exports to a .gz file and imports it into a new vault that searches the same', async () => {
    const file = join(t.dir, 'out.jsonl.gz');
    const e = await runCli(['export', file, '--vault', v, '--json']);
    expect(e.code).toBe(0);
    expect(e.json<{ export: string; documents: number }>().documents).toBeGreaterThan(0);
    const copy = join(t.dir, 'copy.db');
    const i = await runCli(['import', file, '--vault', copy]);
    expect(i.code).toBe(0);
    expect(i.stdout).toMatch(/^imported \d+ documents \(\d+ versions\), \d+ batches/);
    const q = ['search', 'espresso extraction time', '--json'];
    const a = await runCli([...q, '--vault', v]);
    const b = await runCli([...q, '--vault', copy]);
    const ids = (r: typeof a) =>
      r
        .json<{ results: { section_id: string; score: number }[] }>()
        .results.map((h) => [h.section_id, h.score]);
    expect(ids(b)).toEqual(ids(a));
    expect(ids(a).length).toBeGreaterThan(0);
    // Into the same vault again: not empty, exit 8, nothing changed.
    const again = await runCli(['import', file, '--vault', copy]);
    expect(again.code).toBe(8);
    expect(again.stderr).toMatch(/is not empty .*nothing was changed/);
  }, 60_000);

  it('refuses to overwrite a file without --force (exit 8), and a missing vault is exit 3, creating nothing', async () => {
    const file = join(t.dir, 'exists.jsonl');
    writeFileSync(file, 'keep');
    expect((await runCli(['export', file, '--vault', v])).code).toBe(8);
    expect((await runCli(['export', file, '--vault', v, '--force'])).code).toBe(0);
    const missing = join(t.dir, 'missing.db');
    expect((await runCli(['export', join(t.dir, 'm.jsonl'), '--vault', missing])).code).toBe(3);
    expect(existsSync(missing)).toBe(false);
    expect(
      (await runCli(['import', join(t.dir, 'no-such.jsonl'), '--vault', join(t.dir, 'n.db')])).code,
    ).toBe(3);
  }, 60_000);

  it('a malformed export is exit 2 naming the line, and the vault stays empty', async () => {
    const file = join(t.dir, 'bad.jsonl');
    writeFileSync(file, '{"type":"quiver-export","version":1}\n');
    const target = join(t.dir, 'bad.db');
    const r = await runCli(['import', file, '--vault', target]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/line 1 is not a quiver export record at schema/);
    const docs = await runCli(['docs', '--json', '--vault', target]);
    expect(docs.json<unknown[]>()).toEqual([]);
  }, 60_000);

  it('the binary pipes `export -` into `import -`', async () => {
    const copy = join(t.dir, 'piped.db');
    const r = await pipe(['export', '-', '--vault', v], ['import', '-', '--vault', copy, '--json']);
    expect(r.codes).toEqual([0, 0]);
    const report = JSON.parse(r.stdout) as { documents: number; records: { batch: number } };
    expect(report.documents).toBeGreaterThan(0);
    expect(report.records.batch).toBe(1);
    expect(r.stderr).toMatch(/exported \d+ documents/);
  }, 120_000);
});
