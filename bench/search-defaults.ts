// How each command selects, decided on every data set at the limits people use: `search` (top-k
// with near-copies folded, the default) against plain top-k and Dartboard, by `quiver eval` on
// SciFact train, Cranfield and the HotpotQA sample, at --limit 10 and 100, in one run.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatQuestionSet } from '../src/evaluate/question-set.js';
import { cranfieldAsBeir } from './datasets/cranfield.js';
import { comparisonTable, hotpotAsEval, runEvalCli, summaryTable } from './eval.js';
import { DATA_DIR, dataPath, machine, OUT_DIR, quiver, writeSection } from './lib.js';

interface Set {
  name: string;
  label: string;
  /** The question file or BEIR folder `quiver eval` reads, and its extra flags. */
  input: string;
  flags: string[];
  corpus: string;
}

function sets(): Set[] {
  const out: Set[] = [];
  const scifact = dataPath('scifact');
  if (scifact !== null)
    out.push({
      name: 'scifact',
      label: 'SciFact train (809 questions)',
      input: scifact,
      flags: ['--split', 'train'],
      corpus: join(scifact, 'corpus.jsonl'),
    });
  const cran = cranfieldAsBeir(DATA_DIR, join(OUT_DIR, 'cranfield-beir'));
  if (cran !== null)
    out.push({
      name: 'cranfield',
      label: 'Cranfield (225 questions, graded)',
      input: cran,
      flags: [],
      corpus: join(cran, 'corpus.jsonl'),
    });
  const hotpot = dataPath('hotpotqa', 'hotpot_dev_distractor_first50.json');
  if (hotpot !== null) {
    const { corpus, questions } = hotpotAsEval(
      JSON.parse(readFileSync(hotpot, 'utf8')) as Parameters<typeof hotpotAsEval>[0],
    );
    const corpusFile = join(OUT_DIR, 'defaults-hotpotqa-corpus.jsonl');
    const qfile = join(OUT_DIR, 'defaults-hotpotqa-questions.jsonl');
    writeFileSync(corpusFile, corpus);
    writeFileSync(qfile, formatQuestionSet(questions));
    out.push({
      name: 'hotpotqa',
      label: 'HotpotQA sample (50 questions, 2 gold paragraphs each)',
      input: qfile,
      flags: [],
      corpus: corpusFile,
    });
  }
  return out;
}

const METRICS = ['ndcg@10', 'recall@10', 'mrr@10', 'unique@10'];

export async function benchSearchDefaults(): Promise<void> {
  mkdirSync(OUT_DIR, { recursive: true });
  const found = sets();
  let md = `## Selection per command\n\nMachine: ${machine()}. \`quiver eval\` of the default \`search\` (top-k, near-copies folded: \`search.select\` = topk, \`search.nearCopies\` = true) against plain top-k (\`--variant select.foldNearCopies=false\`) and Dartboard (\`--variant select=dartboard\`, the default of \`context\` and \`ask\`), on fresh vaults, at \`--limit 10\` and \`--limit 100\`. Comparisons are paired bootstraps over questions (5,000 resamples, 95% interval). The goal: the default within 0.003 of top-k nDCG@10 everywhere.\n`;
  if (found.length === 0) md += `\nSkipped: no data sets under ${DATA_DIR}.\n`;
  for (const s of found) {
    const vault = join(OUT_DIR, `defaults-${s.name}.db`);
    for (const x of ['', '-wal', '-shm', '.lexical']) rmSync(vault + x, { force: true });
    quiver(['add', s.corpus, '--vault', vault, '--quiet', '--json']);
    const config = join(OUT_DIR, 'defaults-config.json');
    writeFileSync(config, JSON.stringify({ name: 'default', settings: {} }));
    for (const limit of [10, 100]) {
      const r = runEvalCli(
        [
          s.input,
          ...s.flags,
          '--vault',
          vault,
          '--config',
          config,
          '--variant',
          'select.foldNearCopies=false',
          '--variant',
          'select=dartboard',
          '--limit',
          String(limit),
        ],
        join(OUT_DIR, `defaults-${s.name}-${limit}.json`),
      );
      process.stderr.write(
        `${s.name} limit ${limit}: ${r.result.configs.map((c) => `${c.name} ${c.summary['ndcg@10']?.mean?.toFixed(4)}`).join(', ')}\n`,
      );
      md += `\n### ${s.label}, --limit ${limit}\n\n${summaryTable(r.result, METRICS)}\n\n${comparisonTable(r.result, ['ndcg@10', 'unique@10'])}\n`;
    }
  }
  writeSection('search-defaults', md);
}

if (import.meta.url === `file://${process.argv[1]}`) await benchSearchDefaults();
