// Ingest throughput (demo corpus, SciFact) and query latency of each leg at 10k and 100k chunks.
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPrng } from '../src/math/prng.js';
import { Vault } from '../src/index.js';
import { DEFAULT_LEXICAL_INDEX_THRESHOLD } from '../src/store/sqlite/lexical-index-leg.js';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { dataPath, mdTable, median, OUT_DIR, quiverPeakMemory, timeSearches, writeSection } from './lib.js';

function dropVault(path: string): void {
  for (const s of ['', '-wal', '-shm']) rmSync(path + s, { force: true });
}

/** Ingest `inputs` into a fresh vault `runs` times; chunks/s per run. */
async function ingestRuns(
  name: string,
  inputs: string[],
  runs: number,
): Promise<{ chunks: number; docs: number; rates: number[]; secs: number[] }> {
  const rates: number[] = [];
  const secs: number[] = [];
  let chunks = 0;
  let docs = 0;
  for (let i = 0; i < runs; i++) {
    const path = join(OUT_DIR, `ingest-${name}.db`);
    dropVault(path);
    const v = await Vault.open({ overrides: { vault: path } });
    const t = performance.now();
    const r = await v.add(inputs);
    const s = (performance.now() - t) / 1000;
    chunks = r.items.reduce((n, it) => n + (it.chunks ?? 0), 0);
    docs = r.items.filter((it) => it.status === 'added').length;
    rates.push(chunks / s);
    secs.push(s);
    await v.close();
  }
  return { chunks, docs, rates, secs };
}

/**
 * A folder of JSONL files holding `n` chunks' worth of text re-assembled from SciFact sentences
 * (real text, new documents), 5,000 documents a file so no file nears the size limit.
 */
export function syntheticCorpus(target: number, seed: number): string {
  const dir = join(OUT_DIR, `synthetic-${target}`);
  if (existsSync(`${dir}.done`)) return dir;
  mkdirSync(dir, { recursive: true });
  const src = dataPath('scifact', 'corpus.jsonl');
  const sentences: string[] = [];
  if (src !== null) {
    for (const l of readFileSync(src, 'utf8').split('\n')) {
      if (l.trim() === '') continue;
      const o = JSON.parse(l) as { text: string };
      for (const s of o.text.split(/(?<=\.)\s+/)) if (s.length > 40) sentences.push(s);
    }
  } else {
    for (let i = 0; i < 5000; i++)
      sentences.push(
        `Sentence ${i} about topic ${i % 97} and measurement ${i % 13} of the sample under condition ${i % 7}.`,
      );
  }
  const rng = createPrng(seed);
  const lines: string[] = [];
  // Each document: 3 paragraphs of ~480 characters → 3 chunks.
  for (let d = 0; d < Math.ceil(target / 3); d++) {
    const paras: string[] = [];
    for (let p = 0; p < 3; p++) {
      let para = '';
      while (para.length < 420) para += sentences[rng.int(sentences.length)] + ' ';
      paras.push(para.trim());
    }
    lines.push(JSON.stringify({ _id: `syn-${d}`, title: `Synthetic note ${d}`, text: paras.join('\n\n') }));
  }
  for (let i = 0; i < lines.length; i += 5000) {
    writeFileSync(
      join(dir, `part-${String(i / 5000).padStart(3, '0')}.jsonl`),
      lines.slice(i, i + 5000).join('\n') + '\n',
    );
  }
  writeFileSync(`${dir}.done`, '');
  return dir;
}

/** `lexical.threshold` that keeps the lexical leg on FTS5's own bm25() ranking at any size. */
const FTS5_ONLY = Number.MAX_SAFE_INTEGER;

async function latency(
  vaultPath: string,
  queries: string[],
): Promise<Record<string, { p50: number; p95: number }>> {
  const v = await Vault.open({ overrides: { vault: vaultPath } });
  const fts = await Vault.open({ overrides: { vault: vaultPath, 'lexical.threshold': FTS5_ONLY } });
  const out: Record<string, { p50: number; p95: number }> = {};
  const configs = {
    'lexical leg, no feedback, FTS5 ranking': {
      vault: fts,
      legs: 'lexical' as const,
      feedbackWeight: 0,
      select: { method: 'topk' as const },
    },
    'lexical leg, FTS5 ranking': {
      vault: fts,
      legs: 'lexical' as const,
      select: { method: 'topk' as const },
    },
    'lexical leg, no feedback': {
      legs: 'lexical' as const,
      feedbackWeight: 0,
      select: { method: 'topk' as const },
    },
    'lexical leg': { legs: 'lexical' as const, select: { method: 'topk' as const } },
    'vector leg': { legs: 'vector' as const, select: { method: 'topk' as const } },
    'fused (top-k), no feedback': {
      legs: 'both' as const,
      feedbackWeight: 0,
      select: { method: 'topk' as const },
    },
    'fused (top-k)': { legs: 'both' as const, select: { method: 'topk' as const } },
    'default search (fused, top-k, near-copies folded)': {},
    'fused + Dartboard (the evidence selection of context and ask)': {
      legs: 'both' as const,
      select: { method: 'dartboard' as const },
    },
  };
  for (const [name, config] of Object.entries(configs)) {
    const { vault, ...opts } = { vault: v, ...config };
    out[name] = await timeSearches(vault, queries.slice(0, 20), queries, { limit: 10, ...opts });
  }
  await v.close();
  await fts.close();
  return out;
}

/**
 * The lexical leg's own index on a vault: a fresh build (file removed first), its file size, and a
 * load of the saved file by a new store. Null at or below `lexical.threshold` (FTS5 ranks there).
 */
async function lexicalIndexCosts(
  vaultPath: string,
): Promise<{ sections: number; buildS: number; fileMiB: number; loadMs: number } | null> {
  rmSync(`${vaultPath}.lexical`, { force: true });
  const v = await Vault.open({ overrides: { vault: vaultPath } });
  if (!(v.store instanceof SqliteStore)) throw new Error('the latency bench needs the SQLite store');
  let t = performance.now();
  const built = await v.store.prepareLexicalIndex();
  const buildS = (performance.now() - t) / 1000;
  await v.close();
  if (built.mode !== 'index') return null;
  const fileMiB = statSync(`${vaultPath}.lexical`).size / 2 ** 20;
  const again = await Vault.open({ overrides: { vault: vaultPath } });
  t = performance.now();
  const loaded = await (again.store as SqliteStore).prepareLexicalIndex();
  const loadMs = performance.now() - t;
  await again.close();
  if (loaded.source !== 'loaded') throw new Error(`lexical index was ${loaded.source ?? 'not'} loaded`);
  return { sections: built.sections, buildS, fileMiB, loadMs };
}

export async function benchIngestLatency(sizes = [10_000, 100_000]): Promise<void> {
  mkdirSync(OUT_DIR, { recursive: true });
  let md =
    '## Ingest throughput\n\nEnd to end: read, parse, section tree, chunk, embed (built-in embedder), write to SQLite (WAL), one batch. Median of the runs.\n\n';
  const rows: (string | number)[][] = [];
  const demo = await ingestRuns('demo', ['demo/corpus'], 5);
  rows.push([
    'demo corpus (md, html, txt, pdf)',
    demo.docs,
    demo.chunks,
    5,
    median(demo.secs).toFixed(2),
    Math.round(median(demo.rates)),
  ]);
  const sf = dataPath('scifact', 'corpus.jsonl');
  if (sf !== null) {
    const r = await ingestRuns('scifact', [sf], 3);
    rows.push([
      'SciFact corpus.jsonl',
      r.docs,
      r.chunks,
      3,
      median(r.secs).toFixed(2),
      Math.round(median(r.rates)),
    ]);
  }
  md +=
    mdTable(['input', 'documents', 'chunks', 'runs', 'seconds (median)', 'chunks/s (median)'], rows) + '\n';
  if (sf !== null) {
    const path = join(OUT_DIR, 'ingest-peak.db');
    dropVault(path);
    const peak = quiverPeakMemory(['add', sf, '--vault', path, '--quiet', '--json']);
    dropVault(path);
    if (peak !== null)
      md += `\nPeak memory of \`quiver add\` on SciFact corpus.jsonl in a fresh process (\`/usr/bin/time -v\`, maximum resident set size): ${peak.peakMiB.toFixed(0)} MiB (${peak.seconds.toFixed(1)} s including start-up).\n`;
  }

  const queries: string[] = [];
  const qf = dataPath('scifact', 'queries.jsonl');
  if (qf !== null)
    for (const l of readFileSync(qf, 'utf8').split('\n'))
      if (l.trim()) queries.push((JSON.parse(l) as { text: string }).text);
  while (queries.length < 300) queries.push(`measurement of sample ${queries.length} under condition`);
  const qs = queries.slice(0, 300);
  md += `\n## Query latency\n\nIn-process \`vault.search(q, {limit: 10})\`, ${qs.length} SciFact claims as queries after 20 warm-up queries, on vaults of synthetic documents re-assembled from SciFact sentences. Milliseconds.\n\n`;
  const lrows: (string | number)[][] = [];
  const irows: (string | number)[][] = [];
  for (const size of sizes) {
    const corpus = syntheticCorpus(size, 7);
    const path = join(OUT_DIR, `latency-${size}.db`);
    if (!existsSync(path)) {
      const v = await Vault.open({ overrides: { vault: path } });
      const r = await v.add([corpus]);
      await v.close();
      if (r.batch.failed > 0)
        throw new Error(
          `latency corpus: ${r.batch.failed} files failed: ${r.batch.errors[0]?.message ?? ''}`,
        );
    }
    const v = await Vault.open({ overrides: { vault: path } });
    const chunks = (await v.stats()).chunks;
    await v.close();
    const costs = await lexicalIndexCosts(path);
    irows.push(
      costs === null
        ? [chunks, '—', 'FTS5 ranks (at or below lexical.threshold)', '', '', '']
        : [
            chunks,
            costs.sections,
            'own index',
            costs.buildS.toFixed(1),
            costs.fileMiB.toFixed(1),
            costs.loadMs.toFixed(0),
          ],
    );
    const r = await latency(path, qs);
    for (const [name, t] of Object.entries(r)) lrows.push([chunks, name, t.p50.toFixed(2), t.p95.toFixed(2)]);
  }
  md += mdTable(['chunks', 'query', 'p50', 'p95'], lrows) + '\n';
  md += `\nThe lexical leg above \`lexical.threshold\` (${DEFAULT_LEXICAL_INDEX_THRESHOLD.toLocaleString('en-US')} live sections) ranks from its own index of FTS5's tokens, with FTS5's bm25() scores and order (\`src/store/sqlite/lexical-index.ts\`); the "FTS5 ranking" rows are the same vault with the threshold set out of reach. Its costs on the same vaults: a full build from FTS5 (file removed first), the saved file, and a load of that file by a new store (read, SHA-256 check, term map):\n\n`;
  md += mdTable(['chunks', 'sections', 'lexical leg', 'build s', 'file MiB', 'load ms'], irows) + '\n';
  writeSection('ingest-latency', md);
}

if (import.meta.url === `file://${process.argv[1]}`) await benchIngestLatency();
