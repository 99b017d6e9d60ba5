/**
 * Choosing the default noise blend by measurement (issue 7): pure helpers that score a weight set
 * on cached feature matrices, the step-by-step path from the first default to the current one, and
 * a scan of a small weight family, all on the TUNING seeds only (the held-out seeds are reported
 * by bench/noise.ts and never consulted here).
 *
 *   node --import tsx bench/noise-features.ts   # once: cache feature matrices
 *   node --import tsx bench/noise-tune.ts       # print the path and the family scan
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { auc } from '../src/quality/auc.js';
import {
  INTRINSIC_NOISE_WEIGHTS,
  NOISE_WEIGHTS,
  REFERENCE_NOISE_WEIGHTS,
} from '../src/quality/noise/blend.js';
import { rankNormalize } from '../src/quality/noise/primitives.js';
import { OUT_DIR, mean } from './lib.js';
import { TUNING_SEEDS, allCorpusFeatures, type CorpusFeatures } from './noise-features.js';

/** The default before the issue-7 retune (reference nine + intrinsic features), kept for comparison. */
export const FIRST_NOISE_WEIGHTS: Readonly<Record<string, number>> = {
  ...REFERENCE_NOISE_WEIGHTS,
  ...INTRINSIC_NOISE_WEIGHTS,
};

/** The retune as single steps, each with the mechanism that justifies it (see bench/noise.ts). */
export const TUNING_PATH: readonly { step: string; weights: Readonly<Record<string, number>> }[] = [
  { step: 'first default', weights: FIRST_NOISE_WEIGHTS },
  {
    step: '− off_centre − spread_chunk (embedder geometry, inverted)',
    weights: { ...FIRST_NOISE_WEIGHTS, off_centre: 0, spread_chunk: 0 },
  },
  {
    step: '+ low_idf re-oriented (−0.3)',
    weights: { ...FIRST_NOISE_WEIGHTS, off_centre: 0, spread_chunk: 0, low_idf: -0.3 },
  },
  {
    step: '+ hub halved (0.5) = NOISE_WEIGHTS',
    weights: { ...FIRST_NOISE_WEIGHTS, off_centre: 0, spread_chunk: 0, low_idf: -0.3, hub: 0.5 },
  },
];

/** Blended score per row: rankNormalize(X)·w / Σ|w| (Σ|w| = 0 → 1), as `noiseScores` computes it. */
export function blendScores(f: CorpusFeatures, weights: Readonly<Record<string, number>>): number[] {
  const Z = rankNormalize(f.X);
  const w = f.names.map((n) => weights[n] ?? 0);
  const total = w.reduce((a, b) => a + Math.abs(b), 0) || 1;
  return Z.map((z) => z.reduce((a, v, j) => a + v * w[j]!, 0) / total);
}

/** 1 for boilerplate rows, 0 otherwise. */
export function noiseLabels(f: CorpusFeatures): number[] {
  return f.labels.map((l) => (l === 'boiler' ? 1 : 0));
}

export interface BlendEval {
  auc: number;
  /** Highest survey score (−∞ without surveys) and how many surveys score ≥ 1.0. */
  surveyMax: number;
  surveysFlagged: number;
  /** Boilerplate / other documents scoring ≥ 1.0 (the default suggestion threshold) and ≥ 0.5. */
  boilerAt1: number;
  cleanAt1: number;
  boilerAt05: number;
  cleanAt05: number;
}

/** AUC (boilerplate = positive) and threshold counts of one weight set on one corpus. */
export function evalBlend(f: CorpusFeatures, weights: Readonly<Record<string, number>>): BlendEval {
  const s = blendScores(f, weights);
  const y = noiseLabels(f);
  const surveys = s.filter((_, i) => f.labels[i] === 'survey');
  const count = (lab: number, t: number): number => s.filter((v, i) => y[i] === lab && v >= t).length;
  return {
    auc: auc(s, y),
    surveyMax: Math.max(-Infinity, ...surveys),
    surveysFlagged: surveys.filter((v) => v >= 1.0).length,
    boilerAt1: count(1, 1.0),
    cleanAt1: count(0, 1.0),
    boilerAt05: count(1, 0.5),
    cleanAt05: count(0, 0.5),
  };
}

/** Raw-column AUC of every feature (larger = noisier). */
export function featureAucs(f: CorpusFeatures): Record<string, number> {
  const y = noiseLabels(f);
  return Object.fromEntries(
    f.names.map((n, j) => [
      n,
      auc(
        f.X.map((r) => r[j]!),
        y,
      ),
    ]),
  );
}

export interface WeightSummary {
  name: string;
  weights: Readonly<Record<string, number>>;
  mean: number;
  min: number;
  below095: number;
  surveyMax: number;
}

/** Mean / min AUC, corpora below 0.95 and the highest survey score of `weights` over `corpora`. */
export function summarise(
  name: string,
  weights: Readonly<Record<string, number>>,
  corpora: readonly CorpusFeatures[],
): WeightSummary {
  const r = corpora.map((f) => evalBlend(f, weights));
  return {
    name,
    weights,
    mean: mean(r.map((x) => x.auc)),
    min: Math.min(...r.map((x) => x.auc)),
    below095: r.filter((x) => x.auc < 0.95).length,
    surveyMax: Math.max(...r.map((x) => x.surveyMax)),
  };
}

/**
 * The scanned family: the first default with hub ∈ {1, 0.5, 0}, off_centre ∈ {0.5, 0},
 * spread_chunk ∈ {0.8, 0}, low_idf ∈ {0.3, 0, −0.3}, dup_out ∈ {0.8, 1.6}, stop_density ∈ {0.5, 0}
 * (144 sets). The intrinsic weights are not scanned upward: the generated boilerplate lines are
 * lexicon hits by construction, so raising `boiler_lexicon` would fit the generator, not the task.
 */
export function weightFamily(): { name: string; weights: Record<string, number> }[] {
  const out: { name: string; weights: Record<string, number> }[] = [];
  for (const hub of [1, 0.5, 0])
    for (const off_centre of [0.5, 0])
      for (const spread_chunk of [0.8, 0])
        for (const low_idf of [0.3, 0, -0.3])
          for (const dup_out of [0.8, 1.6])
            for (const stop_density of [0.5, 0])
              out.push({
                name: `hub ${hub}, off ${off_centre}, spread ${spread_chunk}, idf ${low_idf}, dup ${dup_out}, stop ${stop_density}`,
                weights: {
                  ...FIRST_NOISE_WEIGHTS,
                  hub,
                  off_centre,
                  spread_chunk,
                  low_idf,
                  dup_out,
                  stop_density,
                },
              });
  return out;
}

/** The family ranked on `tuning` corpora: surveys must stay < 1.0; then min AUC, then mean. */
export function scanFamily(tuning: readonly CorpusFeatures[]): WeightSummary[] {
  return weightFamily()
    .map((c) => summarise(c.name, c.weights, tuning))
    .filter((s) => s.surveyMax < 1.0)
    .sort((a, b) => b.min - a.min || b.mean - a.mean);
}

function sameWeights(a: Readonly<Record<string, number>>, b: Readonly<Record<string, number>>): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((k) => (a[k] ?? 0) === (b[k] ?? 0));
}

/** Rank (1-based) of NOISE_WEIGHTS in a scanned family, or null when it is not a member. */
export function rankOfDefault(scan: readonly WeightSummary[]): number | null {
  const i = scan.findIndex((s) => sameWeights(s.weights, NOISE_WEIGHTS));
  return i < 0 ? null : i + 1;
}

function main(features: CorpusFeatures[]): void {
  const tuning = features.filter((f) =>
    (TUNING_SEEDS as readonly number[]).some((s) => f.corpus === `generated-${s}`),
  );
  console.log(`tuning corpora: ${tuning.map((f) => f.corpus).join(', ')}`);
  console.log('\npath (tuning seeds): mean / min AUC, seeds < 0.95, max survey score');
  for (const p of TUNING_PATH) {
    const s = summarise(p.step, p.weights, tuning);
    console.log(
      `  ${p.step.padEnd(60)} ${s.mean.toFixed(4)} ${s.min.toFixed(3)} ${s.below095} ${s.surveyMax.toFixed(2)}`,
    );
  }
  const scan = scanFamily(tuning);
  console.log(`\nfamily scan (${scan.length} sets with surveys < 1.0), top 10:`);
  for (const s of scan.slice(0, 10))
    console.log(`  ${s.name.padEnd(64)} ${s.mean.toFixed(4)} ${s.min.toFixed(3)} ${s.below095}`);
  console.log(`NOISE_WEIGHTS ranks ${rankOfDefault(scan) ?? 'n/a'} of ${scan.length}`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const cache = join(OUT_DIR, 'noise-features.json');
  const features = existsSync(cache)
    ? (JSON.parse(readFileSync(cache, 'utf8')) as CorpusFeatures[])
    : await allCorpusFeatures(TUNING_SEEDS, false);
  main(features);
}
