// A 1M-chunk vault: peak memory of ingesting it (`/usr/bin/time -v`), ingest rate, and query
// latency of the lexical leg and of fused search with the exact vector scan. Opt-in
// (`npm run bench -- scale`): it writes ~10 GB and takes a quarter of an hour on 2 cores.
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Vault } from '../src/index.js';
import { syntheticCorpus } from './ingest-latency.js';
import {
  dataPath,
  machine,
  mdTable,
  median,
  OUT_DIR,
  percentile,
  quiverPeakMemory,
  writeSection,
} from './lib.js';

const TARGET = 1_000_000;

export async function benchScale(): Promise<void> {
  const corpus = syntheticCorpus(TARGET, 11);
  const path = join(OUT_DIR, `scale-${TARGET}.db`);
  for (const s of ['', '-wal', '-shm']) rmSync(path + s, { force: true });
  // Above the chunk count, so this measures ingest alone (an HNSW build at 1M is measured in ann.ts).
  process.env.QUIVER_ANN_THRESHOLD = String(10 * TARGET);
  const peak = quiverPeakMemory(['add', corpus, '--vault', path, '--quiet', '--json']);
  const v = await Vault.open({ overrides: { vault: path } });
  const chunks = (await v.stats()).chunks;
  const queries: string[] = [];
  const qf = dataPath('scifact', 'queries.jsonl');
  if (qf !== null)
    for (const l of readFileSync(qf, 'utf8').split('\n'))
      if (l.trim()) queries.push((JSON.parse(l) as { text: string }).text);
  while (queries.length < 60) queries.push(`measurement of sample ${queries.length} under condition`);
  const rows: (string | number)[][] = [];
  const configs = {
    'lexical leg, no feedback': { legs: 'lexical' as const, feedbackWeight: 0 },
    'lexical leg': { legs: 'lexical' as const },
    'fused (top-k), exact vector scan': { legs: 'both' as const },
  };
  for (const [name, o] of Object.entries(configs)) {
    for (const q of queries.slice(0, 5)) await v.search(q, { limit: 10, select: { method: 'topk' }, ...o });
    const times: number[] = [];
    for (const q of queries.slice(5, 55)) {
      const t = performance.now();
      await v.search(q, { limit: 10, select: { method: 'topk' }, ...o });
      times.push(performance.now() - t);
    }
    rows.push([name, median(times).toFixed(1), percentile(times, 95).toFixed(1)]);
  }
  await v.close();
  const md =
    `## A 1M-chunk vault\n\nProduced by \`bench/scale.ts\` (opt-in: \`npm run bench -- scale\`). ${chunks.toLocaleString('en')} chunks of synthetic documents re-assembled from SciFact sentences, ingested by \`quiver add\` in a fresh process with the HNSW index off (its 1M build is in the ANN section). Machine: ${machine()}.\n\n` +
    (peak === null
      ? 'GNU time not installed: peak memory not measured.\n'
      : `Ingest: ${peak.seconds.toFixed(0)} s (${Math.round(chunks / peak.seconds)} chunks/s including start-up), peak resident memory ${peak.peakMiB.toFixed(0)} MiB (\`/usr/bin/time -v\`). Vault file ${existsSync(path) ? (statSync(path).size / 2 ** 30).toFixed(1) : '?'} GiB.\n`) +
    `\nQuery latency, 50 SciFact claims after 5 warm-up queries, milliseconds:\n\n${mdTable(['query', 'p50', 'p95'], rows)}\n`;
  writeSection('scale', md);
}

if (import.meta.url === `file://${process.argv[1]}`) await benchScale();
