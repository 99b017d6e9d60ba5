/**
 * The noise experiment (quality-reference §7.2) through the library, with the vault's real
 * built-in embedder and chunker: one vault per corpus built with `vault.add`, features from
 * `vault.quality.noiseFeatures()`, the fitted blend from `vault.quality.fitNoise()` on marks.
 *
 * Corpora: generated seeds 0, 1, 2 of `makeNoiseCorpus` (72 docs: 60 content, 8 boilerplate,
 * 4 surveys) and the real-boilerplate set from the article-extraction benchmark
 * (`loadRealNoiseCorpus`, skipped when the data is missing).
 * Reports per-feature AUC (raw columns), the blended AUC (quiver's NOISE_WEIGHTS, the reference's
 * nine-feature weights, and the intrinsic features alone), surveys scoring ≥ 1.0, and the blend
 * fitted from 6 noise marks + 18 keepers, held out over 3 folds (AUC over the held-out fold plus
 * every unmarked document, folds averaged).
 *
 *   node --import tsx bench/noise.ts
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { auc } from '../src/quality/auc.js';
import { NOISE_WEIGHTS, REFERENCE_NOISE_WEIGHTS } from '../src/quality/noise/blend.js';
import { INTRINSIC_FEATURES } from '../src/quality/noise/intrinsic.js';
import { rankNormalize } from '../src/quality/noise/primitives.js';
import type { NoiseFeatureMatrix } from '../src/quality/noise/features.js';
import { Prng } from '../src/quality/prng.js';
import { Vault } from '../src/index.js';
import { dataPath, mdTable, mean, writeSection } from './lib.js';
import { loadRealNoiseCorpus, makeNoiseCorpus, type NoiseDoc } from './noise-corpus.js';

export const N_NOISE_MARKS = 6;
export const N_KEEPER_MARKS = 18;
export const FOLDS = 3;

const INTRINSIC_ONLY: Record<string, number> = Object.fromEntries(
  Object.entries(NOISE_WEIGHTS).filter(([n]) => (INTRINSIC_FEATURES as readonly string[]).includes(n)),
);

/** Ablations of NOISE_WEIGHTS: features that may not carry over from stand-in to real embeddings. */
export const ABLATIONS: Record<string, Readonly<Record<string, number>>> = {
  NOISE_WEIGHTS: NOISE_WEIGHTS,
  '− spread_chunk': { ...NOISE_WEIGHTS, spread_chunk: 0 },
  '− low_idf': { ...NOISE_WEIGHTS, low_idf: 0 },
  '− spread_chunk − low_idf': { ...NOISE_WEIGHTS, spread_chunk: 0, low_idf: 0 },
  '− hub': { ...NOISE_WEIGHTS, hub: 0 },
};

/** A fresh vault (temp file) holding `docs` as notes; `label` maps the vault's doc ids to labels. */
export async function noiseVault(
  name: string,
  docs: readonly NoiseDoc[],
): Promise<{ vault: Vault; label: Map<string, NoiseDoc['label']>; path: string }> {
  const path = join(tmpdir(), `quiver-bench-${name}-${process.pid}.db`);
  rmSync(path, { force: true });
  const vault = await Vault.open({ overrides: { vault: path, progress: false }, env: {} });
  const report = await vault.add(
    docs.map((d) => ({ text: d.text, title: d.title, source: `bench://${name}/${d.id}` })),
  );
  const byId = new Map(docs.map((d) => [`bench://${name}/${d.id}`, d.label]));
  const label = new Map<string, NoiseDoc['label']>();
  for (const item of report.items)
    if (item.docId !== undefined) label.set(item.docId, byId.get(item.source)!);
  return { vault, label, path };
}

function blendScores(f: NoiseFeatureMatrix, weights: Readonly<Record<string, number>>): number[] {
  const Z = rankNormalize(f.X);
  const w = f.names.map((n) => weights[n] ?? 0);
  const total = w.reduce((a, b) => a + Math.abs(b), 0) || 1;
  return Z.map((z) => z.reduce((a, v, j) => a + v * w[j]!, 0) / total);
}

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
  docs: number;
  noise: number;
  features: Record<string, number>;
  blend: number;
  reference: number;
  intrinsic: number;
  surveysFlagged: number;
  surveys: number;
  ablations: Record<string, { auc: number; surveys: number }>;
  fitted: number;
  ms: number;
}

/** Everything for one corpus. `seed` seeds the choice of marks (Prng(7 + seed)). */
export async function evaluateCorpus(
  name: string,
  docs: readonly NoiseDoc[],
  seed: number,
): Promise<NoiseResult> {
  const t0 = performance.now();
  const { vault, label, path } = await noiseVault(name, docs);
  try {
    const f = await vault.quality.noiseFeatures();
    const y = f.docIds.map((d) => (label.get(d) === 'boiler' ? 1 : 0));
    const features: Record<string, number> = {};
    f.names.forEach(
      (n, j) =>
        (features[n] = auc(
          f.X.map((r) => r[j]!),
          y,
        )),
    );
    const blend = blendScores(f, NOISE_WEIGHTS);
    const surveys = f.docIds
      .map((d, i) => [label.get(d), blend[i]!] as const)
      .filter(([l]) => l === 'survey');

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
        .map((d, i) => i)
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
      docs: f.docIds.length,
      noise: y.filter((v) => v === 1).length,
      features,
      blend: auc(blend, y),
      reference: auc(blendScores(f, REFERENCE_NOISE_WEIGHTS), y),
      intrinsic: auc(blendScores(f, INTRINSIC_ONLY), y),
      surveysFlagged: surveys.filter(([, s]) => s >= 1.0).length,
      surveys: surveys.length,
      ablations: Object.fromEntries(
        Object.entries(ABLATIONS).map(([n, w]) => {
          const b = blendScores(f, w);
          const sv = f.docIds.filter((d, i) => label.get(d) === 'survey' && b[i]! >= 1.0).length;
          return [n, { auc: auc(b, y), surveys: sv }];
        }),
      ),
      fitted: mean(foldAuc),
      ms: performance.now() - t0,
    };
  } finally {
    await vault.close();
    rmSync(path, { force: true });
    rmSync(`${path}-wal`, { force: true });
    rmSync(`${path}-shm`, { force: true });
  }
}

export async function benchNoise(): Promise<NoiseResult[]> {
  const results: NoiseResult[] = [];
  for (const seed of [0, 1, 2]) {
    results.push(await evaluateCorpus(`generated-${seed}`, makeNoiseCorpus(seed).docs, seed));
    process.stderr.write(`noise: generated seed ${seed} done\n`);
  }
  const dir = dataPath('article-extraction-benchmark');
  const real = dir === null ? null : loadRealNoiseCorpus(dir);
  if (real !== null) {
    results.push(await evaluateCorpus('real-pages', real.docs, 0));
    process.stderr.write('noise: real pages done\n');
  }
  const names = Object.keys(results[0]!.features);
  let md =
    '## Noise score (built-in embedder)\n\n' +
    'Each corpus is ingested into its own vault with `vault.add` (built-in hashing embedder, default chunker); features come from `vault.quality.noiseFeatures()` and AUC treats the boilerplate documents as positives. ' +
    "`blend` is quiver's default `NOISE_WEIGHTS`, `reference` the reference's nine-feature weights, `intrinsic` the content-intrinsic features alone. `fitted` is `vault.quality.fitNoise()` on 6 noise marks + 18 keepers, held out over 3 folds (AUC over the held-out fold plus every unmarked document).\n\n" +
    mdTable(
      [
        'corpus',
        'docs',
        'noise',
        'blend AUC',
        'reference AUC',
        'intrinsic AUC',
        'fitted AUC (held out)',
        'surveys ≥ 1.0',
        'seconds',
      ],
      results.map((r) => [
        r.corpus,
        r.docs,
        r.noise,
        r.blend,
        r.reference,
        r.intrinsic,
        r.fitted,
        `${r.surveysFlagged}/${r.surveys}`,
        (r.ms / 1000).toFixed(1),
      ]),
    ) +
    '\n\nPer-feature AUC (raw column, larger = noisier):\n\n' +
    mdTable(
      ['feature', ...results.map((r) => r.corpus)],
      names.map((n) => [n, ...results.map((r) => r.features[n]!)]),
    );
  md +=
    '\n\nAblations of the default weights (blend AUC; surveys scoring ≥ 1.0 in brackets):\n\n' +
    mdTable(
      ['weights', ...results.map((r) => r.corpus)],
      Object.keys(ABLATIONS).map((n) => [
        n,
        ...results.map((r) => `${r.ablations[n]!.auc.toFixed(3)} (${r.ablations[n]!.surveys})`),
      ]),
    );
  if (real === null)
    md += '\n\n(The real-page set was skipped: `article-extraction-benchmark` is not in the data folder.)';
  const gen = results.filter((r) => r.corpus.startsWith('generated'));
  const realR = results.find((r) => r.corpus === 'real-pages');
  md +=
    `\n\nBars: unsupervised blend ≥ 0.95 on every generated corpus (${gen.every((r) => r.blend >= 0.95) ? 'met' : 'NOT met'}: min ${Math.min(...gen.map((r) => r.blend)).toFixed(3)}), ` +
    `surveys unflagged (${gen.every((r) => r.surveysFlagged === 0) ? 'met' : 'NOT met'})` +
    (realR === undefined
      ? '.'
      : `, ≥ 0.85 on real pages (${realR.blend >= 0.85 ? 'met' : 'NOT met'}: ${realR.blend.toFixed(3)}); fitted held out ≥ 0.95 on real pages (${realR.fitted >= 0.95 ? 'met' : 'NOT met'}: ${realR.fitted.toFixed(3)}).`);
  md +=
    '\n\nThe reference reports 0.988 (fixed blend) and 0.996 (fitted) on its generated corpora with a semantic ' +
    'encoder. Where our features behave differently, the embedder is why: the built-in embedder hashes words and ' +
    'character n-grams, so its geometry is lexical, not topical. `spread_chunk` (entropy over k-means topics) and ' +
    '`off_centre` come out inverted here: footer and cookie lines share many common character n-grams with every ' +
    'document, so they sit near the corpus centroid and between lexical clusters, while topical paragraphs sit far ' +
    "from it; the reference's encoder places boilerplate off-topic instead. `low_idf` is inverted on the generated " +
    "corpora, most likely because each topic's ten vocabulary terms recur in every document of that topic while the boilerplate " +
    'lines are a small fixed set that only the noise documents and glued tails use. `promiscuity` is constant without ' +
    'a feedback log. On real pages the reference features are near chance (boilerplate from different sites does ' +
    'not repeat across documents), which is why the intrinsic features carry the blend.';
  writeSection('noise', md);
  return results;
}

if (import.meta.url === `file://${process.argv[1]}`) await benchNoise();
