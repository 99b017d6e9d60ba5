// Peers: quiver beside MiniSearch, Orama, wink-bm25-text-search, LanceDB's native full-text search
// and a plain BM25 reference, each configured as its documentation recommends, its options chosen on
// SciFact tuning queries and scored on held-out ones (and on Cranfield with the same choices).
// Latency is measured interleaved at top 10; build time, peak RSS and size each in a child process.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadBeir, type BeirSet } from '../src/evaluate/datasets/beir.js';
import { DEFAULT_PRNG_SEED } from '../src/math/prng.js';
import { cranfieldAsBeir } from './datasets/cranfield.js';
import { DATA_DIR, dataPath, OUT_DIR, writeSection } from './lib.js';
import { BASELINE, measureBuild, type BuildMeasure } from './peers/build-one.js';
import { loadCorpus } from './peers/corpus.js';
import { means, perQuery, rankAll, splitQueries } from './peers/evaluate.js';
import { interleavedLatency } from './peers/latency.js';
import { SYSTEMS } from './peers/registry.js';
import { renderPeers, type Run } from './peers/report.js';
import { replay, tune, type Tuned } from './peers/tune.js';
import type { Built } from './peers/types.js';
import { beirVault } from './retrieval-quality.js';

/** Judged SciFact queries held out for scoring when the data set ships only its train split. */
const HELD_OUT = 300;
/** Tuning queries run untimed through every system before the latency pass. */
const LATENCY_WARMUP = 100;
const BASELINE_SYSTEM = 'quiver-default';

const log = (line: string): void => void process.stderr.write(`${line}\n`);
const message = (e: unknown): string => (e instanceof Error ? e.message : String(e)).split('\n')[0]!;

/** SciFact's tuning and scoring query sets: train → test when the test split ships, else a split of train. */
function scifactSets(dir: string): { tune: BeirSet; score: BeirSet; label: string } {
  const train = loadBeir(dir, 'train');
  if (existsSync(join(dir, 'qrels', 'test.tsv'))) {
    const test = loadBeir(dir, 'test');
    return {
      tune: train,
      score: test,
      label: `options chosen on the train split (${train.queries.length} queries), scored on the test split (${test.queries.length} queries)`,
    };
  }
  const { tune: t, heldOut } = splitQueries(train, HELD_OUT, DEFAULT_PRNG_SEED);
  return {
    tune: t,
    score: heldOut,
    label: `only the train split ships here, so its ${train.queries.length} judged queries were split at random (seed ${DEFAULT_PRNG_SEED}): options chosen on ${t.queries.length}, scored on the other ${heldOut.queries.length}`,
  };
}

/** `fresh`: rebuild the quiver vaults of SciFact and Cranfield instead of reusing bench/out's. */
export async function benchPeers(fresh = false): Promise<void> {
  const scifact = dataPath('scifact');
  if (scifact === null) {
    writeSection('peers', `## Peers\n\nSkipped: SciFact not found under ${DATA_DIR}`);
    return;
  }
  mkdirSync(OUT_DIR, { recursive: true });
  const sets = scifactSets(scifact);
  const corpusPath = sets.tune.corpusPath;
  const docs = loadCorpus(corpusPath);
  const vault = beirVault('scifact', sets.tune, fresh);
  const workDir = mkdtempSync(join(tmpdir(), 'quiver-peers-'));
  const runs: Run[] = [];
  const closed = new Set<Built>();
  const close = async (b: Built): Promise<void> => {
    if (closed.has(b)) return;
    closed.add(b);
    await b.close();
  };
  try {
    // Tune on the tuning queries, then score the chosen configuration on the held-out ones.
    for (const [key, load] of Object.entries(SYSTEMS)) {
      const run: Run = {
        key,
        name: key,
        peer: null,
        tuned: null,
        error: null,
        scores: null,
        cranfield: null,
        cranfieldError: null,
        build: null,
        latency: [],
        latencyError: null,
      };
      runs.push(run);
      const t = performance.now();
      try {
        run.peer = await load();
        run.name = run.peer.name;
        run.tuned = await tune(run.peer, docs, { corpusPath, workDir, vault }, sets.tune, log);
        run.scores = perQuery(sets.score, await rankAll(run.tuned.variant, sets.score));
        log(
          `peers: ${run.name} [${run.tuned.variant.config}] nDCG@10 ${means(run.scores).ndcg10.toFixed(4)} (${((performance.now() - t) / 1000).toFixed(1)} s)`,
        );
      } catch (e) {
        run.error = message(e);
        log(`peers: ${run.name} failed: ${run.error}`);
      }
    }

    // Latency on SciFact, all systems interleaved in this process.
    const live = runs.filter((r): r is Run & { tuned: Tuned } => r.tuned !== null);
    const { times, errors } = await interleavedLatency(
      live.map((r) => ({ name: r.key, search: (q, k) => r.tuned.variant.search(q, k) })),
      sets.tune.queries.slice(0, LATENCY_WARMUP).map((q) => q.text),
      sets.score.queries.map((q) => q.text),
    );
    for (const r of live) {
      r.latencyError = errors.get(r.key) ?? null;
      r.latency = r.latencyError === null ? (times.get(r.key) ?? []) : [];
    }
    for (const r of live) await close(r.tuned.built);

    // Cranfield with the configurations chosen on SciFact.
    const cranDir = cranfieldAsBeir(DATA_DIR, join(OUT_DIR, 'cranfield-beir'));
    let cranLabel: string | null = null;
    if (cranDir !== null) {
      const cran = loadBeir(cranDir, 'test');
      cranLabel = `Cranfield (${cran.queries.length} queries, graded), SciFact's choices`;
      const cranDocs = loadCorpus(cran.corpusPath);
      const cranVault = beirVault('cranfield', cran, fresh);
      for (const r of live) {
        try {
          const { built, variant } = await replay(
            r.peer!,
            cranDocs,
            { corpusPath: cran.corpusPath, workDir, vault: cranVault },
            r.tuned.choice,
          );
          try {
            r.cranfield = perQuery(cran, await rankAll(variant, cran));
          } finally {
            await close(built);
          }
        } catch (e) {
          r.cranfieldError = message(e);
        }
      }
    }

    // Build time, peak RSS and size: each system's chosen build in a child process of its own.
    let baseline: BuildMeasure | string;
    try {
      baseline = measureBuild(BASELINE, 0, corpusPath);
    } catch (e) {
      baseline = message(e);
    }
    for (const r of live) {
      const shared = r.peer?.sharesBuildWith;
      const from = shared === undefined ? undefined : runs.find((o) => o.key === shared);
      if (from !== undefined && from.build !== null) {
        r.build = from.build;
        continue;
      }
      try {
        r.build = measureBuild(r.key, r.tuned.choice.build, corpusPath);
      } catch (e) {
        r.build = message(e);
      }
      log(`peers: built ${r.name} in a child: ${JSON.stringify(r.build)}`);
    }

    writeSection(
      'peers',
      renderPeers({
        runs,
        baseline: BASELINE_SYSTEM,
        setsLabel: sets.label,
        scored: sets.score.queries.length,
        tuning: sets.tune.queries.length,
        documents: docs.length,
        cranfieldLabel: cranLabel,
        corpusOnlyPeak: baseline,
        warmup: LATENCY_WARMUP,
      }),
    );
  } finally {
    for (const r of runs) if (r.tuned !== null) await close(r.tuned.built).catch(() => undefined);
    rmSync(workDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchPeers(process.argv.includes('--fresh'));
