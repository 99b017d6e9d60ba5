// End to end through the CLI with a real SQLite file and the bundled demo corpus.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from './helpers.js';

const tmp = tempDir();
const vault = join(tmp.dir, 'vault.db');
afterAll(() => tmp.cleanup());

interface Hit {
  doc_id: string;
  source: string;
  section_id: string;
  score: number;
  breadcrumb: string;
  snippets: string[];
  retrieval_rank: number;
  selection_rank: number;
  step_score: number | null;
}

describe('quiver CLI on the demo corpus', () => {
  beforeAll(async () => {
    const r = await runCli(['add', 'demo/corpus', '--vault', vault, '--json']);
    expect(r.code, r.stderr).toBe(0);
  });

  it('reports every file as added, then as unchanged on a second add', async () => {
    const again = await runCli(['add', 'demo/corpus', '--vault', vault, '--json']);
    expect(again.code).toBe(0);
    const report = again.json<{
      added: number;
      unchanged: number;
      failed: number;
      items: { status: string }[];
    }>();
    expect(report.added).toBe(0);
    expect(report.failed).toBe(0);
    expect(report.unchanged).toBeGreaterThanOrEqual(25);
    expect(report.items.every((i) => i.status === 'unchanged')).toBe(true);
  });

  it('finds the espresso section for an espresso question', async () => {
    const r = await runCli([
      'search',
      'How long should an espresso shot take?',
      '--vault',
      vault,
      '--json',
      '--limit',
      '3',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const { results } = r.json<{ results: Hit[] }>();
    expect(results.length).toBeGreaterThan(0);
    expect(results[0]!.source).toMatch(/coffee/);
    expect(results.map((h) => h.selection_rank)).toEqual(results.map((_, i) => i));
  });

  it('search --queries - reads the queries from standard input', async () => {
    const r = await runCli(['search', '--queries', '-', '--limit', '2', '--json', '--vault', vault], {
      stdin: '{"id": "s", "text": "sourdough starter temperature"}\n',
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.trim()).id).toBe('s');
  });

  it('search --queries prints one JSON line per query', async () => {
    const file = join(tmp.dir, 'q.jsonl');
    writeFileSync(
      file,
      [
        '{"id": "a", "text": "sourdough starter temperature"}',
        '{"id": 7, "text": "bicycle chain wear"}',
      ].join('\n'),
    );
    const r = await runCli(['search', '--queries', file, '--limit', '4', '--json', '--vault', vault]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: unknown; results: Hit[] });
    expect(lines.map((l) => l.id)).toEqual(['a', 7]);
    for (const l of lines) {
      expect(l.results.length).toBeGreaterThan(0);
      expect(l.results.length).toBeLessThanOrEqual(4);
      expect(Object.keys(l.results[0]!)).toEqual(
        expect.arrayContaining(['doc_id', 'source', 'section_id', 'score']),
      );
    }
  });

  it('lexical and vector legs can be run alone', async () => {
    for (const legs of ['lexical', 'vector']) {
      const r = await runCli([
        'search',
        'honey bee swarm',
        '--legs',
        legs,
        '--json',
        '--vault',
        vault,
        '--select',
        'topk',
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.json<{ results: Hit[] }>().results.length).toBeGreaterThan(0);
    }
  });

  it('context numbers sections and read prints one', async () => {
    const r = await runCli([
      'context',
      'What causes global warming besides greenhouse gases?',
      '--json',
      '--vault',
      vault,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const { sections } = r.json<{ sections: (Hit & { n: number; text: string })[] }>();
    expect(sections.map((s) => s.n)).toEqual(sections.map((_, i) => i + 1));
    const texts = sections.map((s) => s.text.replace(/\s+/g, ' ').trim());
    expect(new Set(texts).size).toBe(texts.length);
    const read = await runCli(['read', sections[0]!.section_id, '--vault', vault]);
    expect(read.code).toBe(0);
    expect(read.stdout).toContain(sections[0]!.breadcrumb);
  });

  it('docs, batches and doctor work; doctor shows the embedder and where config came from', async () => {
    const docs = await runCli(['docs', '--json', '--vault', vault]);
    expect(docs.json<unknown[]>().length).toBeGreaterThanOrEqual(25);
    // The second add changed nothing, so it left no batch (issue 13): undo finds the real ingest.
    const batches = await runCli(['batches', '--json', '--vault', vault]);
    expect(batches.json<{ status: string }[]>().length).toBe(1);
    const doctor = await runCli(['doctor', '--json', '--vault', vault], { env: { QUIVER_LIMIT: '7' } });
    const d = doctor.json<{
      embedder: { configured: string; ok: boolean };
      config: Record<string, { value: unknown; from: string }>;
    }>();
    expect(d.embedder.ok).toBe(true);
    expect(d.config['search.limit']).toEqual({ value: 7, from: 'env', env: 'QUIVER_LIMIT' });
    expect(d.config.vault?.from).toBe('flag');
  });

  it('bad input gets a clear message, a usage exit code and changes nothing', async () => {
    const before = await runCli(['docs', '--json', '--vault', vault]);
    const r = await runCli(['search', 'x', '--limit', '0', '--vault', vault]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/quiver search: --limit must be an integer ≥ 1, got "0"/);
    expect((await runCli(['search', '--vault', vault])).code).toBe(2);
    expect((await runCli(['nonsense'])).code).toBe(2);
    expect((await runCli(['search', 'x', '--bogus-flag', '--vault', vault])).code).toBe(2);
    const env = await runCli(['search', 'x', '--vault', vault], { env: { QUIVER_SELECT: 'best' } });
    expect(env.code).toBe(2);
    expect(env.stderr).toMatch(/select\.method/);
    expect((await runCli(['docs', '--json', '--vault', vault])).stdout).toBe(before.stdout);
  });
});

describe('quiver add: bad files, stdin and undo', () => {
  it('reports each bad file with its reason, ingests the good ones, exits 4; undo removes the batch', async () => {
    const t = tempDir();
    const v = join(t.dir, 'v.db');
    const docs = join(t.dir, 'docs');
    mkdirSync(join(docs, 'node_modules', 'x'), { recursive: true });
    mkdirSync(join(docs, '.hidden'), { recursive: true });
    writeFileSync(join(docs, 'good.md'), '# Good\n\nPlants need light and water to grow.\n');
    writeFileSync(join(docs, 'empty.txt'), '   \n');
    writeFileSync(join(docs, 'binary.txt'), Buffer.from([0, 1, 2, 3, 0, 0, 255, 0]));
    // Latin-1 bytes ("café ok") decode as windows-1252; bytes that read as no text at all do not.
    writeFileSync(join(docs, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x6f, 0x6b]));
    writeFileSync(join(docs, 'garbled.txt'), Buffer.from([0x68, 0x69, 0x81]));
    writeFileSync(join(docs, 'broken.pdf'), '%PDF-1.4\nthis is not really a pdf\n');
    writeFileSync(join(docs, 'script.js'), 'console.log("not prose");\n');
    writeFileSync(join(docs, 'v.db'), Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(100)]));
    writeFileSync(join(docs, 'node_modules', 'x', 'dep.md'), '# Dependency\n\nnever indexed\n');
    writeFileSync(join(docs, '.hidden', 'secret.md'), '# Hidden\n\nnever indexed\n');
    const r = await runCli(['add', docs, '--vault', v, '--json']);
    expect(r.code).toBe(4);
    const report = r.json<{
      added: number;
      failed: number;
      items: { source: string; status: string; error?: { code: string } }[];
      skipped_files: { source: string; reason: string }[];
    }>();
    expect(report.added).toBe(2);
    const cafe = await runCli(['search', 'café', '--vault', v, '--json']);
    expect(cafe.json<{ results: Hit[] }>().results[0]?.source).toMatch(/latin1\.txt$/);
    // A folder walk passes over binaries (by content), unknown types and SQLite files, and counts them.
    expect(
      Object.fromEntries(report.skipped_files.map((f) => [f.source.split('/').pop(), f.reason])),
    ).toEqual({ 'binary.txt': 'binary', 'script.js': 'unknown-type', 'v.db': 'unknown-type' });
    const failed = Object.fromEntries(
      report.items
        .filter((i) => i.status === 'failed')
        .map((i) => [i.source.split('/').pop(), i.error?.code]),
    );
    expect(failed).toEqual({
      'empty.txt': 'EMPTY_FILE',
      'garbled.txt': 'INVALID_UTF8',
      'broken.pdf': 'CORRUPT_FILE',
    });
    expect(report.items.some((i) => i.source.includes('node_modules') || i.source.includes('.hidden'))).toBe(
      false,
    );

    // A vault inside the folder it ingests never reads its own file, -wal or -shm.
    const own = await runCli(['add', docs, '--vault', join(docs, 'own.db'), '--json']);
    const ownSkips = own
      .json<{ skipped_files: { source: string; reason: string }[] }>()
      .skipped_files.filter((f) => f.source.includes('own.db'));
    expect(ownSkips.length).toBeGreaterThan(0);
    expect(ownSkips.every((f) => f.reason === 'vault-file')).toBe(true);

    const stdin = await runCli(
      ['add', '-', '--title', 'A note', '--source', 'note:1', '--vault', v, '--json'],
      { stdin: 'Ferns grow in shade and need humid air.' },
    );
    expect(stdin.code, stdin.stderr).toBe(0);
    expect(
      (await runCli(['search', 'ferns shade', '--vault', v, '--json'])).json<{ results: Hit[] }>().results[0]
        ?.source,
    ).toBe('note:1');
    const undo = await runCli(['undo', '--vault', v, '--json']);
    expect(undo.json<{ removed: number }>().removed).toBe(1);
    expect(
      (await runCli(['search', 'ferns shade', '--legs', 'lexical', '--vault', v, '--json'])).json<{
        results: Hit[];
      }>().results,
    ).toEqual([]);
    t.cleanup();
  });

  it('updating a file keeps its id and undo restores the previous version', async () => {
    const t = tempDir();
    const v = join(t.dir, 'v.db');
    const f = join(t.dir, 'plan.md');
    writeFileSync(f, '# Plan\n\nWe will plant tomatoes in May.\n');
    const a = (await runCli(['add', f, '--vault', v, '--json'])).json<{
      items: { docId: string; status: string }[];
    }>();
    writeFileSync(f, '# Plan\n\nWe will plant peppers in June.\n');
    const b = (await runCli(['add', f, '--vault', v, '--json'])).json<{
      items: { docId: string; status: string }[];
    }>();
    expect(b.items[0]).toMatchObject({ status: 'updated', docId: a.items[0]!.docId });
    expect(
      (await runCli(['search', 'tomatoes', '--legs', 'lexical', '--vault', v, '--json'])).json<{
        results: Hit[];
      }>().results,
    ).toEqual([]);
    await runCli(['undo', '--vault', v]);
    const hits = (await runCli(['search', 'tomatoes', '--legs', 'lexical', '--vault', v, '--json'])).json<{
      results: Hit[];
    }>().results;
    expect(hits.map((h) => h.doc_id)).toEqual([a.items[0]!.docId]);
    expect(
      (await runCli(['search', 'peppers', '--legs', 'lexical', '--vault', v, '--json'])).json<{
        results: Hit[];
      }>().results,
    ).toEqual([]);
    t.cleanup();
  });
});

describe('quiver add above the ANN threshold', () => {
  it('builds the vector index during add, so the first search does not', async () => {
    const path = join(tmp.dir, 'ann.db');
    const env = { ...process.env, QUIVER_ANN_THRESHOLD: '50', QUIVER_ANN_EF_CONSTRUCTION: '32' };
    const add = await runCli(['add', 'demo/corpus', '--vault', path, '--json'], { env });
    expect(add.code, add.stderr).toBe(0);
    const doctor = await runCli(['doctor', '--vault', path, '--json'], { env });
    expect(doctor.code, doctor.stderr).toBe(0);
    const ann = doctor.json<{ ann: { mode: string; index: string; file: string | null } }>().ann;
    expect(ann.mode).toBe('hnsw');
    expect(ann.index).toBe('current');
    expect(existsSync(ann.file!)).toBe(true);
  });
});

describe('command-line conventions (issue 14)', () => {
  const t = tempDir();
  const v = join(t.dir, 'conv.db');
  afterAll(() => t.cleanup());

  it('global options go before or after the command alike', async () => {
    const before = await runCli(['--vault', v, '--json', 'add', '--text', 'Kale grows in cold weather.']);
    expect(before.code, before.stderr).toBe(0);
    const after = await runCli(['search', 'kale', '--vault', v, '--json']);
    const front = await runCli(['--json', '--vault=' + v, 'search', 'kale']);
    expect(front.code, front.stderr).toBe(0);
    const results = (r: typeof after) => r.json<{ results: Hit[] }>().results.map((h) => h.section_id);
    expect(results(front)).toEqual(results(after));
    expect(results(front).length).toBe(1);
  });

  it('a negative number is a value, not an unknown flag', async () => {
    const r = await runCli(['noise', 'suggest', '--min-score', '-1000', '--vault', v, '--json']);
    expect(r.stderr).not.toMatch(/ambiguous/);
    expect(r.code, r.stderr).toBe(0);
  });

  it("quiver help <command> prints that command's options; quiver --help exits 0", async () => {
    const h = await runCli(['help', 'add']);
    expect(h.code).toBe(0);
    expect(h.stdout).toMatch(/usage: quiver add/);
    expect(h.stdout).toMatch(/--sync/);
    expect((await runCli(['--help'])).code).toBe(0);
    expect((await runCli([])).code).toBe(2);
  });

  it('a subcommand refuses options of another, naming the option, the subcommand and the owner', async () => {
    const r = await runCli(['noise', 'marks', '--save', '--vault', v]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^quiver noise marks: unknown option --save \(it belongs to quiver noise fit\)/);
    const k = await runCli(['noise', 'marks', '--k', '5', '--vault', v]);
    expect(k.stderr).toMatch(
      /unknown option --k \(it belongs to quiver noise suggest, quiver noise accept\)/,
    );
    const typo = await runCli(['search', 'kale', '--limt', '3', '--vault', v]);
    expect(typo.stderr).toMatch(/quiver search: unknown option --limt \(did you mean --limit\?\)/);
    expect((await runCli(['noise', 'bogus', '--vault', v])).code).toBe(2);
  });

  it('every bad value gets the same wording, whichever flag and command', async () => {
    const limit = await runCli(['search', 'kale', '--limit', 'abc', '--vault', v]);
    const sigma = await runCli(['search', 'kale', '--sigma', 'abc', '--vault', v]);
    const k = await runCli(['noise', 'suggest', '--k', 'abc', '--vault', v]);
    expect(limit.stderr).toMatch(/^quiver search: --limit must be an integer ≥ 1, got "abc"/);
    expect(sigma.stderr).toMatch(/^quiver search: --sigma must be a number ≥ 0, got "abc"/);
    expect(k.stderr).toMatch(/^quiver noise suggest: --k must be an integer ≥ 0, got "abc"/);
    const select = await runCli(['search', 'kale', '--select', 'best', '--vault', v]);
    expect(select.stderr).toMatch(/^quiver search: --select must be one of topk, mmr, dartboard, got "best"/);
    for (const r of [limit, sigma, k, select]) expect(r.code).toBe(2);
  });

  it('extra positional arguments are an error, not silently ignored', async () => {
    const r = await runCli(['read', 'a#1', 'b#2', '--vault', v]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/quiver read: unexpected argument "b#2"/);
    expect((await runCli(['docs', 'extra', '--vault', v])).code).toBe(2);
    expect((await runCli(['noise', 'marks', 'x', '--vault', v])).code).toBe(2);
  });

  it('search --ids prints one section id per line; pages and retrieval ranks are shown', async () => {
    const r = await runCli(['search', 'kale', '--ids', '--vault', v]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toEqual([expect.stringMatching(/^[0-9a-f]+#\d+$/)]);
  });

  it('a missing input path is exit 3 and adds nothing', async () => {
    const before = await runCli(['batches', '--json', '--vault', v]);
    const r = await runCli(['add', join(t.dir, 'nothere.md'), '--text', 'x y z', '--vault', v]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/nothere\.md does not exist; nothing was added/);
    expect((await runCli(['batches', '--json', '--vault', v])).stdout).toBe(before.stdout);
  });

  it('a backup or a report into a missing folder is exit 3, before any work', async () => {
    const b = await runCli(['backup', join(t.dir, 'no', 'such', 'copy.db'), '--vault', v]);
    expect(b.code).toBe(3);
    expect(b.stderr).toMatch(/folder .* does not exist/);
    const q = join(t.dir, 'q.jsonl');
    writeFileSync(q, JSON.stringify({ id: 'a', question: 'kale?' }) + '\n');
    const e = await runCli(['eval', q, '--vault', v, '--html', join(t.dir, 'none', 'r.html')]);
    expect(e.code).toBe(3);
  });

  it('ranker fit and noise fit with nothing to fit exit 3 and say what is needed', async () => {
    const r = await runCli(['ranker', 'fit', '--save', '--vault', v]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/ranker not fitted: .*positive and a negative/);
    const n = await runCli(['noise', 'fit', '--vault', v]);
    expect(n.code).toBe(3);
    expect(n.stderr).toMatch(/noise blend not fitted/);
    expect((await runCli(['ranker', 'use', 'on', '--vault', v])).code).toBe(3);
  });

  it('doctor names the environment variable of every key and the SQLite version readers need', async () => {
    const r = await runCli(['doctor', '--vault', v], { env: { QUIVER_SIGMA: '0.3' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/select\.sigma\s+0\.3\s+env\s+QUIVER_SIGMA \(set\)/);
    expect(r.stdout).toMatch(/QUIVER_VAULT/);
    expect(r.stdout).toMatch(/SQLite 3\.\d+\.\d+, other programs reading it need ≥ 3\.43/);
    const j = await runCli(['doctor', '--vault', v, '--json']);
    expect(j.json<{ config: Record<string, { env: string }> }>().config['select.sigma']!.env).toBe(
      'QUIVER_SIGMA',
    );
  });
});

describe('terminal output (issue 14)', () => {
  const t = tempDir();
  const v = join(t.dir, 'md.db');
  afterAll(() => t.cleanup());
  beforeAll(async () => {
    const md = join(t.dir, 'bread.md');
    writeFileSync(
      md,
      '# Bread\n\n## Dough\n\nThe **yield** is set by the [starter](http://example.com/s) and `hydration`.\n\n- **Yield:** two loaves\n',
    );
    expect((await runCli(['add', md, '--vault', v])).code).toBe(0);
  });

  it('prints snippets as plain text; --json keeps the Markdown with a plain snippet beside it', async () => {
    const r = await runCli(['search', 'yield starter', '--vault', v]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/The yield is set by the starter and hydration/);
    expect(r.stdout).not.toMatch(/\*\*|\]\(|`/);
    const j = await runCli(['search', 'yield starter', '--vault', v, '--json']);
    const hit = j.json<{ results: (Hit & { snippet: string })[] }>().results[0]!;
    expect(hit.snippets[0]).toMatch(/\*\*yield\*\*/);
    expect(hit.snippet).toMatch(/The yield is set by the starter/);
    const text = await runCli(['sections', 'yield starter', '--vault', v, '--json']);
    expect(text.json<{ results: { text: string }[] }>().results[0]!.text).toMatch(/\*\*Yield:\*\*/);
  });

  it('no ANSI codes when NO_COLOR is set or stdout is not a terminal; styles only on a terminal', async () => {
    const ansi = new RegExp(`${String.fromCharCode(27)}\\[`);
    expect((await runCli(['search', 'yield', '--vault', v])).stdout).not.toMatch(ansi);
    const tty = async (env: NodeJS.ProcessEnv) => {
      const { main } = await import('../src/cli/main.js');
      let out = '';
      await main(['search', 'yield', '--vault', v], {
        stdout: { write: (s: string) => (out += s), isTTY: true },
        stderr: { write: () => true },
        readStdin: async () => '',
        env,
        cwd: process.cwd(),
      });
      return out;
    };
    expect(await tty({})).toMatch(ansi);
    expect(await tty({ NO_COLOR: '1' })).not.toMatch(ansi);
    expect(await tty({ TERM: 'dumb' })).not.toMatch(ansi);
  });
});
