// `quiver search --queries` on worker threads: the same bytes as one thread, in input order.
import { join } from 'node:path';
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchJobs } from '../src/cli/commands/search.js';
import { runCli, tempDir } from './helpers.js';

const tmp = tempDir();
const vault = join(tmp.dir, 'vault.db');
const queries = join(tmp.dir, 'q.jsonl');
afterAll(() => tmp.cleanup());

beforeAll(async () => {
  const r = await runCli(['add', 'demo/corpus', '--vault', vault, '--quiet']);
  expect(r.code, r.stderr).toBe(0);
  // Every demo query and question, three times over (ids kept apart), so workers interleave.
  const lines = ['demo/queries.jsonl', 'demo/questions.jsonl'].flatMap((f) =>
    readFileSync(f, 'utf8').trim().split('\n'),
  );
  const texts = lines.map((l) => {
    const o = JSON.parse(l) as Record<string, unknown>;
    return String(o.text ?? o.query ?? o.question);
  });
  writeFileSync(
    queries,
    [0, 1, 2]
      .flatMap((round) => texts.map((text, i) => JSON.stringify({ id: `${round}-${i}`, text })))
      .join('\n'),
  );
});

describe('batch search on worker threads', () => {
  it('writes byte for byte what one thread writes, in input order', async () => {
    const args = ['search', '--queries', queries, '--limit', '20', '--json', '--vault', vault];
    const one = await runCli([...args, '--jobs', '1']);
    const three = await runCli([...args, '--jobs', '3']);
    expect(one.code, one.stderr).toBe(0);
    expect(three.code, three.stderr).toBe(0);
    const ids = one.stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { id: string }).id);
    expect(ids.length).toBeGreaterThan(30);
    expect(ids[0]).toBe('0-0');
    expect(three.stdout).toBe(one.stdout);
  });

  it('a missing vault is refused once, before any worker starts', async () => {
    const r = await runCli([
      'search',
      '--queries',
      queries,
      '--json',
      '--jobs',
      '2',
      '--vault',
      join(tmp.dir, 'none.db'),
    ]);
    expect(r.code).not.toBe(0);
    expect(r.stdout).not.toContain('"results"');
  });
});

describe('batchJobs', () => {
  it('takes --jobs as given', () => {
    expect(batchJobs(3, 5)).toBe(3);
    expect(batchJobs(1, 10_000)).toBe(1);
  });
  it('stays in one thread for a small batch', () => {
    expect(batchJobs(undefined, 199)).toBe(1);
    expect(batchJobs(undefined, 0)).toBe(1);
  });
  it('uses the cores, up to four, for a large batch', () => {
    const n = batchJobs(undefined, 200);
    expect(n).toBeGreaterThanOrEqual(1);
    expect(n).toBeLessThanOrEqual(4);
  });
});
