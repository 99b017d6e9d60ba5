// A 1M-chunk vault: peak memory of ingesting it (`/usr/bin/time -v`), ingest rate, the lexical
// index's build, and query latency of the lexical leg (own index and FTS5 ranking) and of fused
// search (exact vector scan, and HNSW with SCALE_ANN=1). Opt-in (`npm run bench -- scale`): it
// writes ~14 GB and takes half an hour on 2 cores.
//
//   SCALE_REUSE=1  keep the vault and ingest figures of an earlier run (bench/out/scale-ingest.json)
//   SCALE_ANN=1    also build the HNSW index (library defaults; most of an hour at 1M) and time
//                  fused search with it
import { availableParallelism } from 'node:os';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Vault } from '../src/index.js';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { syntheticCorpus } from './ingest-latency.js';
import { dataPath, machine, mdTable, OUT_DIR, quiverPeakMemory, timeSearches, writeSection } from './lib.js';

const TARGET = 1_000_000;
/** `ann.threshold` / `lexical.threshold` out of reach: exact scan, FTS5 ranking. */
const NEVER = Number.MAX_SAFE_INTEGER;

interface IngestFigures {
  seconds: number;
  peakMiB: number | null;
  chunks: number;
  fileGiB: number;
}

/** Ingest figures; null when an existing vault is reused without figures saved by this bench. */
function ingest(path: string, corpus: string): IngestFigures | null {
  const saved = join(OUT_DIR, 'scale-ingest.json');
  if (process.env.SCALE_REUSE === '1' && existsSync(path))
    return existsSync(saved) ? (JSON.parse(readFileSync(saved, 'utf8')) as IngestFigures) : null;
  for (const s of ['', '-wal', '-shm', '.lexical']) rmSync(path + s, { force: true });
  // The HNSW build is left out of ingest (ann.ts measures it at 1M; SCALE_ANN=1 below).
  process.env.QUIVER_ANN_THRESHOLD = String(NEVER);
  const t = performance.now();
  const peak = quiverPeakMemory(['add', corpus, '--vault', path, '--quiet', '--json']);
  delete process.env.QUIVER_ANN_THRESHOLD;
  const seconds = peak?.seconds ?? (performance.now() - t) / 1000;
  const figures: IngestFigures = {
    seconds,
    peakMiB: peak?.peakMiB ?? null,
    chunks: 0,
    fileGiB: statSync(path).size / 2 ** 30,
  };
  writeFileSync(saved, JSON.stringify(figures));
  return figures;
}

/** p50/p95 of queries 5 … 5 + n − 1 at limit 10, after queries 0–4 as warm-up. */
function timeQueries(
  v: Vault,
  queries: string[],
  n: number,
  o: Parameters<Vault['search']>[1],
): Promise<{ p50: number; p95: number }> {
  return timeSearches(v, queries.slice(0, 5), queries.slice(5, 5 + n), { limit: 10, ...o });
}

export async function benchScale(): Promise<void> {
  const corpus = syntheticCorpus(TARGET, 11);
  const path = join(OUT_DIR, `scale-${TARGET}.db`);
  const ing = ingest(path, corpus);
  const queries: string[] = [];
  const qf = dataPath('scifact', 'queries.jsonl');
  if (qf !== null)
    for (const l of readFileSync(qf, 'utf8').split('\n'))
      if (l.trim()) queries.push((JSON.parse(l) as { text: string }).text);
  while (queries.length < 60) queries.push(`measurement of sample ${queries.length} under condition`);

  // The lexical index: `quiver add` built and saved it; time a load by a new store, and a rebuild.
  const v = await Vault.open({ overrides: { vault: path, 'ann.threshold': NEVER } });
  const chunks = (await v.stats()).chunks;
  const store = v.store as SqliteStore;
  let t = performance.now();
  const loaded = await store.prepareLexicalIndex();
  const loadMs = performance.now() - t;
  const rss0 = process.memoryUsage().rss;
  const fileMiB = existsSync(`${path}.lexical`) ? statSync(`${path}.lexical`).size / 2 ** 20 : 0;
  const rows: (string | number)[][] = [];
  const topk = { select: { method: 'topk' as const } };
  const add = (name: string, r: { p50: number; p95: number }, n: number): void => {
    rows.push([name, n, r.p50.toFixed(1), r.p95.toFixed(1)]);
  };
  add(
    'lexical leg, no feedback',
    await timeQueries(v, queries, 50, { legs: 'lexical', feedbackWeight: 0, ...topk }),
    50,
  );
  add('lexical leg', await timeQueries(v, queries, 50, { legs: 'lexical', ...topk }), 50);
  add('fused (top-k), exact vector scan', await timeQueries(v, queries, 20, { legs: 'both', ...topk }), 20);
  await v.close();

  const fts = await Vault.open({
    overrides: { vault: path, 'ann.threshold': NEVER, 'lexical.threshold': NEVER },
  });
  add(
    'lexical leg, no feedback, FTS5 ranking',
    await timeQueries(fts, queries, 20, { legs: 'lexical', feedbackWeight: 0, ...topk }),
    20,
  );
  add('lexical leg, FTS5 ranking', await timeQueries(fts, queries, 20, { legs: 'lexical', ...topk }), 20);
  await fts.close();

  let ann = '';
  if (process.env.SCALE_ANN === '1') {
    const a = await Vault.open({ overrides: { vault: path } });
    t = performance.now();
    const st = (await (a.store as SqliteStore).prepareVectorIndex(a.embedder.id)) as {
      source: string | null;
    };
    const annS = (performance.now() - t) / 1000;
    const { native } = (a.store as SqliteStore).inspectVectorIndex(a.embedder.id);
    add('fused (top-k), HNSW vector leg', await timeQueries(a, queries, 50, { legs: 'both', ...topk }), 50);
    add('vector leg, HNSW', await timeQueries(a, queries, 50, { legs: 'vector', ...topk }), 50);
    add('default search (fused + Dartboard), HNSW', await timeQueries(a, queries, 50, {}), 50);
    await a.close();
    ann = ` HNSW index (M=${a.config['ann.m']}, efConstruction=${a.config['ann.efConstruction']}, efSearch=${a.config['ann.efSearch']}): ${st.source ?? '?'} in ${annS.toFixed(0)} s (hnswlib ${native.search}, ${native.parallelBuild ? `built on ${availableParallelism()} threads by the native builder` : 'built in process'}).`;
  }

  t = performance.now();
  rmSync(`${path}.lexical`, { force: true });
  const b = await Vault.open({ overrides: { vault: path, 'ann.threshold': NEVER } });
  await (b.store as SqliteStore).prepareLexicalIndex();
  const buildS = (performance.now() - t) / 1000;
  const rss1 = process.memoryUsage().rss;
  await b.close();

  const md =
    `## A 1M-chunk vault\n\nProduced by \`bench/scale.ts\` (opt-in: \`npm run bench -- scale\`). ${chunks.toLocaleString('en')} chunks of synthetic documents re-assembled from SciFact sentences, ingested by \`quiver add\` in a fresh process with the HNSW index off (its 1M build is in the ANN section). Machine: ${machine()}.\n\n` +
    (ing === null
      ? `Ingest: not measured in this run (an existing vault was reused with SCALE_REUSE=1). Vault file ${(statSync(path).size / 2 ** 30).toFixed(1)} GiB.\n\n`
      : `Ingest: ${ing.seconds.toFixed(0)} s (${Math.round(chunks / ing.seconds)} chunks/s including start-up and the lexical index build)` +
        (ing.peakMiB === null
          ? ''
          : `, peak resident memory ${ing.peakMiB.toFixed(0)} MiB (\`/usr/bin/time -v\`)`) +
        `. Vault file ${ing.fileGiB.toFixed(1)} GiB.\n\n`) +
    `Lexical index (${loaded.sections.toLocaleString('en')} sections): file ${fileMiB.toFixed(0)} MiB, ${loaded.source === 'loaded' ? 'loaded' : 'built (no current saved file)'} by a new store in ${(loadMs / 1000).toFixed(1)} s, rebuilt from FTS5 in ${buildS.toFixed(0)} s; process RSS ${(rss0 / 2 ** 20).toFixed(0)} MiB after the load, ${(rss1 / 2 ** 20).toFixed(0)} MiB after the rebuild.${ann}\n\n` +
    `Query latency, SciFact claims after 5 warm-up queries, milliseconds:\n\n${mdTable(['query', 'queries', 'p50', 'p95'], rows)}\n`;
  writeSection('scale', md);
}

if (import.meta.url === `file://${process.argv[1]}`) await benchScale();
