// The quality-loop commands end to end: rate, ratings, learn, noise, ranker, transcripts.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from './helpers.js';

const tmp = tempDir('quiver-quality-cli-');
const vault = join(tmp.dir, 'vault.db');
const docs = join(tmp.dir, 'docs');
afterAll(() => tmp.cleanup());

const V = ['--vault', vault];

const TOPICS: Record<string, string[]> = {
  bees: ['hive', 'queen', 'brood', 'nectar', 'swarm', 'comb'],
  optics: ['lens', 'prism', 'focal', 'refraction', 'aperture', 'mirror'],
  metal: ['alloy', 'furnace', 'anneal', 'ingot', 'forge', 'quench'],
};
const FOOTER = [
  'We use cookies to improve your experience. Accept all cookies or manage preferences.',
  'Copyright 2024 Example Ltd. All rights reserved.',
  'Subscribe to our newsletter | Privacy policy | Terms of use | Contact us',
];

interface Mark {
  doc_id: string;
  title: string;
  source: string;
  noisy: boolean;
  reason: string | null;
}

beforeAll(async () => {
  mkdirSync(docs, { recursive: true });
  for (const [topic, terms] of Object.entries(TOPICS)) {
    for (let i = 0; i < 3; i++) {
      const body = terms
        .map(
          (t, j) =>
            `The ${t} matters when the ${terms[(j + i + 1) % terms.length]} is checked with care over a long season.`,
        )
        .join(' ');
      writeFileSync(join(docs, `${topic}-${i}.md`), `# ${topic} note ${i}\n\n${body}\n`);
    }
  }
  for (let i = 0; i < 2; i++)
    writeFileSync(join(docs, `footer-${i}.txt`), [...FOOTER.slice(i), ...FOOTER.slice(0, i)].join('\n'));
  const r = await runCli(['add', docs, ...V, '--json']);
  expect(r.code, r.stderr).toBe(0);
});

describe('quiver quality commands', () => {
  it('rate records a signal, ratings lists it; unknown signals and sections fail clearly', async () => {
    const s = await runCli(['search', 'queen brood', ...V, '--json', '--limit', '1']);
    const sectionId = s.json<{ results: { section_id: string; doc_id: string }[] }>().results[0]!.section_id;
    const r = await runCli(['rate', sectionId, 'up', '--question', 'queen brood', ...V]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`rated ${sectionId} up`);
    const bad = await runCli(['rate', sectionId, 'meh', ...V]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/signal must be one of bad, cited, down, good, read, shown, up/);
    const missing = await runCli(['rate', 'nope#1', 'up', ...V]);
    expect(missing.code).toBe(3);
    const list = await runCli(['ratings', ...V, '--json']);
    const rows = list.json<{ section_id: string; signal: string; question: string }[]>();
    expect(rows[0]).toMatchObject({ section_id: sectionId, signal: 'up', question: 'queen brood' });
    const table = await runCli(['ratings', ...V, '--limit', '1']);
    expect(table.stdout).toMatch(/signal[\s\S]*up/);
    expect((await runCli(['ratings', ...V, '--doc', 'nothing'])).stdout).toBe('no feedback yet\n');
    expect((await runCli(['ratings', ...V, '--limit', '0'])).code).toBe(2);
  });

  it('learn on makes ask log feedback; transcripts lists and shows answers', async () => {
    expect((await runCli(['learn', ...V])).stdout).toBe('learning is off\n');
    expect((await runCli(['learn', 'maybe', ...V])).code).toBe(2);
    expect((await runCli(['learn', 'on', ...V, '--json'])).json()).toEqual({ learning: true });
    const before = (await runCli(['ratings', ...V, '--json', '--limit', '1000'])).json<unknown[]>().length;
    const ask = await runCli(['ask', 'What does the queen do in the hive?', ...V, '--json']);
    expect(ask.code, ask.stderr).toBe(0);
    const answer = ask.json<{
      transcript_id: string;
      cited: unknown[];
      context: unknown[];
      claims: unknown[];
      grounding: { judge: { id: string }; faithfulness: { value: number | null }; claims: unknown[] };
    }>();
    expect(answer.transcript_id).toMatch(/^[0-9a-f]{16}$/);
    // The same grounding measurements the server's ask sends (wire/answers.ts groundedAskJson).
    expect(answer.grounding.judge.id).toContain('lexical');
    expect(answer.grounding.claims.length).toBe(answer.claims.length);
    expect(answer.grounding.faithfulness.value).toBeGreaterThan(0);
    const after = (await runCli(['ratings', ...V, '--json', '--limit', '1000'])).json<unknown[]>().length;
    expect(answer.cited.length).toBeGreaterThan(0);
    expect(after - before).toBe(answer.context.length);

    const list = await runCli(['transcripts', ...V]);
    expect(list.stdout).toContain(answer.transcript_id);
    expect(list.stdout).toContain('What does the queen do in the hive?');
    const one = await runCli(['transcripts', answer.transcript_id, ...V, '--json']);
    const t = one.json<{
      id: string;
      question: string;
      config_fingerprint: string;
      prompt: { system: string; user: string };
    }>();
    expect(t.id).toBe(answer.transcript_id);
    expect(t.config_fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(t.prompt.user).toContain('queen');
    const text = await runCli(['transcripts', answer.transcript_id, ...V]);
    expect(text.stdout).toMatch(/Question: What does the queen do in the hive\?[\s\S]*--- system ---/);
    expect((await runCli(['transcripts', 'nope', ...V])).code).toBe(3);
    await runCli(['learn', 'off', ...V]);
  });

  it('noise suggest shows scores with feature values; mark, keep, accept and marks', async () => {
    const sugg = await runCli(['noise', 'suggest', '--min-score', '0.3', ...V]);
    expect(sugg.code, sugg.stderr).toBe(0);
    const header = sugg.stdout.split('\n')[0]!;
    for (const col of ['score', 'title', 'hub', 'dup_out', 'boiler_lexicon']) expect(header).toContain(col);
    expect(sugg.stdout).toContain('footer-0');
    const json = (await runCli(['noise', 'suggest', '--min-score', '0.3', '--json', ...V])).json<
      { source: string; score: number; features: Record<string, number> }[]
    >();
    expect(json.map((r) => r.source.replace(/^.*\//, '')).sort()).toEqual(['footer-0.txt', 'footer-1.txt']);
    expect(Object.keys(json[0]!.features)).toContain('hub');

    const amb = await runCli(['noise', 'mark', 'footer', ...V]);
    expect(amb.code).toBe(2);
    expect(amb.stderr).toMatch(/matches 2 documents/);
    expect((await runCli(['noise', 'mark', 'zzz-none', ...V])).code).toBe(3);
    const mark = await runCli(['noise', 'mark', 'footer-0', '--reason', 'cookie banner', ...V]);
    expect(mark.code, mark.stderr).toBe(0);
    expect(mark.stdout).toMatch(/marked as noise: [0-9a-f]{16} {2}We use cookies.* {2}\(cookie banner\)$/m);
    const keep = await runCli(['noise', 'keep', 'bees note 1', ...V]);
    expect(keep.stdout).toMatch(/^kept:/);
    const accepted = (await runCli(['noise', 'accept', '--min-score', '0.3', '--json', ...V])).json<Mark[]>();
    expect(accepted.map((m) => m.source.replace(/^.*\//, ''))).toEqual(['footer-1.txt']);
    const marks = (await runCli(['noise', 'marks', '--json', ...V])).json<Mark[]>();
    expect(marks.map((m) => [m.source.replace(/^.*\//, ''), m.noisy, m.reason]).sort()).toEqual([
      ['bees-1.md', false, null],
      ['footer-0.txt', true, 'cookie banner'],
      ['footer-1.txt', true, 'suggested'],
    ]);
    expect((await runCli(['noise', 'marks', ...V])).stdout).toMatch(/judged[\s\S]*noise[\s\S]*keep/);
    // Marked documents leave search at once.
    const s = await runCli(['search', 'cookies newsletter copyright', ...V, '--json']);
    expect(
      s
        .json<{ results: { source: string }[] }>()
        .results.map((h) => h.source)
        .join(' '),
    ).not.toMatch(/footer/);
    // A mark can be taken back; taking back what has no mark is NOT_FOUND (exit 3).
    const un = await runCli(['noise', 'unmark', 'bees note 1', ...V, '--json']);
    expect(un.code, un.stderr).toBe(0);
    expect(un.json<Mark>()).toMatchObject({ noisy: false });
    expect((await runCli(['noise', 'marks', '--json', ...V])).json<Mark[]>()).toHaveLength(2);
    expect((await runCli(['noise', 'unmark', 'bees note 1', ...V])).code).toBe(3);
    expect((await runCli(['noise', 'keep', 'bees note 1', ...V])).code).toBe(0);
    expect((await runCli(['noise', 'frobnicate', ...V])).code).toBe(2);
  });

  it('noise fit/use and ranker fit/use/show', async () => {
    expect((await runCli(['noise', 'use', 'on', ...V])).code).toBe(3);
    const fit = await runCli(['noise', 'fit', '--save', ...V]);
    expect(fit.code, fit.stderr).toBe(0);
    expect(fit.stdout).toMatch(/noise blend fitted on \d+ documents; saved/);
    expect((await runCli(['noise', 'use', 'on', ...V])).stdout).toContain('fitted blend');

    expect((await runCli(['ranker', 'use', 'on', ...V])).code).toBe(3);
    await runCli(['learn', 'on', ...V]);
    for (const q of ['lens prism focal', 'alloy furnace anneal', 'nectar swarm comb']) {
      expect((await runCli(['ask', q, ...V])).code).toBe(0);
    }
    const rf = await runCli(['ranker', 'fit', '--save', ...V, '--json']);
    expect(rf.code, rf.stderr).toBe(0);
    expect(rf.json<{ fitted: boolean; saved: boolean; weights: [string, number][] }>()).toMatchObject({
      fitted: true,
      saved: true,
    });
    expect((await runCli(['ranker', 'use', 'on', ...V])).stdout).toContain('on');
    const ctx = await runCli(['context', 'lens prism', ...V, '--json']);
    expect(ctx.code, ctx.stderr).toBe(0);
    const show = await runCli(['ranker', 'show', ...V]);
    expect(show.stdout).toMatch(/learning: on[\s\S]*ranker: on, fitted \d{4}-[\s\S]*noise blend: fitted/);
    const sj = (await runCli(['ranker', 'show', ...V, '--json'])).json<{
      ranker: { on: boolean; weights: unknown[] };
    }>();
    expect(sj.ranker.on).toBe(true);
    expect(sj.ranker.weights).toHaveLength(21);
    expect((await runCli(['ranker', 'nope', ...V])).code).toBe(2);
  });

  it('lists the new commands in help', async () => {
    const h = await runCli(['--help']);
    for (const c of ['rate', 'ratings', 'learn', 'noise', 'ranker', 'transcripts'])
      expect(h.stdout).toMatch(new RegExp(`\\n  ${c} `));
  });
});
