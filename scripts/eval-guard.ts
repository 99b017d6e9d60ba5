// Retrieval regression guard: a small eval (Cranfield, 225 graded queries over 1,400 abstracts,
// converted to BEIR in a temp folder), nDCG@10 of each guarded config compared with the baseline
// recorded in bench/baseline.json minus a margin. Prints one PASS/FAIL line per config and a final
// verdict; exits 1 on a regression, 0 on a pass or when the data is missing (skipped, with a message).
//
//   node --import tsx scripts/eval-guard.ts                    # check
//   node --import tsx scripts/eval-guard.ts --write-baseline   # record a new baseline from this run
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { cranfieldAsBeir } from '../bench/datasets/cranfield.js';
import { parseVariant } from '../src/evaluate/eval-config.js';
import type { EvalConfig } from '../src/evaluate/eval-config.js';
import { loadEvalInput } from '../src/evaluate/eval-input.js';
import { runEval } from '../src/evaluate/runner.js';

/** Allowed drop below the baseline before the guard fails. */
export const DEFAULT_GUARD_MARGIN = 0.01;
export const GUARD_METRIC = 'ndcg@10';
const BASELINE_FILE = resolve('bench/baseline.json');

/** The guarded configs: the vault defaults, and the two retrieval legs with plain top-k. */
const CONFIGS: EvalConfig[] = [
  { name: 'default', settings: {} },
  parseVariant('legs=lexical,select=topk'),
  parseVariant('legs=both,select=topk'),
];

interface Baseline {
  dataset: string;
  metric: string;
  margin: number;
  configs: Record<string, number>;
  recordedAt: string;
  note?: string;
}

async function main(argv: readonly string[]): Promise<number> {
  const write = argv.includes('--write-baseline');
  const dataDir = resolve(process.env.QUIVER_DATA ?? '../shared/data');
  const tmp = mkdtempSync(join(tmpdir(), 'quiver-guard-'));
  try {
    const beir = existsSync(join(dataDir, 'cranfield', 'cran.all.1400'))
      ? cranfieldAsBeir(dataDir, join(tmp, 'cranfield-beir'))
      : null;
    if (beir === null) {
      console.log(`eval-guard: SKIP (no Cranfield data under ${dataDir}/cranfield; set QUIVER_DATA)`);
      return 0;
    }
    const t0 = performance.now();
    const input = await loadEvalInput(beir, { split: 'test' });
    let means: Record<string, number | null>;
    try {
      const result = await runEval({
        vault: input.vault,
        questions: input.questions,
        configs: CONFIGS,
        answer: false,
        dataset: 'cranfield',
      });
      means = Object.fromEntries(result.configs.map((c) => [c.name, c.summary[GUARD_METRIC]?.mean ?? null]));
    } finally {
      await input.close();
    }
    const secs = ((performance.now() - t0) / 1000).toFixed(1);
    if (write) {
      const configs: Record<string, number> = {};
      for (const [name, m] of Object.entries(means)) if (m !== null) configs[name] = Number(m.toFixed(4));
      const baseline: Baseline = {
        dataset: 'cranfield (225 queries, qrels test, graded)',
        metric: GUARD_METRIC,
        margin: DEFAULT_GUARD_MARGIN,
        configs,
        recordedAt: new Date().toISOString(),
        note: 'written by `node --import tsx scripts/eval-guard.ts --write-baseline` from a real run',
      };
      writeFileSync(BASELINE_FILE, `${JSON.stringify(baseline, null, 2)}\n`);
      console.log(`eval-guard: baseline written to ${BASELINE_FILE} (${secs} s): ${JSON.stringify(configs)}`);
      return 0;
    }
    let baseline: Baseline;
    try {
      baseline = JSON.parse(readFileSync(BASELINE_FILE, 'utf8')) as Baseline;
    } catch (e) {
      console.log(`eval-guard: FAIL: cannot read ${BASELINE_FILE}: ${(e as Error).message}`);
      return 1;
    }
    const margin = baseline.margin ?? DEFAULT_GUARD_MARGIN;
    let failed = 0;
    for (const [name, base] of Object.entries(baseline.configs)) {
      const got = means[name];
      const ok = got !== null && got !== undefined && got >= base - margin;
      if (!ok) failed++;
      console.log(
        `eval-guard: ${ok ? 'PASS' : 'FAIL'} ${name}: ${GUARD_METRIC} ${got === null || got === undefined ? 'missing' : got.toFixed(4)} vs baseline ${base.toFixed(4)} − ${margin}`,
      );
    }
    console.log(
      failed === 0
        ? `eval-guard: PASS (cranfield, ${secs} s)`
        : `eval-guard: FAIL: ${failed} config(s) below baseline − ${margin} (cranfield, ${secs} s)`,
    );
    return failed === 0 ? 0 : 1;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

process.exitCode = await main(process.argv.slice(2));
