import { resolve } from 'node:path';
import { QuiverError } from '../../errors.js';
// The evaluation surface is not re-exported from src/index.ts yet; import it directly.
import {
  DEFAULT_JUDGE,
  JUDGE_NAMES,
  parseEvalSettings,
  parseVariant,
  parseVariants,
  readEvalConfig,
} from '../../evaluate/eval-config.js';
import type { EvalConfig, EvalSettings, JudgeName } from '../../evaluate/eval-config.js';
import { isBeirFolder } from '../../evaluate/datasets/beir.js';
import { loadEvalInput } from '../../evaluate/eval-input.js';
import type { EvalResult } from '../../evaluate/eval-result.js';
import { renderHtmlReport } from '../../evaluate/report-html.js';
import { runEval } from '../../evaluate/runner.js';
import { latencySummary } from '../../evaluate/summary.js';
import { num, str, strs, type Command, type CommandContext } from '../command.js';
import { checkWritable, writeOutputFile } from '../output-file.js';
import { EXIT } from '../exit-codes.js';
import { progressBar } from '../progress.js';
import { table } from '../table.js';

const fmt = (x: number | null | undefined, digits = 4): string =>
  x === null || x === undefined ? '—' : x.toFixed(digits);

/** The terminal report: metrics × configs (mean, n, Undefined count), latency, comparisons, notes. */
export function evalTable(result: EvalResult): string {
  const configs = result.configs;
  const metrics = [...new Set(configs.flatMap((c) => Object.keys(c.summary)))];
  const cell = (name: string, m: string): string => {
    const s = configs.find((c) => c.name === name)?.summary[m];
    if (s === undefined) return '';
    const undef = s.undefined > 0 ? `, ${s.undefined} undef` : '';
    return s.mean === null ? `Undefined (${s.undefined})` : `${fmt(s.mean)} (n ${s.n}${undef})`;
  };
  let out = table(
    ['metric', ...configs.map((c) => c.name)],
    metrics.map((m) => [m, ...configs.map((c) => cell(c.name, m))]),
    40,
  );
  const lat = configs.map((c) => latencySummary(c.questions));
  const stages = [...new Set(lat.flatMap((l) => Object.keys(l)))];
  if (stages.length > 0) {
    out += `\nlatency ms (p50 / p95)\n${table(
      ['stage', ...configs.map((c) => c.name)],
      stages.map((s) => [
        s,
        ...lat.map((l) => (l[s] === undefined ? '' : `${fmt(l[s].p50, 1)} / ${fmt(l[s].p95, 1)}`)),
      ]),
      40,
    )}`;
  }
  if (result.comparisons.length > 0) {
    out += `\ncomparisons (paired bootstrap, 95% interval; "no difference" when it spans 0)\n${table(
      ['a vs b', 'metric', 'mean diff', '95% CI', 'verdict', 'n'],
      result.comparisons.map((c) => [
        `${c.a} vs ${c.b}`,
        c.metric,
        fmt(c.meanDiff),
        c.ci === null ? '—' : `[${fmt(c.ci[0])}, ${fmt(c.ci[1])}]`,
        c.verdict,
        c.n,
      ]),
      50,
    )}`;
  }
  for (const n of result.meta.notes ?? []) out += `note: ${n}\n`;
  return out;
}

/** The configs named on the command line (files, variants), each over the base settings of the flags. */
function configsFrom(ctx: CommandContext): EvalConfig[] {
  const limit = num(ctx.values, 'limit');
  const generator = str(ctx.values, 'generator');
  const base: EvalSettings = parseEvalSettings(
    {
      ...(limit === undefined ? {} : { limit }),
      ...(generator === undefined ? {} : { generator }),
    },
    'flags',
  );
  const configs: EvalConfig[] = [
    ...(strs(ctx.values, 'config') ?? []).map((f) => readEvalConfig(resolve(ctx.io.cwd, f))),
    ...(strs(ctx.values, 'variant') ?? []).map(parseVariant),
    ...(strs(ctx.values, 'variants') ?? []).flatMap(parseVariants),
  ];
  if (configs.length === 0) configs.push({ name: 'default', settings: {} });
  return configs.map((c) => ({ name: c.name, settings: { ...base, ...c.settings } }));
}

export const evalCommand: Command = {
  name: 'eval',
  usage:
    'quiver eval QUESTIONS.jsonl|BEIR_DIR [--vault V] [--config a.json …] [--variant select=mmr …] [--variants select=topk,mmr,dartboard] [--answer] [--judge lexical|fact-id|llm] [--split S] [--json] [--out FILE.json] [--html FILE.html]',
  options: {
    config: {
      type: 'string',
      value: 'FILE',
      multiple: true,
      help: 'an eval config JSON file {name, settings}; repeat to compare (replaces the global --config here)',
    },
    variant: {
      type: 'string',
      multiple: true,
      help: 'a built-in variant such as select=mmr or select=mmr,legs=lexical; repeatable',
    },
    variants: { type: 'string', multiple: true, help: 'one variant per value: select=topk,mmr,dartboard' },
    answer: {
      type: 'boolean',
      help: 'answer each question and measure grounding (automatic when the set has required_facts or reference)',
    },
    judge: {
      type: 'enum',
      choices: JUDGE_NAMES,
      help: `support judge (default ${DEFAULT_JUDGE}, a proxy)`,
    },
    split: { type: 'string', value: 'NAME', help: 'BEIR qrels split (default test, or the only one)' },
    limit: {
      type: 'integer',
      min: 1,
      help: 'results retrieved per question for every config (recall@100 needs 100)',
    },
    generator: {
      type: 'enum',
      choices: ['extractive', 'openai'],
      help: 'answer generator for every config',
    },
    out: { type: 'string', value: 'FILE', help: 'write the EvalResult JSON to this file' },
    html: { type: 'string', value: 'FILE', help: 'write the self-contained HTML report to this file' },
  },
  maxArgs: 1,
  async run(ctx) {
    const [input, ...extra] = ctx.positionals;
    if (input === undefined || extra.length > 0)
      throw new QuiverError('BAD_INPUT', 'quiver eval: give one question-set file or BEIR folder');
    const judge = str(ctx.values, 'judge');
    const configs = configsFrom(ctx);
    const jsonOut = str(ctx.values, 'out');
    const htmlOut = str(ctx.values, 'html');
    // Reports go to folders that exist: checked before minutes of work, not after.
    for (const f of [jsonOut, htmlOut]) if (f !== undefined) checkWritable(resolve(ctx.io.cwd, f), 'eval');
    // With --json stdout carries only the JSON; the table goes to stderr.
    const say = ctx.json ? ctx.err : ctx.out;
    const split = str(ctx.values, 'split');
    const t0 = performance.now();
    const ingestBar = progressBar(ctx.io, ctx.quiet, 'ingest');
    const data = await loadEvalInput(resolve(ctx.io.cwd, input), {
      ...(split === undefined ? {} : { split }),
      // A BEIR folder without --vault gets a throwaway vault; everything else uses the configured vault.
      ...(str(ctx.values, 'vault') === undefined && isBeirFolder(resolve(ctx.io.cwd, input))
        ? {}
        : { openVault: () => ctx.openVault() }),
      env: ctx.io.env,
      onIngestProgress: (p) => ingestBar.update(p.done, p.total, p.source),
    });
    ingestBar.stop();
    let result: EvalResult;
    try {
      const bar = progressBar(ctx.io, ctx.quiet, 'eval');
      const notes =
        data.ingest === null
          ? []
          : [
              `corpus ingested into a throwaway vault: ${data.ingest.added} documents (${data.ingest.failed} failed) in ${(data.ingest.ms / 1000).toFixed(1)} s`,
            ];
      result = await runEval({
        vault: data.vault,
        questions: data.questions,
        configs,
        ...(ctx.values.answer === true ? { answer: true } : {}),
        ...(judge === undefined ? {} : { judge: judge as JudgeName }),
        dataset: data.dataset,
        notes,
        env: ctx.io.env,
        onProgress: (p) => bar.update(p.done, p.total, p.config),
      });
      bar.stop();
    } finally {
      await data.close();
    }
    result.meta.durationMs = performance.now() - t0;
    if (!ctx.quiet || (jsonOut === undefined && !ctx.json)) {
      say(
        `quiver eval: ${result.meta.dataset}: ${data.questions.length} questions × ${configs.length} config(s) in ${(result.meta.durationMs / 1000).toFixed(1)} s\n\n`,
      );
      say(evalTable(result));
    }
    if (ctx.json) ctx.out(`${JSON.stringify(result)}\n`);
    if (jsonOut !== undefined) {
      writeOutputFile(resolve(ctx.io.cwd, jsonOut), `${JSON.stringify(result, null, 1)}\n`, 'eval');
      say(`wrote ${jsonOut}\n`);
    }
    if (htmlOut !== undefined) {
      writeOutputFile(resolve(ctx.io.cwd, htmlOut), renderHtmlReport(result), 'eval');
      say(`wrote ${htmlOut}\n`);
    }
    return EXIT.OK;
  },
};
