// ANN benchmark: HNSW (src/store/sqlite/hnsw-index.ts) against the exact scan (VectorMatrix.scanExact) on
// vectors derived from real text, at 100k and 1M chunks.
//
//   node --import tsx bench/ann.ts            # ANN_SIZES=100000,1000000 ANN_QUERIES=200 by default
//   ANN_SIZES=100000 node --import tsx bench/ann.ts
//
// Data: the SciFact corpus cut with chunkText and embedded with the built-in hashing embedder (512
// dims) gives the first ~20k rows; the rest are re-embedded random recombinations of real SciFact
// sentences (3+ sentences from random documents, ~350–600 characters, one seeded PRNG per row), so
// they spread like text rather than forming tight clusters. Queries are SciFact claims. Vectors,
// exact top-10s and built indexes are cached in bench/out/ (gitignored); ANN_REBUILD=1 rebuilds.
import {
  closeSync,
  ftruncateSync,
  rmSync,
  existsSync,
  openSync,
  readFileSync,
  readSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fork } from 'node:child_process';
import { createHashingEmbedder } from '../src/embed/hashing.js';
import { chunkText } from '../src/ingest/chunk.js';
import { HnswIndex, DEFAULT_HNSW_EF_CONSTRUCTION, DEFAULT_HNSW_M } from '../src/store/sqlite/hnsw-index.js';
import type { HnswParams } from '../src/store/sqlite/hnsw-index.js';
import { hnswNative } from '../src/store/sqlite/hnsw-native.js';
import { VectorMatrix } from '../src/store/sqlite/vector-cache.js';
import { dataPath, machine, mdTable, OUT_DIR, percentile, writeSection } from './lib.js';
import { mulberry32 } from '../src/math/mulberry32.js';

const DIMS = 512;
const GEN_VERSION = 'recombine-v1';
const EF_SWEEP = [32, 64, 128, 256, 384, 512, 768, 1024, 2048];
/** efSearch values also timed on the stock hnswlib-node build, for the same-run ratio. */
const STOCK_EF_SWEEP = [128, 256, 512, 1024];
const K = 10;
/** efSearch of the filtered run. */
const FILTER_EF = 256;
/** The recall bar of the issue: the cheapest efSearch reaching it is reported per index. */
const RECALL_BAR = 0.95;
/**
 * Graph parameters built at every size: `ANN_CONFIGS="M/efConstruction,…"`; by default hnswlib's
 * usual M=16 and the denser M=32 quiver defaults to, the trade-off that matters as the vault grows.
 */
function buildConfigs(): Pick<HnswParams, 'm' | 'efConstruction'>[] {
  const defaults = `16/${DEFAULT_HNSW_EF_CONSTRUCTION},${DEFAULT_HNSW_M}/${DEFAULT_HNSW_EF_CONSTRUCTION}`;
  const spec = process.env.ANN_CONFIGS ?? defaults;
  const configs = spec.split(',').map((c) => {
    const [m, efConstruction] = c.split('/').map(Number);
    return { m: m!, efConstruction: efConstruction! };
  });
  // One entry per distinct pair (the defaults may coincide with the comparison point).
  return configs.filter(
    (c, i) => configs.findIndex((d) => d.m === c.m && d.efConstruction === c.efConstruction) === i,
  );
}

interface Corpus {
  chunks: string[];
  sentences: string[];
}

function loadCorpus(path: string): Corpus {
  const chunks: string[] = [];
  const sentences: string[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const d = JSON.parse(line) as { title: string; text: string };
    chunks.push(...chunkText(`${d.title}\n\n${d.text}`));
    for (const s of d.text.split(/(?<=[.!?])\s+(?=[A-Z0-9(])/)) if (s.length >= 30) sentences.push(s.trim());
  }
  return { chunks, sentences };
}

/** Row i ≥ #chunks: real sentences from random documents, joined until ≥ 350 characters. */
function recombined(c: Corpus, row: number): string {
  const r = mulberry32(0x9e3779b9 ^ row);
  let text = '';
  while (text.length < 350)
    text += (text === '' ? '' : ' ') + c.sentences[Math.floor(r() * c.sentences.length)]!;
  return text.slice(0, 600);
}

function textOf(c: Corpus, row: number): string {
  return row < c.chunks.length ? c.chunks[row]! : recombined(c, row);
}

// ---- child processes: embedding rows and exact top-k, split over the 2 cores ----
// (Processes, not worker threads: tsx's loader hooks do not reach workers reliably on Node 20.)

type Task =
  | { kind: 'embed'; corpusPath: string; start: number; end: number; file: string }
  | {
      kind: 'truth';
      rows: number;
      file: string;
      queriesFile: string;
      start: number;
      end: number;
      outFile: string;
    };

function readFloats(file: string, count: number): Float32Array {
  const out = new Float32Array(count);
  const bytes = new Uint8Array(out.buffer);
  const fd = openSync(file, 'r');
  for (let off = 0; off < bytes.byteLength;) {
    const n = readSync(fd, bytes, off, Math.min(1 << 28, bytes.byteLength - off), off);
    if (n === 0) throw new Error(`ann: ${file} is shorter than ${bytes.byteLength} bytes`);
    off += n;
  }
  closeSync(fd);
  return out;
}

function runTask(task: Task): void {
  if (task.kind === 'embed') {
    const c = loadCorpus(task.corpusPath);
    const e = createHashingEmbedder({ dims: DIMS });
    const fd = openSync(task.file, 'r+');
    const batch = 1024;
    const buf = new Float32Array(batch * DIMS);
    for (let row = task.start; row < task.end; row += batch) {
      const n = Math.min(batch, task.end - row);
      for (let i = 0; i < n; i++) buf.set(e.embedOne(textOf(c, row + i)), i * DIMS);
      writeSync(fd, new Uint8Array(buf.buffer, 0, n * DIMS * 4), 0, n * DIMS * 4, row * DIMS * 4);
      if ((row - task.start) % (batch * 32) === 0)
        log(`embedded rows ${task.start}…${row + n} of ${task.start}…${task.end}`);
    }
    closeSync(fd);
  } else {
    const data = readFloats(task.file, task.rows * DIMS);
    const m = new VectorMatrix(new Float64Array(task.rows), [], [], data, DIMS);
    const qs = (JSON.parse(readFileSync(task.queriesFile, 'utf8')) as number[][]).slice(task.start, task.end);
    writeFileSync(
      task.outFile,
      JSON.stringify(qs.map((q) => m.scanExact(Float32Array.from(q), K).map((h) => h.index))),
    );
  }
}

function runChild(task: Task): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), ['--ann-task', JSON.stringify(task)], {
      execArgv: ['--import', 'tsx'],
    });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`ann child exited with ${code}`))));
  });
}

function log(msg: string): void {
  process.stderr.write(`ann: ${msg}\n`);
}

/** The first `rows` generated vectors, from the cache when it holds enough, else generated (and cached). */
const vectorsFile = join(OUT_DIR, 'ann-vectors.f32');

async function vectors(corpusPath: string, c: Corpus, rows: number, key: string): Promise<Float32Array> {
  const file = vectorsFile;
  const metaFile = `${file}.json`;
  if (existsSync(metaFile) && existsSync(file)) {
    const meta = JSON.parse(readFileSync(metaFile, 'utf8')) as { key: string; rows: number };
    if (meta.key === key && meta.rows >= rows && statSync(file).size >= rows * DIMS * 4) {
      const out = readFloats(file, rows * DIMS);
      log(`read ${rows} cached vectors`);
      return out;
    }
  }
  const t = performance.now();
  writeFileSync(metaFile, JSON.stringify({ key, rows: 0 }));
  const fd = openSync(file, 'w');
  ftruncateSync(fd, rows * DIMS * 4);
  closeSync(fd);
  const half = Math.ceil(rows / 2);
  await Promise.all([
    runChild({ kind: 'embed', corpusPath, start: 0, end: half, file }),
    runChild({ kind: 'embed', corpusPath, start: half, end: rows, file }),
  ]);
  writeFileSync(metaFile, JSON.stringify({ key, rows }));
  log(
    `embedded ${rows} rows in ${((performance.now() - t) / 1000).toFixed(0)} s (${c.chunks.length} real chunks)`,
  );
  return readFloats(file, rows * DIMS);
}

/** Exact top-10 row indices per query over the first `rows` rows (cached). */
async function exactTruth(rows: number, queries: Float32Array[], key: string): Promise<number[][]> {
  const file = join(OUT_DIR, `ann-truth-${rows}.json`);
  if (existsSync(file)) {
    const cached = JSON.parse(readFileSync(file, 'utf8')) as { key: string; truth: number[][] };
    if (cached.key === key && cached.truth.length === queries.length) return cached.truth;
  }
  const t = performance.now();
  const queriesFile = join(OUT_DIR, 'ann-queries.json');
  writeFileSync(queriesFile, JSON.stringify(queries.map((q) => Array.from(q))));
  const half = Math.ceil(queries.length / 2);
  const parts = [join(OUT_DIR, 'ann-truth-a.tmp.json'), join(OUT_DIR, 'ann-truth-b.tmp.json')];
  await Promise.all([
    runChild({
      kind: 'truth',
      rows,
      file: vectorsFile,
      queriesFile,
      start: 0,
      end: half,
      outFile: parts[0]!,
    }),
    runChild({
      kind: 'truth',
      rows,
      file: vectorsFile,
      queriesFile,
      start: half,
      end: queries.length,
      outFile: parts[1]!,
    }),
  ]);
  const truth = parts.flatMap((p) => JSON.parse(readFileSync(p, 'utf8')) as number[][]);
  for (const p of parts) rmSync(p);
  log(
    `exact top-${K} for ${queries.length} queries over ${rows} rows in ${((performance.now() - t) / 1000).toFixed(0)} s`,
  );
  writeFileSync(file, JSON.stringify({ key, truth }));
  return truth;
}

const mb = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(0)} MB`;
const ms = (x: number): string => x.toFixed(2);

interface SizeResult {
  md: string;
}

async function benchSize(
  data: Float32Array,
  rows: number,
  queries: Float32Array[],
  key: string,
): Promise<SizeResult> {
  const view = data.subarray(0, rows * DIMS);
  const labels = Int32Array.from({ length: rows }, (_, i) => i);
  // Exact scan latency (main thread, 20 queries) and the exact top-10s (workers, cached).
  const m = new VectorMatrix(Float64Array.from(labels), [], [], view, DIMS);
  // Also the exact scores at ranks 1, 10 and 100: how far apart the true neighbours are.
  const gap: number[][] = [];
  const exactMs = queries.slice(0, 20).map((q) => {
    const t = performance.now();
    const top = m.scanExact(q, 100);
    const elapsed = performance.now() - t;
    gap.push([top[0]?.score ?? NaN, top[9]?.score ?? NaN, top[99]?.score ?? NaN]);
    return elapsed;
  });
  const meanAt = (r: number): string => (gap.reduce((a, g) => a + g[r]!, 0) / gap.length).toFixed(3);
  const truth = await exactTruth(rows, queries, key);

  const parts: string[] = [
    `### ${rows.toLocaleString('en')} chunks`,
    '',
    `Exact scan p50 ${ms(percentile(exactMs, 50))} ms (p95 ${ms(percentile(exactMs, 95))} ms, ${exactMs.length} queries, top 100). Mean exact cosine at rank 1 / 10 / 100: ${meanAt(0)} / ${meanAt(1)} / ${meanAt(2)}.`,
    '',
  ];
  const summary: (string | number)[][] = [];
  for (const params of buildConfigs())
    parts.push(await benchIndex(view, rows, labels, queries, truth, m, key, params, summary), '');
  parts.push(
    `Cheapest efSearch reaching recall@${K} ≥ ${RECALL_BAR} per index and search binding (from the sweeps above):`,
    '',
    mdTable(['index', 'search binding', 'efSearch', `recall@${K}`, 'p50 ms', 'p95 ms'], summary),
  );
  return { md: parts.join('\n') };
}

interface BuildStats {
  buildMs: number;
  rssDelta: number;
  saveMs: number;
  origin: string;
  threads: number;
  builderPeakRss: number | null;
}

async function benchIndex(
  view: Float32Array,
  rows: number,
  labels: Int32Array,
  queries: Float32Array[],
  truth: number[][],
  m: VectorMatrix,
  key: string,
  params: Pick<HnswParams, 'm' | 'efConstruction'>,
  summary: (string | number)[][],
): Promise<string> {
  const tag = `m${params.m}-efc${params.efConstruction}`;
  const path = join(OUT_DIR, `ann-${rows}-${tag}.hnsw`);
  const statsFile = `${path}.build.json`;
  const identity = { fingerprint: key, dims: DIMS, stamp: `${rows}` };
  let built: BuildStats | null = null;
  const cachedFirst = process.env.ANN_REBUILD === '1' ? null : await HnswIndex.loadOrNull(path, identity);
  const cachedStats = existsSync(statsFile)
    ? (JSON.parse(readFileSync(statsFile, 'utf8')) as Partial<BuildStats>)
    : null;
  // Indexes from before the parallel builder have no `origin` in their stats: rebuild them.
  if (cachedFirst?.index === null || cachedFirst === null || cachedStats?.origin === undefined) {
    const rss0 = process.memoryUsage().rss;
    const t = performance.now();
    let lastLog = t;
    const threads = availableParallelism();
    const ix = await HnswIndex.build(labels, view, {
      ...identity,
      params,
      threads,
      batchSize: 4096,
      onProgress: (done, total) => {
        const now = performance.now();
        if (now - lastLog > 30_000) {
          lastLog = now;
          log(`${rows} ${tag}: built ${done}/${total} (${((done / (now - t)) * 1000).toFixed(0)}/s)`);
        }
      },
    });
    const buildMs = performance.now() - t;
    const rssDelta = process.memoryUsage().rss - rss0;
    const t2 = performance.now();
    await ix.save(path);
    built = {
      buildMs,
      rssDelta,
      saveMs: performance.now() - t2,
      origin: ix.origin,
      threads: ix.origin === 'parallel-build' ? threads : 1,
      builderPeakRss: ix.builderPeakRss,
    };
    writeFileSync(statsFile, JSON.stringify(built));
    log(`${rows} ${tag}: built in ${(buildMs / 1000).toFixed(0)} s (${ix.origin})`);
  }
  const stats = built ?? (cachedStats as BuildStats);
  const tl = performance.now();
  const loaded = await HnswIndex.loadOrNull(path, identity);
  const loadMs = performance.now() - tl;
  if (loaded.index === null) throw new Error(`ann: reloading ${path} failed: ${loaded.message}`);
  const nat = hnswNative();

  const measure = (
    index: HnswIndex,
    ef: number,
    qs: Float32Array[],
    want: number[][],
    filter?: (l: number) => boolean,
  ): { recall: number; p50: number; p95: number } => {
    index.efSearch = ef;
    for (const q of qs.slice(0, 10)) index.search(q, K, filter); // warm-up
    const times: number[] = [];
    let hit = 0;
    qs.forEach((q, i) => {
      const t = performance.now();
      const got = index.search(q, K, filter);
      times.push(performance.now() - t);
      const w = new Set(want[i]);
      for (const h of got) if (w.has(h.chunkId)) hit++;
    });
    return { recall: hit / (qs.length * K), p50: percentile(times, 50), p95: percentile(times, 95) };
  };
  const row = (
    label: string | number,
    r: { recall: number; p50: number; p95: number },
  ): (string | number)[] => [label, r.recall.toFixed(3), ms(r.p50), ms(r.p95)];
  const label = `${rows.toLocaleString('en')}, M=${params.m}, efC=${params.efConstruction}`;
  const cheapest = (
    binding: string,
    sweep: [number, { recall: number; p50: number; p95: number }][],
  ): void => {
    const hit = sweep.find(([, r]) => r.recall >= RECALL_BAR);
    summary.push(
      hit === undefined
        ? [label, binding, `none ≤ ${sweep.at(-1)![0]}`, '', '', '']
        : [label, binding, hit[0], hit[1].recall.toFixed(3), ms(hit[1].p50), ms(hit[1].p95)],
    );
  };
  const sweep = EF_SWEEP.map(
    (ef) => [ef, measure(loaded.index, ef, queries, truth)] as [number, ReturnType<typeof measure>],
  );
  cheapest(nat.search, sweep);
  const rowsOut = sweep.map(([ef, r]) => row(ef, r));
  // A filter letting half the chunks through, applied inside the walk; the exact truth is filtered too.
  const even = (l: number): boolean => l % 2 === 0;
  const fq = queries.slice(0, 30);
  const filteredTruth = fq.map((q) => m.scan(q, K, even).map((h) => h.index));
  rowsOut.push(
    row(
      `${FILTER_EF}, filter: even ids (${fq.length} queries)`,
      measure(loaded.index, FILTER_EF, fq, filteredTruth, even),
    ),
  );
  // The same file on hnswlib-node's stock build, in the same run, when the accelerated one is in use.
  let stockMd = '';
  if (nat.search === 'accelerated') {
    const stock = await HnswIndex.loadOrNull(path, identity, { native: false });
    if (stock.index === null) throw new Error(`ann: stock reload of ${path} failed: ${stock.message}`);
    const stockSweep = STOCK_EF_SWEEP.map(
      (ef) => [ef, measure(stock.index, ef, queries, truth)] as [number, ReturnType<typeof measure>],
    );
    cheapest('stock', stockSweep);
    const ratio = STOCK_EF_SWEEP.map((ef) => {
      const a = sweep.find(([e]) => e === ef)?.[1].p50 ?? NaN;
      const b = stockSweep.find(([e]) => e === ef)![1].p50;
      return `${(b / a).toFixed(1)}× at ${ef}`;
    });
    stockMd = [
      '',
      `Same file on the stock hnswlib-node build (p50 stock / accelerated: ${ratio.join(', ')}):`,
      '',
      mdTable(
        ['efSearch', `recall@${K} vs exact`, 'p50 ms', 'p95 ms'],
        stockSweep.map(([ef, r]) => row(ef, r)),
      ),
    ].join('\n');
  }
  const fileBytes = statSync(path).size;
  const builder =
    stats.origin === 'parallel-build'
      ? `native parallel builder on ${stats.threads} threads, builder peak RSS ${stats.builderPeakRss === null ? '?' : mb(stats.builderPeakRss)}`
      : 'in process, one insert at a time';
  return [
    `#### ${label}`,
    '',
    `Build ${(stats.buildMs / 1000).toFixed(0)} s (${((rows / stats.buildMs) * 1000).toFixed(0)} vectors/s; ${builder}; this process RSS +${mb(stats.rssDelta)}), file ${mb(fileBytes)}, save ${(stats.saveMs / 1000).toFixed(1)} s, load with checksum ${(loadMs / 1000).toFixed(1)} s. Search on the ${nat.search} hnswlib build.${built === null ? ' (Index built on an earlier run; build figures from that run.)' : ''}`,
    '',
    mdTable(['efSearch', `recall@${K} vs exact`, 'p50 ms', 'p95 ms'], rowsOut),
    stockMd,
  ].join('\n');
}

export async function benchAnn(): Promise<void> {
  const corpusPath = dataPath('scifact', 'corpus.jsonl');
  const queriesPath = dataPath('scifact', 'queries.jsonl');
  if (corpusPath === null || queriesPath === null) {
    writeSection('ann', '## ANN (HNSW) vs exact scan\n\nSkipped: SciFact not found under $QUIVER_DATA.');
    return;
  }
  const sizes = (process.env.ANN_SIZES ?? '100000,1000000').split(',').map(Number);
  const nQueries = Number(process.env.ANN_QUERIES ?? 200);
  const c = loadCorpus(corpusPath);
  const embedder = createHashingEmbedder({ dims: DIMS });
  const key = `${embedder.id}:${GEN_VERSION}:${c.chunks.length}:${c.sentences.length}`;
  const claims = readFileSync(queriesPath, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => (JSON.parse(l) as { text: string }).text);
  const step = Math.max(1, Math.floor(claims.length / nQueries));
  const queries = claims
    .filter((_, i) => i % step === 0)
    .slice(0, nQueries)
    .map((t) => embedder.embedOne(t));
  const data = await vectors(corpusPath, c, Math.max(...sizes), key);
  const parts: string[] = [];
  const intro = { chunks: c.chunks.length, sentences: c.sentences.length, queries: queries.length };
  for (const n of sizes) {
    log(`size ${n}`);
    parts.push((await benchSize(data, n, queries, key)).md);
    write(intro, parts); // after each size, so a long 1M run leaves the 100k results behind
  }
}

function write(intro: { chunks: number; sentences: number; queries: number }, parts: string[]): void {
  const load = loadavg()
    .map((x) => x.toFixed(1))
    .join(' / ');
  writeSection(
    'ann',
    [
      '## ANN (HNSW) vs exact scan',
      '',
      `Produced by \`bench/ann.ts\`. Vectors: the built-in hashing embedder (${DIMS} dims) over ${intro.chunks.toLocaleString('en')} real SciFact chunks (\`chunkText\`), then re-embedded random recombinations of ${intro.sentences.toLocaleString('en')} real SciFact sentences (≥ 350 characters each, sentences drawn from random documents) up to each size — re-embedded text, not perturbed copies, so rows do not form tight clusters. Queries: ${intro.queries} SciFact claims. Recall@${K} is the share of the exact scan's top ${K} (\`VectorMatrix.scan\`) that HNSW returns. Space \`ip\` (unit vectors). Latency is one query at a time on the main thread, including the Float32Array → array copy. Indexes are built by \`HnswIndex.build\` as a vault builds them: on every core by the native builder when the install compiled it (\`scripts/build-native.mjs\`), and searched on the hnswlib build compiled for this CPU, with the stock hnswlib-node build timed on the same file for comparison. Machine: ${machine()}; load average at the end ${load}.`,
      '',
      ...parts.flatMap((p) => [p, '']),
    ].join('\n'),
  );
}

if (process.argv[2] === '--ann-task') {
  runTask(JSON.parse(process.argv[3]!) as Task);
} else if (import.meta.url === `file://${process.argv[1]}`) {
  await benchAnn();
}
