// A long batch search through the real command, in several processes and in one: the same lines,
// in the same order.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from './helpers.js';

const run = promisify(execFile);
const tmp = tempDir('quiver-batch-');
const vault = join(tmp.dir, 'v.db');
const queries = join(tmp.dir, 'q.jsonl');
afterAll(() => tmp.cleanup());

const WORDS = [
  'espresso',
  'grind',
  'sourdough',
  'starter',
  'chain',
  'wheel',
  'budget',
  'hive',
  'methane',
  'brake',
];

beforeAll(async () => {
  expect((await runCli(['add', 'demo/corpus', '--vault', vault, '--quiet'])).code).toBe(0);
  // 230 queries, some without an id (they are numbered by line, in every process alike).
  const lines = Array.from({ length: 230 }, (_, i) => {
    const text = `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]}`;
    return JSON.stringify(i % 3 === 0 ? { text } : { id: `q${i}`, text });
  });
  writeFileSync(queries, `${lines.join('\n')}\n`);
}, 60_000);

describe('search --queries in several processes', () => {
  it('writes exactly what one process writes', async () => {
    const args = [
      'bin/quiver.js',
      'search',
      '--queries',
      queries,
      '--limit',
      '5',
      '--json',
      '--vault',
      vault,
    ];
    const one = await run(process.execPath, [...args, '--jobs', '1'], { maxBuffer: 64 << 20 });
    const three = await run(process.execPath, [...args, '--jobs', '3'], { maxBuffer: 64 << 20 });
    const lines = one.stdout.trim().split('\n');
    expect(lines).toHaveLength(230);
    expect(JSON.parse(lines[0]!).id).toBe(1);
    expect(JSON.parse(lines[1]!).id).toBe('q1');
    expect(three.stdout).toBe(one.stdout);
  }, 120_000);

  it('reports a bad --jobs before searching', async () => {
    const r = await runCli(['search', '--queries', queries, '--jobs', '0', '--json', '--vault', vault]);
    expect(r.code).not.toBe(0);
    expect(r.stdout + r.stderr).toContain('--jobs');
  });
});
