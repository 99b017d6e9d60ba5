/**
 * Noise feature matrices through the library, cached: one vault per corpus built with `vault.add`
 * (built-in embedder, default chunker), features from `vault.quality.noiseFeatures()`. The
 * matrices are what the blend weights act on, so tuning (bench/noise-tune.ts) and the report
 * (bench/noise.ts) can compare many weight sets without re-ingesting.
 *
 *   node --import tsx bench/noise-features.ts     # dumps bench/out/noise-features.json
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { Vault } from '../src/index.js';
import { OUT_DIR, dataPath } from './lib.js';
import { loadRealNoiseCorpus, makeNoiseCorpus, type NoiseDoc, type NoiseLabel } from './noise-corpus.js';

/** Seeds used to choose the default blend weights (bench/noise-tune.ts). */
export const TUNING_SEEDS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] as const;
/** Seeds never looked at while tuning; the report's headline numbers. */
export const HELDOUT_SEEDS = [11, 12, 13, 14, 15, 16, 17, 18, 19, 20] as const;

/** One corpus's feature matrix with the label of every row. */
export interface CorpusFeatures {
  corpus: string;
  docIds: string[];
  names: string[];
  X: number[][];
  labels: NoiseLabel[];
}

/** A fresh vault (temp file) holding `docs` as notes; `label` maps the vault's doc ids to labels. */
export async function noiseVault(
  name: string,
  docs: readonly NoiseDoc[],
): Promise<{ vault: Vault; label: Map<string, NoiseLabel>; path: string }> {
  const path = join(tmpdir(), `quiver-bench-${name}-${process.pid}.db`);
  rmSync(path, { force: true });
  const vault = await Vault.open({ overrides: { vault: path, progress: false }, env: {} });
  const report = await vault.add(
    docs.map((d) => ({ text: d.text, title: d.title, source: `bench://${name}/${d.id}` })),
  );
  const byId = new Map(docs.map((d) => [`bench://${name}/${d.id}`, d.label]));
  const label = new Map<string, NoiseLabel>();
  for (const item of report.items)
    if (item.docId !== undefined) label.set(item.docId, byId.get(item.source)!);
  return { vault, label, path };
}

/** Close a bench vault and delete its files. */
export async function dropVault(vault: Vault, path: string): Promise<void> {
  await vault.close();
  for (const p of [path, `${path}-wal`, `${path}-shm`]) rmSync(p, { force: true });
}

/** The feature matrix of one corpus (ingests into a temp vault, then deletes it). */
export async function corpusFeatures(name: string, docs: readonly NoiseDoc[]): Promise<CorpusFeatures> {
  const { vault, label, path } = await noiseVault(name, docs);
  try {
    const f = await vault.quality.noiseFeatures();
    return {
      corpus: name,
      docIds: f.docIds,
      names: f.names,
      X: f.X,
      labels: f.docIds.map((d) => label.get(d)!),
    };
  } finally {
    await dropVault(vault, path);
  }
}

/** Feature matrices for generated seeds and (when the data is present) the real-page set. */
export async function allCorpusFeatures(
  seeds: readonly number[] = [...TUNING_SEEDS, ...HELDOUT_SEEDS],
  withReal = true,
): Promise<CorpusFeatures[]> {
  const out: CorpusFeatures[] = [];
  for (const s of seeds) out.push(await corpusFeatures(`generated-${s}`, makeNoiseCorpus(s).docs));
  const dir = withReal ? dataPath('article-extraction-benchmark') : null;
  const real = dir === null ? null : loadRealNoiseCorpus(dir);
  if (real !== null) out.push(await corpusFeatures('real-pages', real.docs));
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const t0 = performance.now();
  const all = await allCorpusFeatures();
  mkdirSync(OUT_DIR, { recursive: true });
  writeFileSync(join(OUT_DIR, 'noise-features.json'), JSON.stringify(all));
  process.stderr.write(
    `noise features: ${all.length} corpora in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
  );
}
