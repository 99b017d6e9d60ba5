// End to end: the eval runner and `quiver eval` on a real SQLite vault in a temp folder, an authored
// question set, a tiny generated BEIR folder, compared configs, and the JSON/HTML outputs.
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEvalResult, questionMetric } from '../src/evaluate/eval-result.js';
import type { EvalResult } from '../src/evaluate/eval-result.js';
import { loadEvalInput } from '../src/evaluate/eval-input.js';
import { parseVariants } from '../src/evaluate/eval-config.js';
import { readQuestionSet } from '../src/evaluate/question-set.js';
import { runEval } from '../src/evaluate/runner.js';
import { Vault } from '../src/index.js';
import { runCli, tempDir } from './helpers.js';

const DOCS: Record<string, string> = {
  'kitchen.md':
    '# Kitchen\n\n## Eggs\n\nBoil the eggs for ten minutes. Add a pinch of salt to the water.\n\n## Bread\n\nBake the bread at 220 degrees for forty minutes.\n',
  'garden.md':
    '# Garden\n\n## Tomatoes\n\nWater the tomatoes every morning. Tomatoes need full sun.\n\n## Roses\n\nPrune the roses in late winter, before new growth starts.\n',
  'museum.md': '# Museum\n\nThe museum opens at 10:00 on Tuesdays. Admission costs 4 credits.\n',
};

const QUESTIONS = [
  {
    id: 'eggs',
    question: 'How long should I boil eggs?',
    relevant: { 'kitchen.md': 1 },
    required_facts: ['ten minutes'],
    reference: 'ten minutes',
  },
  { id: 'museum', question: 'When does the museum open?', relevant: { 'museum.md': 2 }, reference: '10:00' },
  {
    id: 'roses',
    question: 'When should roses be pruned?',
    sources: [{ id: 'garden.md', facts: ['f-winter'] }],
    required_facts: [{ id: 'f-winter', phrasings: ['late winter'] }],
  },
  { id: 'mars', question: 'What is the capital of Mars?' },
];

let tmp: ReturnType<typeof tempDir>;
let vaultPath: string;
let qfile: string;

beforeAll(async () => {
  tmp = tempDir('quiver-eval-');
  for (const [name, text] of Object.entries(DOCS)) writeFileSync(join(tmp.dir, name), text);
  vaultPath = join(tmp.dir, 'vault.db');
  const vault = await Vault.open({ overrides: { vault: vaultPath } });
  await vault.add(Object.keys(DOCS).map((n) => join(tmp.dir, n)));
  await vault.close();
  qfile = join(tmp.dir, 'questions.jsonl');
  writeFileSync(qfile, QUESTIONS.map((q) => JSON.stringify(q)).join('\n') + '\n');
});

afterAll(() => tmp.cleanup());

const metric = (r: EvalResult, config: string, id: string, m: string) => {
  const q = r.configs.find((c) => c.name === config)?.questions.find((x) => x.id === id);
  return q === undefined ? undefined : questionMetric(q, m);
};

describe('runEval on an authored question set', () => {
  let result: EvalResult;
  let transcripts: { before: number; after: number };
  beforeAll(async () => {
    const vault = await Vault.open({ overrides: { vault: vaultPath } });
    try {
      const before = (await vault.store.listTranscripts({ limit: 1000 })).length;
      result = await runEval({
        vault,
        questions: readQuestionSet(qfile),
        configs: parseVariants('select=topk,mmr'),
        dataset: 'questions.jsonl',
      });
      transcripts = { before, after: (await vault.store.listTranscripts({ limit: 1000 })).length };
    } finally {
      await vault.close();
    }
  });

  it('leaves the evaluated vault as it was: no transcripts from its answers', () => {
    expect(metric(result, 'select=topk', 'eggs', 'faithfulness')?.value).toBe(1);
    expect(transcripts.after).toBe(transcripts.before);
  });

  it('scores retrieval against document-source keys', () => {
    // The eggs question's best section is in kitchen.md, the only relevant document.
    expect(metric(result, 'select=topk', 'eggs', 'ndcg@10')?.value).toBe(1);
    expect(metric(result, 'select=topk', 'eggs', 'recall@10')).toEqual({ num: 1, den: 1, value: 1 });
    // kitchen.md has sections Kitchen, Eggs and Bread; they count once, so 1 relevant of 10.
    expect(metric(result, 'select=topk', 'eggs', 'precision@10')).toEqual({ num: 1, den: 10, value: 0.1 });
    // roses: its authored source garden.md is its relevance label.
    expect(metric(result, 'select=topk', 'roses', 'mrr@10')?.value).toBe(1);
    expect(metric(result, 'select=topk', 'mars', 'ndcg@10')).toEqual({
      num: 0,
      den: 0,
      value: null,
      undefinedReason: 'no relevance labels',
    });
    expect(metric(result, 'select=topk', 'eggs', 'recall@100')).toBeUndefined();
  });

  it('answers (the set has facts) and measures grounding with the lexical proxy', () => {
    expect(metric(result, 'select=topk', 'eggs', 'completeness')).toEqual({ num: 1, den: 1, value: 1 });
    expect(metric(result, 'select=topk', 'eggs', 'answer_recall')).toEqual({ num: 1, den: 1, value: 1 });
    expect(metric(result, 'select=topk', 'museum', 'answer_recall')?.value).toBe(1);
    expect(metric(result, 'select=topk', 'eggs', 'faithfulness')?.value).toBe(1);
    expect(metric(result, 'select=topk', 'eggs', 'citationPrecision')?.value).toBe(1);
    // context relevance: relevant context sections / context sections; kitchen.md has 2 of them with text.
    const cr = metric(result, 'select=topk', 'eggs', 'contextRelevance');
    expect(cr?.den).toBeGreaterThan(0);
    expect(cr?.num).toBeGreaterThanOrEqual(1);
    expect(metric(result, 'select=topk', 'mars', 'contextRelevance')?.undefinedReason).toBe(
      'no relevance labels',
    );
    expect(metric(result, 'select=topk', 'mars', 'completeness')?.value).toBeNull();
    expect(metric(result, 'select=topk', 'mars', 'answer_recall')?.value).toBeNull();
    expect(result.meta.notes?.some((n) => /PROXY/.test(n))).toBe(true);
  });

  it('records per-stage latency and tokens', () => {
    const q = result.configs[0]!.questions[0]!;
    for (const stage of ['retrieve', 'context', 'generate', 'judge', 'total'])
      expect(q.latency_ms?.[stage]).toBeGreaterThanOrEqual(0);
    expect(q.tokens?.prompt).toBeGreaterThan(0);
    expect(q.tokens?.completion).toBeGreaterThan(0);
  });

  it('compares the second config with the first for every metric', () => {
    const metrics = Object.keys(result.configs[0]!.summary);
    expect(result.comparisons.map((c) => c.metric)).toEqual(metrics);
    for (const c of result.comparisons) {
      expect([c.a, c.b]).toEqual(['select=mmr', 'select=topk']);
      expect(['better', 'worse', 'no difference']).toContain(c.verdict);
    }
    const s = result.configs[0]!.summary['ndcg@10']!;
    expect(s).toMatchObject({ n: 3, undefined: 1 });
    expect(parseEvalResult(JSON.parse(JSON.stringify(result)))).toBeTruthy();
  });
});

describe('the fact-id judge on authored facts', () => {
  it('supports a claim stating an authored fact of its cited source', async () => {
    const vault = await Vault.open({ overrides: { vault: vaultPath } });
    try {
      const questions = readQuestionSet(qfile).filter((q) => q.id === 'roses');
      const r = await runEval({ vault, questions, judge: 'fact-id' });
      expect(metric(r, 'default', 'roses', 'completeness')?.value).toBe(1);
      // The extractive answer quotes "late winter" from garden.md, which the set says states f-winter.
      expect(metric(r, 'default', 'roses', 'citationSupport')?.num).toBeGreaterThanOrEqual(1);
      expect(r.meta.notes).toContain('judge fact-id');
    } finally {
      await vault.close();
    }
  });
});

describe('quiver eval (CLI)', () => {
  it('writes EvalResult JSON and a self-contained HTML report, and prints the table', async () => {
    const json = join(tmp.dir, 'out.json');
    const html = join(tmp.dir, 'out.html');
    const r = await runCli([
      'eval',
      qfile,
      '--vault',
      vaultPath,
      '--variant',
      'select=topk',
      '--variant',
      'select=dartboard',
      '--out',
      json,
      '--html',
      html,
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/ndcg@10\s+1\.0000 \(n 3, 1 undef\)/);
    expect(r.stdout).toMatch(/select=dartboard vs select=topk/);
    const parsed = parseEvalResult(JSON.parse(readFileSync(json, 'utf8')));
    expect(parsed.configs.map((c) => c.name)).toEqual(['select=topk', 'select=dartboard']);
    expect(parsed.configs[1]!.settings).toEqual({ select: 'dartboard' });
    expect(parsed.configs[0]!.questions.map((q) => q.id)).toEqual(['eggs', 'museum', 'roses', 'mars']);
    // 'mars' abstains (the vault never mentions Mars): an abstention makes no claim to judge.
    expect(parsed.configs[0]!.summary['faithfulness']).toMatchObject({ n: 3, undefined: 1 });
    const page = readFileSync(html, 'utf8');
    expect(page).toMatch(/^<!doctype html>/);
    expect(page).toContain('select=dartboard');
    expect(page).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org)/);
  });

  it('reads config files and prints JSON on stdout with --json', async () => {
    const a = join(tmp.dir, 'lexical.json');
    writeFileSync(a, JSON.stringify({ name: 'lexical', settings: { legs: 'lexical', select: 'topk' } }));
    const r = await runCli([
      'eval',
      qfile,
      '--vault',
      vaultPath,
      '--config',
      a,
      '--variant',
      'legs=both',
      '--json',
      '--quiet',
    ]);
    expect(r.code).toBe(0);
    const parsed = parseEvalResult(r.json());
    expect(parsed.configs.map((c) => c.name)).toEqual(['lexical', 'legs=both']);
    expect(parsed.comparisons[0]).toMatchObject({ a: 'legs=both', b: 'lexical' });
  });

  it('rejects a bad question-set line with the file and line number', async () => {
    const bad = join(tmp.dir, 'bad.jsonl');
    writeFileSync(bad, '{"question": "fine"}\n{"question": "x", "relevant": ["a.md"]}\n');
    const r = await runCli(['eval', bad, '--vault', vaultPath]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('bad.jsonl line 2: relevant');
  });

  it('rejects an unknown judge and a bad variant before running', async () => {
    expect((await runCli(['eval', qfile, '--vault', vaultPath, '--judge', 'oracle'])).stderr).toMatch(
      /--judge must be one of lexical, fact-id, llm/,
    );
    expect((await runCli(['eval', qfile, '--vault', vaultPath, '--variant', 'select=best'])).code).toBe(2);
  });
});

describe('BEIR input', () => {
  let beir: string;
  beforeAll(() => {
    beir = join(tmp.dir, 'beir');
    mkdirSync(join(beir, 'qrels'), { recursive: true });
    const corpus = [
      { _id: 'd1', title: 'Volcanoes', text: 'Basaltic lava flows from shield volcanoes such as Mauna Loa.' },
      { _id: 'd2', title: 'Glaciers', text: 'Glaciers carve U-shaped valleys as the ice moves downhill.' },
      { _id: 'd3', title: 'Deserts', text: 'Sand dunes in deserts migrate with the prevailing wind.' },
      { _id: 'd4', title: 'Rivers', text: 'Rivers deposit sediment in deltas where they meet the sea.' },
      { _id: 'd5', title: 'Coral', text: 'Coral reefs grow in warm, shallow and clear tropical water.' },
    ];
    writeFileSync(join(beir, 'corpus.jsonl'), corpus.map((d) => JSON.stringify(d)).join('\n') + '\n');
    const queries = [
      { _id: 'q1', text: 'shield volcano lava' },
      { _id: 'q2', text: 'how do glaciers shape valleys' },
      { _id: 'q3', text: 'coral reef water temperature' },
      { _id: 'q4', text: 'a query without judgements' },
    ];
    writeFileSync(join(beir, 'queries.jsonl'), queries.map((q) => JSON.stringify(q)).join('\n') + '\n');
    writeFileSync(
      join(beir, 'qrels', 'test.tsv'),
      'query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t2\nq3\td5\t1\n',
    );
  });

  it('ingests the corpus into a throwaway vault and scores qrels by corpus id', async () => {
    const before = new Set(readdirSync(tmpdir()).filter((f) => f.startsWith('quiver-eval-')));
    const r = await runCli(['eval', beir, '--json', '--variants', 'legs=lexical,both']);
    expect(r.code).toBe(0);
    const parsed = parseEvalResult(r.json());
    expect(parsed.meta.dataset).toContain('split test');
    expect(parsed.configs[0]!.questions.map((q) => q.id)).toEqual(['q1', 'q2', 'q3']);
    for (const q of parsed.configs[0]!.questions) expect(questionMetric(q, 'mrr@10')?.value).toBe(1);
    expect(parsed.configs[0]!.summary['ndcg@10']).toMatchObject({ mean: 1, n: 3, undefined: 0 });
    expect(parsed.configs[0]!.questions[0]!.faithfulness).toBeUndefined();
    expect(parsed.meta.notes?.some((n) => /throwaway vault: 5 documents/.test(n))).toBe(true);
    // The throwaway vault's folder is gone.
    const after = readdirSync(tmpdir()).filter((f) => f.startsWith('quiver-eval-') && !before.has(f));
    expect(after.filter((f) => existsSync(join(tmpdir(), f, 'vault.db')))).toEqual([]);
  });

  it('uses a given vault as already ingested, and picks the split', async () => {
    writeFileSync(join(beir, 'qrels', 'dev.tsv'), 'query-id\tcorpus-id\tscore\nq3\td5\t1\n');
    const v = join(tmp.dir, 'beir.db');
    const vault = await Vault.open({ overrides: { vault: v } });
    await vault.add([join(beir, 'corpus.jsonl')]);
    await vault.close();
    const input = await loadEvalInput(beir, {
      split: 'dev',
      openVault: () => Vault.open({ overrides: { vault: v } }),
    });
    try {
      expect(input.ingest).toBeNull();
      expect(input.questions).toEqual([
        {
          id: 'q3',
          question: 'coral reef water temperature',
          relevant: { d5: 1 },
          requiredFacts: [],
          sources: [],
        },
      ]);
      const r = await runEval({ vault: input.vault, questions: input.questions, answer: true });
      expect(metric(r, 'default', 'q3', 'recall@10')?.value).toBe(1);
      expect(metric(r, 'default', 'q3', 'completeness')?.undefinedReason).toMatch(/no required facts/);
    } finally {
      await input.close();
    }
    const bad = await runCli(['eval', beir, '--split', 'nope', '--vault', v]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/split "nope"/);
  });
});

const CHROMIUM = '/usr/bin/chromium';

describe.skipIf(!existsSync(CHROMIUM))('the runner’s HTML report in headless Chromium', () => {
  it('loads without errors or requests and shows the configs and Undefined values', async () => {
    const html = join(tmp.dir, 'browser.html');
    const r = await runCli([
      'eval',
      qfile,
      '--vault',
      vaultPath,
      '--variants',
      'select=topk,mmr',
      '--html',
      html,
      '--quiet',
    ]);
    expect(r.code).toBe(0);
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
      ],
    });
    try {
      const page = await browser.newPage();
      const problems: string[] = [];
      const requests: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error' || m.type() === 'warning') problems.push(m.text());
      });
      page.on('pageerror', (e) => problems.push(e.message));
      page.on('request', (q) => requests.push(q.url()));
      await page.goto(`file://${html}`, { waitUntil: 'load' });
      expect(problems).toEqual([]);
      expect(requests.filter((u) => !u.startsWith('file://'))).toEqual([]);
      expect(await page.title()).toContain('questions.jsonl');
      const text = await page.innerText('body');
      expect(text).toContain('select=mmr');
      expect(text).toContain('ndcg@10');
      expect(text).toMatch(/Undefined/);
      expect(text).toMatch(/PROXY/);
      expect(await page.locator('svg').count()).toBeGreaterThan(0);
    } finally {
      await browser.close();
    }
  });
});

describe('runEval when a remote answer fails', () => {
  it('records the failure on that question and finishes the run', async () => {
    const { createServer } = await import('node:http');
    // A chat-completions endpoint that refuses questions about the museum (HTTP 400, not retried).
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        if (body.includes('When does the museum open')) {
          res.statusCode = 400;
          res.end(JSON.stringify({ error: { message: 'refused' } }));
          return;
        }
        res.end(
          JSON.stringify({
            id: 'x',
            object: 'chat.completion',
            created: 0,
            model: 'm',
            choices: [
              {
                index: 0,
                finish_reason: 'stop',
                message: { role: 'assistant', content: 'Boil them for ten minutes. [1]' },
              },
            ],
            usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
          }),
        );
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const vault = await Vault.open({
      overrides: {
        vault: vaultPath,
        'generator.provider': 'openai',
        'generator.baseURL': `http://127.0.0.1:${port}/v1`,
        'generator.model': 'm',
      },
    });
    try {
      const questions = readQuestionSet(qfile).filter((q) => q.id === 'eggs' || q.id === 'museum');
      const r = await runEval({ vault, questions, dataset: 'questions.jsonl' });
      const rows = r.configs[0]!.questions;
      expect(rows.map((q) => q.id)).toEqual(['eggs', 'museum']);
      expect(metric(r, 'default', 'eggs', 'answer_recall')?.value).toBe(1);
      const failed = metric(r, 'default', 'museum', 'faithfulness');
      expect(failed?.value).toBeNull();
      expect(failed?.undefinedReason).toMatch(/^ask failed: REMOTE: .*400/);
      expect(rows[1]!.error).toMatch(/^ask failed: REMOTE/);
      // Retrieval was still measured for the failed question.
      expect(metric(r, 'default', 'museum', 'ndcg@10')?.value).toBe(1);
      expect(parseEvalResult(JSON.parse(JSON.stringify(r)))).toBeDefined();
    } finally {
      await vault.close();
      server.close();
    }
  });
});
