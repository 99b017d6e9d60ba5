/**
 * Benchmark of the built-in hashing embedder on SciFact (a script, not a test):
 *   node --import tsx bench/embedders.ts [--data <dir>] [--runs 5] [--throughput-only] [--write]
 * Run directly it only prints (`--write` also stores the section for bench/RESULTS.md, as
 * `npm run bench -- embedders` does); `--throughput-only` skips geometry and retrieval.
 *
 * For each variant it prints
 *   - throughput: chunks/s, median of `runs` passes over ~20k chunks of ~512 characters cut from
 *     the abstracts (one core, synchronous `embedOne`), by wall clock and by the process's CPU time
 *     (the latter is steadier on a shared machine: time spent waiting for a core is not counted);
 *   - near-duplicate geometry: cosine between a ~512-character passage and a lightly edited copy
 *     (one sentence dropped / two words swapped / one number changed): mean and 5th percentile;
 *     cosine between unrelated passages: mean and 95th percentile; the margin p5(near) − p95(far);
 *   - a first look at retrieval: nDCG@10 and recall@100 of brute-force cosine over title + abstract
 *     on the SciFact train claims (the lead's retrieval bench is the reference; this only ranks variants).
 * Data comes from `--data`, `QUIVER_DATA` or `../shared/data`; a missing folder is reported and skipped.
 */
import { mdTable, writeSection } from './lib.js';
import { makeEdits, quantile } from './near-dup-edits.js';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createHashingEmbedder, hashingFeatureOptions } from '../src/embed/hashing.js';
import type { HashingEmbedderOptions } from '../src/embed/hashing.js';
import { fitHashingIdf } from '../src/embed/hashing-idf.js';
import { dot } from '../src/math/vector.js';

interface Doc {
  id: string;
  title: string;
  text: string;
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? undefined : process.argv[i + 1];
}

const dataDir = resolve(
  arg('data') ?? process.env['QUIVER_DATA'] ?? join(process.cwd(), '..', 'shared', 'data'),
);
const scifact = join(dataDir, 'scifact');
const RUNS = Number(arg('runs') ?? 5);
const CHUNK = 512;
const TARGET_CHUNKS = 20_000;

function readJsonl<T>(path: string): T[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);
}

/** ~20k chunks of ≤ 512 characters: windows at 0, 512, … then (if short of the target) at 256, 768, … */
function throughputChunks(docs: readonly Doc[]): string[] {
  const out: string[] = [];
  for (const offset of [0, CHUNK / 2]) {
    for (const d of docs) {
      for (let i = offset; i + 64 < d.text.length; i += CHUNK) {
        if (out.length >= TARGET_CHUNKS) return out;
        out.push(d.text.slice(i, i + CHUNK));
      }
    }
  }
  return out;
}

const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

function median(xs: readonly number[]): number {
  return quantile(xs, 0.5);
}

interface Retrieval {
  ndcg10: number;
  recall100: number;
}

function retrieval(
  embed: (t: string) => Float32Array,
  docs: readonly Doc[],
  queries: Map<string, string>,
  qrels: Map<string, Set<string>>,
): Retrieval {
  const docVecs = docs.map((d) => embed(`${d.title}\n${d.text}`));
  let ndcg = 0;
  let recall = 0;
  let n = 0;
  for (const [qid, rel] of qrels) {
    const q = queries.get(qid);
    if (q === undefined) continue;
    const qv = embed(q);
    const scored = docVecs.map((v, i) => ({ i, s: dot(qv, v) }));
    scored.sort((a, b) => b.s - a.s || a.i - b.i);
    let dcg = 0;
    let found = 0;
    for (let r = 0; r < 100; r++) {
      const hit = rel.has(docs[scored[r]!.i]!.id);
      if (hit) found++;
      if (hit && r < 10) dcg += 1 / Math.log2(r + 2);
    }
    let idcg = 0;
    for (let r = 0; r < Math.min(10, rel.size); r++) idcg += 1 / Math.log2(r + 2);
    ndcg += dcg / idcg;
    recall += found / rel.size;
    n++;
  }
  return { ndcg10: ndcg / n, recall100: recall / n };
}

interface Variant {
  name: string;
  options: HashingEmbedderOptions;
  fitIdf?: boolean;
}

const VARIANTS: Variant[] = [
  { name: 'd512 words+chars (default)', options: {} },
  { name: 'd256 words+chars', options: { dims: 256 } },
  { name: 'd768 words+chars', options: { dims: 768 } },
  { name: 'd512 words only', options: { weights: { char: 0 } } },
  { name: 'd512 words+chars×0.5', options: { weights: { char: 0.5 } } },
  { name: 'd512 words+bigrams×0.5+chars', options: { weights: { bigram: 0.5 } } },
  { name: 'd512 words+chars + IDF', options: {}, fitIdf: true },
  { name: 'd1024 words+chars + IDF', options: { dims: 1024 }, fitIdf: true },
];

export interface BenchEmbeddersOptions {
  /** Store the section for bench/RESULTS.md (default true; the direct run passes `--write`). */
  write?: boolean;
  /** Only measure throughput (no geometry, no retrieval). */
  throughputOnly?: boolean;
}

/** CPU time of this process (all threads, user + system) in ms. */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

export async function benchEmbedders(options: BenchEmbeddersOptions = {}): Promise<void> {
  const write = options.write ?? true;
  const throughputOnly = options.throughputOnly ?? false;
  const corpusPath = join(scifact, 'corpus.jsonl');
  if (!existsSync(corpusPath)) {
    console.log(`embedders bench: skipped, no SciFact corpus at ${corpusPath} (set --data or QUIVER_DATA)`);
    return;
  }
  const docs = readJsonl<{ _id: string; title: string; text: string }>(corpusPath).map((d) => ({
    id: d._id,
    title: d.title,
    text: d.text,
  }));
  const chunks = throughputChunks(docs);
  const edits = makeEdits(docs, 1000);
  const queries = new Map(
    readJsonl<{ _id: string; text: string }>(join(scifact, 'queries.jsonl')).map((q) => [q._id, q.text]),
  );
  const qrels = new Map<string, Set<string>>();
  const qrelsPath = join(scifact, 'qrels', 'train.tsv');
  if (existsSync(qrelsPath)) {
    for (const line of readFileSync(qrelsPath, 'utf8').split('\n').slice(1)) {
      const [qid, did, score] = line.split('\t');
      if (qid === undefined || did === undefined || Number(score) <= 0) continue;
      const set = qrels.get(qid) ?? new Set<string>();
      set.add(did);
      qrels.set(qid, set);
    }
  }
  console.log(
    `SciFact: ${docs.length} docs, ${chunks.length} throughput chunks (mean ${Math.round(mean(chunks.map((c) => c.length)))} chars), ` +
      `${edits.drop.length} passages (${edits.number.length} with a number), ${qrels.size} judged claims; runs=${RUNS}\n`,
  );
  const embedders = VARIANTS.map((v) => {
    if (v.fitIdf !== true) return createHashingEmbedder(v.options);
    const t0 = performance.now();
    const idf = fitHashingIdf(chunks, hashingFeatureOptions(v.options));
    console.log(
      `IDF fit over ${chunks.length} chunks: ${idf.keys.length} features with df ≥ 2, ${Math.round(performance.now() - t0)} ms`,
    );
    return createHashingEmbedder({ ...v.options, idf });
  });
  // One warm-up pass each (JIT, word cache), then timed runs that interleave the variants, so
  // background load hits them all alike.
  for (const e of embedders) for (const c of chunks) e.embedOne(c);
  const speeds: number[][] = embedders.map(() => []);
  const cpuSpeeds: number[][] = embedders.map(() => []);
  for (let r = 0; r < RUNS; r++) {
    for (const [k, e] of embedders.entries()) {
      const c0 = cpuMs();
      const t0 = performance.now();
      for (const c of chunks) e.embedOne(c);
      speeds[k]!.push((chunks.length / (performance.now() - t0)) * 1000);
      cpuSpeeds[k]!.push((chunks.length / (cpuMs() - c0)) * 1000);
    }
  }
  const rows: Record<string, string | number>[] = [];
  for (const [k, e] of embedders.entries()) {
    const speed = {
      variant: VARIANTS[k]!.name,
      'chunks/s': Math.round(median(speeds[k]!)),
      'chunks/s CPU': Math.round(median(cpuSpeeds[k]!)),
    };
    if (throughputOnly) {
      rows.push(speed);
      continue;
    }
    const cos = (pairs: [string, string][]): number[] =>
      pairs.map(([a, b]) => dot(e.embedOne(a), e.embedOne(b)));
    const drop = cos(edits.drop);
    const swap = cos(edits.swap);
    const num = cos(edits.number);
    const near = [...drop, ...swap, ...num];
    const far = cos(edits.far);
    const ret = qrels.size > 0 ? retrieval(e.embedOne, docs, queries, qrels) : undefined;
    rows.push({
      ...speed,
      'drop mean/p5': `${mean(drop).toFixed(3)}/${quantile(drop, 0.05).toFixed(3)}`,
      'swap mean/p5': `${mean(swap).toFixed(3)}/${quantile(swap, 0.05).toFixed(3)}`,
      'number mean/p5': `${mean(num).toFixed(3)}/${quantile(num, 0.05).toFixed(3)}`,
      'far mean/p95': `${mean(far).toFixed(3)}/${quantile(far, 0.95).toFixed(3)}`,
      margin: (quantile(near, 0.05) - quantile(far, 0.95)).toFixed(3),
      'nDCG@10': ret === undefined ? '-' : ret.ndcg10.toFixed(3),
      'R@100': ret === undefined ? '-' : ret.recall100.toFixed(3),
    });
    console.log(`  ${e.id}`);
  }
  const headers = Object.keys(rows[0] ?? {});
  const table = mdTable(
    headers,
    rows.map((r) => headers.map((h) => r[h] ?? '')),
  );
  if (!write || throughputOnly) {
    console.log(`\n${table}`);
    return;
  }
  writeSection(
    'embedders',
    `## Built-in embedder variants (SciFact)\n\nThroughput over ${chunks.length} real chunks (median of ${RUNS} runs, one core; "CPU" divides by the process's CPU time instead of wall time, so waiting for a core on a loaded machine does not count), near-duplicate geometry (cosine between a passage and a copy with a sentence dropped, two words swapped, a number changed; unrelated pairs), and the vector leg alone by brute-force cosine over title + abstract. margin = p5 of all near-duplicate cosines − p95 of unrelated cosines.\n\n` +
      table +
      '\n',
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchEmbedders({
    write: process.argv.includes('--write'),
    throughputOnly: process.argv.includes('--throughput-only'),
  });
}
