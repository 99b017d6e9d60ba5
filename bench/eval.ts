// The evaluation benchmark, run through the CLI as other tools would:
// 1. SciFact train end to end (`quiver eval scifact --split train`, throwaway vault, ingest included),
//    timed against the 60 s target;
// 2. SciFact train retrieval metrics for lexical and fused search (limit 100) and for the selections
//    (topk, mmr, dartboard at limit 10), with paired-bootstrap comparisons;
// 3. HotpotQA (the 50 distractor-dev questions): one vault of all their paragraphs (one document per
//    paragraph, titled by its Wikipedia title), gold = the 2 supporting titles, required fact = the
//    gold answer; grounding of the extractive generator measured with the lexical judge (a proxy).
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseEvalResult } from '../src/evaluate/eval-result.js';
import type { EvalResult } from '../src/evaluate/eval-result.js';
import { formatQuestionSet } from '../src/evaluate/question-set.js';
import type { EvalQuestion } from '../src/evaluate/question-set.js';
import { dataPath, machine, mdTable, OUT_DIR, quiver, writeSection } from './lib.js';

interface HotpotItem {
  _id: string;
  question: string;
  answer: string;
  supporting_facts: [string, number][];
  context: [string, string[]][];
}

/** HotpotQA items → a JSONL corpus (one record per distinct paragraph title) and a question set. */
export function hotpotAsEval(items: readonly HotpotItem[]): { corpus: string; questions: EvalQuestion[] } {
  const paragraphs = new Map<string, string>();
  for (const it of items)
    for (const [title, sentences] of it.context)
      if (!paragraphs.has(title)) paragraphs.set(title, sentences.join('').trim());
  const corpus =
    [...paragraphs].map(([title, text]) => JSON.stringify({ id: title, title, text })).join('\n') + '\n';
  const questions = items.map((it) => ({
    id: it._id,
    question: it.question,
    relevant: Object.fromEntries(it.supporting_facts.map(([title]) => [title, 1])),
    requiredFacts: [it.answer],
    reference: it.answer,
    sources: [...new Set(it.supporting_facts.map(([title]) => title))].map((id) => ({ id, facts: [] })),
  }));
  return { corpus, questions };
}

/** CPU seconds (user + system) of this process's finished children, from /proc (Linux); NaN elsewhere. */
function childCpuSeconds(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 16 and 17 of /proc/[pid]/stat (cutime, cstime), in clock ticks of 1/100 s.
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return Number.NaN;
  }
}

export function runEvalCli(args: string[], json: string): { result: EvalResult; ms: number; cpuS: number } {
  const c0 = childCpuSeconds();
  const t = performance.now();
  quiver(['eval', ...args, '--out', json, '--quiet']);
  const ms = performance.now() - t;
  return {
    result: parseEvalResult(JSON.parse(readFileSync(json, 'utf8'))),
    ms,
    cpuS: childCpuSeconds() - c0,
  };
}

/** SciFact train end to end (throwaway vault, ingest included), as a person would run it. */
export function scifactEndToEnd(scifact: string): {
  result: EvalResult;
  ms: number;
  cpuS: number;
  load: number;
} {
  const load = loadavg()[0]!;
  const r = runEvalCli(
    [scifact, '--split', 'train', '--html', join(OUT_DIR, 'eval-scifact-default.html')],
    join(OUT_DIR, 'eval-scifact-default.json'),
  );
  process.stderr.write(
    `scifact end to end: ${(r.ms / 1000).toFixed(1)} s wall, ${r.cpuS.toFixed(1)} s CPU (load ${load.toFixed(1)})\n`,
  );
  return { ...r, load };
}

const f3 = (x: number | null | undefined): string => (x === null || x === undefined ? '—' : x.toFixed(3));

/** Metrics × configs (mean, and n when some questions are Undefined). */
export function summaryTable(r: EvalResult, metrics: readonly string[]): string {
  return mdTable(
    ['config', ...metrics],
    r.configs.map((c) => [
      c.name,
      ...metrics.map((m) => {
        const s = c.summary[m];
        if (s === undefined) return '—';
        return s.undefined > 0 ? `${f3(s.mean)} (n ${s.n})` : f3(s.mean);
      }),
    ]),
  );
}

export function comparisonTable(r: EvalResult, metrics: readonly string[]): string {
  const rows = r.comparisons
    .filter((c) => metrics.includes(c.metric))
    .map((c) => [
      `${c.a} vs ${c.b}`,
      c.metric,
      f3(c.meanDiff),
      c.ci === null ? '—' : `[${f3(c.ci[0])}, ${f3(c.ci[1])}]`,
      c.verdict,
    ]);
  return mdTable(['comparison', 'metric', 'mean diff', '95% CI', 'verdict'], rows);
}

export async function benchEval(): Promise<void> {
  mkdirSync(OUT_DIR, { recursive: true });
  let md = `## Evaluation\n\nMachine: ${machine()}. Every run is \`quiver eval\` as a child process; comparisons are paired bootstraps over questions (5,000 resamples, 95% percentile interval, "no difference" when it spans 0).\n`;
  const scifact = dataPath('scifact');
  if (scifact === null) md += '\nSciFact: skipped (no data).\n';
  else {
    // 1. End to end, ingest included.
    const e2e = scifactEndToEnd(scifact);
    const ingestNote = e2e.result.meta.notes?.find((n) => n.startsWith('corpus ingested')) ?? '';
    md += `\n### SciFact train end to end\n\n\`quiver eval <data>/scifact --split train --out OUT\` (809 questions, 5,183 documents, default config, throwaway vault): **${(e2e.ms / 1000).toFixed(1)} s** wall and ${e2e.cpuS.toFixed(1)} s CPU (user + system), ingest included (${ingestNote}; 1-minute load average before the run ${e2e.load.toFixed(1)} on ${cpus().length} cores shared with other work; target < 60 s).\n\n${summaryTable(e2e.result, ['ndcg@10', 'recall@10', 'mrr@10', 'precision@10'])}\n`;

    // 2. Configurations over one ingested vault.
    const vault = join(OUT_DIR, 'eval-scifact.db');
    for (const s of ['', '-wal', '-shm']) rmSync(vault + s, { force: true });
    quiver(['add', join(scifact, 'corpus.jsonl'), '--vault', vault, '--quiet', '--json']);
    const legs = runEvalCli(
      [
        scifact,
        '--split',
        'train',
        '--vault',
        vault,
        '--limit',
        '100',
        '--variant',
        'legs=lexical,select=topk',
        '--variant',
        'legs=both,select=topk',
        '--html',
        join(OUT_DIR, 'eval-scifact-legs.html'),
      ],
      join(OUT_DIR, 'eval-scifact-legs.json'),
    );
    const sel = runEvalCli(
      [
        scifact,
        '--split',
        'train',
        '--vault',
        vault,
        '--variants',
        'select=topk,mmr,dartboard',
        '--html',
        join(OUT_DIR, 'eval-scifact-select.html'),
      ],
      join(OUT_DIR, 'eval-scifact-select.json'),
    );
    const legMetrics = ['ndcg@10', 'recall@10', 'recall@100', 'mrr@10'];
    const selMetrics = ['ndcg@10', 'recall@10', 'mrr@10', 'precision@10', 'unique@10'];
    md += `\n### SciFact train: lexical vs fused (limit 100, top-k), ${(legs.ms / 1000).toFixed(0)} s\n\n${summaryTable(legs.result, legMetrics)}\n\n${comparisonTable(legs.result, legMetrics)}\n`;
    md += `\n### SciFact train: selections (fused, limit 10), ${(sel.ms / 1000).toFixed(0)} s\n\n${summaryTable(sel.result, selMetrics)}\n\n${comparisonTable(sel.result, selMetrics)}\n`;
  }

  const hotpotFile = dataPath('hotpotqa', 'hotpot_dev_distractor_first50.json');
  if (hotpotFile === null) md += '\nHotpotQA: skipped (no data).\n';
  else {
    const items = JSON.parse(readFileSync(hotpotFile, 'utf8')) as HotpotItem[];
    const { corpus, questions } = hotpotAsEval(items);
    const corpusFile = join(OUT_DIR, 'eval-hotpotqa-corpus.jsonl');
    const qfile = join(OUT_DIR, 'eval-hotpotqa-questions.jsonl');
    writeFileSync(corpusFile, corpus);
    writeFileSync(qfile, formatQuestionSet(questions));
    const vault = join(OUT_DIR, 'eval-hotpotqa.db');
    for (const s of ['', '-wal', '-shm']) rmSync(vault + s, { force: true });
    quiver(['add', corpusFile, '--vault', vault, '--quiet', '--json']);
    const hp = runEvalCli(
      [
        qfile,
        '--vault',
        vault,
        '--generator',
        'extractive',
        '--judge',
        'lexical',
        '--variants',
        'select=topk,mmr,dartboard',
        '--html',
        join(OUT_DIR, 'eval-hotpotqa.html'),
      ],
      join(OUT_DIR, 'eval-hotpotqa.json'),
    );
    const docs = corpus.split('\n').filter((l) => l !== '').length;
    const gMetrics = [
      'contextRelevance',
      'faithfulness',
      'citationSupport',
      'citationPrecision',
      'completeness',
      'answer_recall',
    ];
    md += `\n### HotpotQA grounding (extractive generator, lexical judge)\n\nThe first 50 distractor-dev questions; one vault of their ${docs} distinct paragraphs (one document per paragraph, titled by its Wikipedia title); relevant = the 2 supporting paragraphs; required fact and reference = the gold answer string. ${(hp.ms / 1000).toFixed(1)} s for 3 configs. **The lexical judge is a proxy for support (word overlap with numbers and negation checked), not entailment.** The extractive generator only copies source sentences (and opens a yes/no comparison with a verdict its quoted sentences state, which is not part of the judged claim), so faithfulness is ~1 by construction; an abstention makes no claim, so its question counts as undefined (n below 50); completeness is what it misses.\n\n${summaryTable(hp.result, gMetrics)}\n\nRetrieval on the same questions:\n\n${summaryTable(hp.result, ['ndcg@10', 'recall@10', 'mrr@10'])}\n\n${comparisonTable(hp.result, [...gMetrics, 'ndcg@10'])}\n`;
  }
  writeSection('eval', md);
}

if (import.meta.url === `file://${process.argv[1]}` && existsSync('bin/quiver.js')) {
  const scifact = dataPath('scifact');
  if (process.argv.includes('--e2e-only')) {
    if (scifact !== null) scifactEndToEnd(scifact);
  } else await benchEval();
}
