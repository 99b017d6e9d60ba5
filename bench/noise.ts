/**
 * The noise experiment (quality-reference §7.2) through the library, with the vault's real
 * built-in embedder and chunker: one vault per corpus built with `vault.add`, features from
 * `vault.quality.noiseFeatures()`, the fitted blend from `vault.quality.fitNoise()` on marks.
 *
 * Corpora: generated seeds 1–10 (tuning: the default weights were chosen on these, see
 * bench/noise-tune.ts) and 11–20 (held out: the headline numbers) of `makeNoiseCorpus` (72 docs:
 * 60 content, 8 boilerplate, 4 surveys), and the real-boilerplate set from the article-extraction
 * benchmark (`loadRealNoiseCorpus`, skipped when the data is missing).
 * Reports per-seed blended AUC (quiver's NOISE_WEIGHTS, the first default, the reference's
 * nine-feature weights, the intrinsic features alone), per-feature AUC, surveys scoring ≥ 1.0,
 * and the blend fitted from 6 noise marks + 18 keepers, held out over 3 folds (AUC over the
 * held-out fold plus every unmarked document, folds averaged). About a minute on 2 busy cores.
 *
 *   node --import tsx bench/noise.ts     (or `npm run bench -- noise`)
 */
import { auc } from '../src/quality/auc.js';
import {
  INTRINSIC_NOISE_WEIGHTS,
  NOISE_WEIGHTS,
  REFERENCE_NOISE_WEIGHTS,
} from '../src/quality/noise/blend.js';
import { rankNormalize } from '../src/quality/noise/primitives.js';
import { Prng } from '../src/quality/prng.js';
import { dataPath, mdTable, mean, writeSection } from './lib.js';
import { loadRealNoiseCorpus, makeNoiseCorpus, type NoiseDoc } from './noise-corpus.js';
import { HELDOUT_SEEDS, TUNING_SEEDS, dropVault, noiseVault, type CorpusFeatures } from './noise-features.js';
import {
  FIRST_NOISE_WEIGHTS,
  TUNING_PATH,
  evalBlend,
  featureAucs,
  noiseLabels,
  rankOfDefault,
  scanFamily,
  summarise,
  type BlendEval,
} from './noise-tune.js';

export { noiseVault } from './noise-features.js';

export const N_NOISE_MARKS = 6;
export const N_KEEPER_MARKS = 18;
export const FOLDS = 3;

/** The weight sets every corpus is scored with. */
export const WEIGHT_SETS: Record<string, Readonly<Record<string, number>>> = {
  NOISE_WEIGHTS: NOISE_WEIGHTS,
  'first default': FIRST_NOISE_WEIGHTS,
  reference: REFERENCE_NOISE_WEIGHTS,
  intrinsic: INTRINSIC_NOISE_WEIGHTS,
};

function shuffled<T>(rng: Prng, xs: readonly T[]): T[] {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

export interface NoiseResult {
  corpus: string;
  split: 'tuning' | 'held-out' | 'real';
  docs: number;
  noise: number;
  f: CorpusFeatures;
  features: Record<string, number>;
  blends: Record<string, BlendEval>;
  fitted: number;
  ms: number;
}

/** Everything for one corpus. `seed` seeds the choice of marks (Prng(7 + seed)). */
export async function evaluateCorpus(
  name: string,
  docs: readonly NoiseDoc[],
  seed: number,
  split: NoiseResult['split'],
): Promise<NoiseResult> {
  const t0 = performance.now();
  const { vault, label, path } = await noiseVault(name, docs);
  try {
    const nf = await vault.quality.noiseFeatures();
    const f: CorpusFeatures = {
      corpus: name,
      docIds: nf.docIds,
      names: nf.names,
      X: nf.X,
      labels: nf.docIds.map((d) => label.get(d)!),
    };
    const y = noiseLabels(f);

    // Fitted from marks, held out: per fold, the other folds' marks are in the store.
    const rng = new Prng(7 + seed);
    const pos = shuffled(
      rng,
      f.docIds.filter((_, i) => y[i] === 1),
    ).slice(0, N_NOISE_MARKS);
    const neg = shuffled(
      rng,
      f.docIds.filter((_, i) => y[i] === 0),
    ).slice(0, N_KEEPER_MARKS);
    const marked = shuffled(rng, [...pos, ...neg]);
    const Z = rankNormalize(f.X);
    const foldAuc: number[] = [];
    for (let k = 0; k < FOLDS; k++) {
      const test = new Set(marked.filter((_, i) => i % FOLDS === k));
      for (const d of marked) await vault.store.setMark(d, test.has(d) ? null : pos.includes(d), null);
      const { model } = await vault.quality.fitNoise();
      const s = model.score(Z);
      const keep = f.docIds
        .map((_, i) => i)
        .filter((i) => test.has(f.docIds[i]!) || !marked.includes(f.docIds[i]!));
      foldAuc.push(
        auc(
          keep.map((i) => s[i]!),
          keep.map((i) => y[i]!),
        ),
      );
    }
    return {
      corpus: name,
      split,
      docs: f.docIds.length,
      noise: y.filter((v) => v === 1).length,
      f,
      features: featureAucs(f),
      blends: Object.fromEntries(Object.entries(WEIGHT_SETS).map(([n, w]) => [n, evalBlend(f, w)])),
      fitted: mean(foldAuc),
      ms: performance.now() - t0,
    };
  } finally {
    await dropVault(vault, path);
  }
}

const f3 = (x: number): string => (Number.isFinite(x) ? x.toFixed(3) : 'n/a');

/** Features whose removal from `weights` raises this corpus's AUC the most (gain ≥ 0.005). */
function misleading(f: CorpusFeatures, weights: Readonly<Record<string, number>>): string {
  const base = evalBlend(f, weights).auc;
  return (
    Object.keys(weights)
      .filter((n) => (weights[n] ?? 0) !== 0)
      .map((n) => [n, evalBlend(f, { ...weights, [n]: 0 }).auc - base] as const)
      .filter(([, g]) => g >= 0.005)
      .sort((a, b) => b[1] - a[1])
      .map(([n, g]) => `${n} +${g.toFixed(3)}`)
      .join(', ') || '—'
  );
}

export async function benchNoise(): Promise<NoiseResult[]> {
  const results: NoiseResult[] = [];
  const t0 = performance.now();
  for (const [seeds, split] of [
    [TUNING_SEEDS, 'tuning'],
    [HELDOUT_SEEDS, 'held-out'],
  ] as const)
    for (const seed of seeds) {
      results.push(await evaluateCorpus(`generated-${seed}`, makeNoiseCorpus(seed).docs, seed, split));
      process.stderr.write(`noise: generated seed ${seed} done\n`);
    }
  const dir = dataPath('article-extraction-benchmark');
  const real = dir === null ? null : loadRealNoiseCorpus(dir);
  if (real !== null) {
    results.push(await evaluateCorpus('real-pages', real.docs, 0, 'real'));
    process.stderr.write('noise: real pages done\n');
  }
  const totalS = (performance.now() - t0) / 1000;
  const tun = results.filter((r) => r.split === 'tuning');
  const held = results.filter((r) => r.split === 'held-out');
  const realR = results.find((r) => r.split === 'real');
  const gen = [...tun, ...held];
  const names = Object.keys(results[0]!.features);

  let md =
    '## Noise score (built-in embedder)\n\n' +
    'Each corpus is ingested into its own vault with `vault.add` (built-in hashing embedder, default chunker); features come from `vault.quality.noiseFeatures()` and AUC treats the boilerplate documents as positives. ' +
    `Generated corpora (72 docs: 60 content of which ~40% carry a glued boilerplate tail, 8 boilerplate, 4 broad surveys): seeds ${TUNING_SEEDS[0]}–${TUNING_SEEDS[TUNING_SEEDS.length - 1]} are the **tuning** seeds the default weights were chosen on (bench/noise-tune.ts), seeds ${HELDOUT_SEEDS[0]}–${HELDOUT_SEEDS[HELDOUT_SEEDS.length - 1]} are **held out** (never consulted while choosing). ` +
    "`blend` is quiver's default `NOISE_WEIGHTS` (what `suggest_noisy` uses), `first` the default before the issue-7 retune, `reference` the reference's nine-feature weights (`REFERENCE_NOISE_WEIGHTS`), `intrinsic` the content-intrinsic features alone. `fitted` is `vault.quality.fitNoise()` on 6 noise marks + 18 keepers, held out over 3 folds (AUC over the held-out fold plus every unmarked document). " +
    '`max survey` is the highest blend score of the 4 surveys (flagged means ≥ 1.0, the default `minScore`); `boiler ≥ 1.0 / ≥ 0.5` counts the 8 boilerplate docs at the default threshold and at the 0.5 the reference evals use, `others` the non-boilerplate documents (content and surveys) at the same thresholds (false suggestions). ' +
    `All ${results.length} corpora took ${totalS.toFixed(0)} s on a shared 2-core machine (pessimistic under load).\n\n` +
    mdTable(
      [
        'corpus',
        'split',
        'blend AUC',
        'first AUC',
        'reference AUC',
        'intrinsic AUC',
        'fitted AUC (held out)',
        'max survey',
        'surveys ≥ 1.0',
        'boiler ≥ 1.0 / ≥ 0.5',
        'others ≥ 1.0 / ≥ 0.5',
        'seconds',
      ],
      results.map((r) => {
        const b = r.blends['NOISE_WEIGHTS']!;
        return [
          r.corpus,
          r.split,
          b.auc,
          r.blends['first default']!.auc,
          r.blends['reference']!.auc,
          r.blends['intrinsic']!.auc,
          r.fitted,
          r.split === 'real' ? 'n/a' : f3(b.surveyMax),
          r.split === 'real' ? 'n/a' : `${b.surveysFlagged}/4`,
          `${b.boilerAt1} / ${b.boilerAt05} of ${r.noise}`,
          `${b.cleanAt1} / ${b.cleanAt05}`,
          (r.ms / 1000).toFixed(1),
        ];
      }),
    );

  const stat = (rs: readonly NoiseResult[], get: (r: NoiseResult) => number): string[] => {
    const v = rs.map(get);
    return [f3(mean(v)), f3(Math.min(...v)), String(v.filter((x) => x < 0.95).length)];
  };
  md +=
    '\n\nSummary over seeds (mean, min, seeds below 0.95):\n\n' +
    mdTable(
      [
        'weights',
        'tuning mean',
        'tuning min',
        'tuning < 0.95',
        'held-out mean',
        'held-out min',
        'held-out < 0.95',
        'real pages',
      ],
      [
        ...Object.keys(WEIGHT_SETS).map((n) => [
          n,
          ...stat(tun, (r) => r.blends[n]!.auc),
          ...stat(held, (r) => r.blends[n]!.auc),
          realR === undefined ? 'n/a' : f3(realR.blends[n]!.auc),
        ]),
        [
          'fitted (6 + 18 marks)',
          ...stat(tun, (r) => r.fitted),
          ...stat(held, (r) => r.fitted),
          realR === undefined ? 'n/a' : f3(realR.fitted),
        ],
      ],
    );

  const fstat = (rs: readonly NoiseResult[], n: string): string => {
    const v = rs.map((r) => r.features[n]!);
    return `${f3(mean(v))} (${f3(Math.min(...v))}–${f3(Math.max(...v))})`;
  };
  md +=
    '\n\nPer-feature AUC (raw column, larger = noisier; mean (min–max) over seeds) and the default weight:\n\n' +
    mdTable(
      ['feature', 'NOISE_WEIGHTS', 'reference weight', 'tuning seeds', 'held-out seeds', 'real pages'],
      names.map((n) => [
        n,
        String(NOISE_WEIGHTS[n] ?? 0),
        String(REFERENCE_NOISE_WEIGHTS[n] ?? '—'),
        fstat(tun, n),
        fstat(held, n),
        realR === undefined ? 'n/a' : f3(realR.features[n]!),
      ]),
    );

  md +=
    '\n\nThe retune step by step (chosen on the tuning seeds; held-out and real pages shown only for the report):\n\n' +
    mdTable(
      ['step', 'tuning mean', 'tuning min', 'held-out mean', 'held-out min', 'real pages'],
      TUNING_PATH.map((p) => {
        const t = summarise(
          p.step,
          p.weights,
          tun.map((r) => r.f),
        );
        const h = summarise(
          p.step,
          p.weights,
          held.map((r) => r.f),
        );
        return [
          p.step,
          t.mean,
          t.min,
          h.mean,
          h.min,
          realR === undefined ? 'n/a' : f3(evalBlend(realR.f, p.weights).auc),
        ];
      }),
    );

  const scan = scanFamily(tun.map((r) => r.f));
  md +=
    `\n\nA scan of ${scan.length} weight sets with surveys < 1.0 on every tuning seed (hub ∈ {1, 0.5, 0}, off_centre ∈ {0.5, 0}, spread_chunk ∈ {0.8, 0}, low_idf ∈ {0.3, 0, −0.3}, dup_out ∈ {0.8, 1.6}, stop_density ∈ {0.5, 0}; intrinsic weights fixed), ranked by tuning min then mean; NOISE_WEIGHTS ranks ${rankOfDefault(scan) ?? 'n/a'}:\n\n` +
    mdTable(
      ['weights', 'tuning mean', 'tuning min', 'held-out mean', 'held-out min'],
      scan.slice(0, 5).map((s) => {
        const h = summarise(
          s.name,
          s.weights,
          held.map((r) => r.f),
        );
        return [s.name, s.mean, s.min, h.mean, h.min];
      }),
    );

  const weak = gen.filter((r) => r.blends['first default']!.auc < 0.95);
  md +=
    '\n\nSeeds below 0.95 with the first default, and the features whose removal lifts them most (AUC gain):\n\n' +
    mdTable(
      [
        'corpus',
        'first AUC',
        'misleading features (first default)',
        'blend AUC',
        'still misleading (NOISE_WEIGHTS)',
      ],
      weak.map((r) => [
        r.corpus,
        r.blends['first default']!.auc,
        misleading(r.f, FIRST_NOISE_WEIGHTS),
        r.blends['NOISE_WEIGHTS']!.auc,
        misleading(r.f, NOISE_WEIGHTS),
      ]),
    );

  if (real === null)
    md += '\n\n(The real-page set was skipped: `article-extraction-benchmark` is not in the data folder.)';
  const blendMin = (rs: readonly NoiseResult[]): number =>
    Math.min(...rs.map((r) => r.blends['NOISE_WEIGHTS']!.auc));
  const surveysOk = gen.every((r) => r.blends['NOISE_WEIGHTS']!.surveysFlagged === 0);
  md +=
    `\n\nBars: unsupervised blend ≥ 0.95 on every generated corpus (${blendMin(gen) >= 0.95 ? 'met' : 'NOT met'}: min ${f3(blendMin(tun))} tuning, ${f3(blendMin(held))} held out), ` +
    `surveys unflagged (${surveysOk ? 'met' : 'NOT met'})` +
    (realR === undefined
      ? '.'
      : `, ≥ 0.85 on real pages (${realR.blends['NOISE_WEIGHTS']!.auc >= 0.85 ? 'met' : 'NOT met'}: ${f3(realR.blends['NOISE_WEIGHTS']!.auc)}); fitted held out ≥ 0.95 on real pages (${realR.fitted >= 0.95 ? 'met' : 'NOT met'}: ${f3(realR.fitted)}).`);

  md +=
    '\n\nWhy features behave differently here. The reference reports 0.988 (fixed blend) and 0.996 (fitted) with a semantic encoder; ' +
    'our built-in embedder hashes words and character n-grams, so its geometry is lexical. In the generated design boilerplate is 8 fixed lines ' +
    'repeated in ~48 paragraphs (boilerplate docs and glued tails), so under lexical hashing it forms the *tightest* cluster of the corpus: ' +
    'it pulls the corpus centroid towards itself (`off_centre` inverted) and its softmax over k-means centroids concentrates on the few centroids ' +
    'k-means gives it, while topical paragraphs spread over many similar topic centroids (`spread_chunk` inverted, and unstable across seeds because ' +
    "it depends on how many centroids the boilerplate cluster receives). A semantic encoder places boilerplate off every topic, which is the reference's orientation; " +
    'since the sign depends on the embedder, these two weigh 0 rather than being flipped. `hub` keeps its sign but is weak for the same reason ' +
    '(boilerplate is its own cluster, not a bridge between topics); on the weak seeds the clean documents outranking boilerplate were topical notes with the highest in-degree, so it is halved. ' +
    '`low_idf` does not use the embedder: mean idf over token occurrences is dominated by function words; the topical frames repeat the commonest ones (the, a, in) while the generated footers use ones the frames never use ' +
    '(this, our, your, we, no, or), and real boilerplate has fewer function words (about 25% of tokens vs 37% in article bodies), so boilerplate has the higher mean idf on both kinds of corpus and the feature is re-oriented (−0.3). ' +
    'What remains on the weakest seeds is generator randomness: a boilerplate doc whose shuffled lines happen to share no near-duplicate paragraph (`dup_out` 0) and that lacks the ' +
    '"Company No. 04512871." fragments that shorten its sentences (`mean_sentence_len`) ranks just below glued-tail notes, whose `boiler_lexicon` share is 0.2 but whose rank-normalised value is not far below the boilerplate docs\' 1.0. ' +
    'The generated boilerplate lines are lexicon hits by construction (`boiler_lexicon` AUC 1 everywhere), so its weight was not raised to chase these seeds. ' +
    'How it was chosen: the diagnosed steps above, then a check that nothing in the scanned family is better by more than seed noise (the best differs by ≤ 0.006 tuning min AUC, 1–3 of 512 boilerplate/clean pairs). Held-out aggregates of a handful of early candidates were seen while exploring; the choice used the tuning numbers. ' +
    '`promiscuity` is constant without a feedback log; `sentence_share` and `link_like` are constant on generated text (every line is a full sentence). ' +
    'On real pages the reference features are near chance (boilerplate from different sites does not repeat across documents), which is why the intrinsic features carry the blend there.';
  md +=
    '\n\nThe default threshold: the blend is a weighted mean of rank-z values over 14 columns, three of them constant on generated text, so a boilerplate document seldom reaches `minScore` 1.0 ' +
    'even when it ranks first (column `boiler ≥ 1.0 / ≥ 0.5` above); `suggest_noisy` with its defaults therefore suggests few documents on these corpora. The ranking (AUC) is what the bars measure. ' +
    'Lowering the default to 0.5 would catch nearly every boilerplate document but also suggest clean ones (column `others`: 2–8 of 64 per generated corpus, and on real pages 24 clean pages beside the 23 boilerplate ones), while at 1.0 no clean document is suggested on any corpus; since `noise accept` marks what suggest shows, 1.0 stays the default (precision first), and `--min-score 0.5` is there for a wider review.';
  writeSection('noise', md);
  return results;
}

if (import.meta.url === `file://${process.argv[1]}`) await benchNoise();
