// SQLite and PostgreSQL + pgvector side by side, in one run: the same corpus ingested into each by
// `quiver add` (chunks/s), then every question searched on both in-process, interleaved (nDCG@10,
// identical top-10 lists, per-leg and default latency). Needs a PostgreSQL server with pgvector:
// QUIVER_BENCH_POSTGRES_URL (or QUIVER_TEST_POSTGRES_URL; `npm run postgres:dev` starts one).
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { loadBeir } from '../src/evaluate/datasets/beir.js';
import { ndcgAtK } from '../src/evaluate/retrieval-metrics.js';
import type { SearchOptions } from '../src/vault.js';
import { Vault } from '../src/vault.js';
import { cranfieldAsBeir } from './datasets/cranfield.js';
import { benchPostgresUrl, freshDatabase } from './postgres-server.js';
import {
  DATA_DIR,
  dataPath,
  machine,
  mdTable,
  mean,
  median,
  OUT_DIR,
  percentile,
  writeSection,
} from './lib.js';

interface DataSet {
  name: string;
  label: string;
  dir: string;
  split?: string;
}

function dataSets(): DataSet[] {
  const out: DataSet[] = [];
  const scifact = dataPath('scifact');
  if (scifact !== null) out.push({ name: 'scifact', label: 'SciFact train', dir: scifact, split: 'train' });
  const cran = cranfieldAsBeir(DATA_DIR, join(OUT_DIR, 'cranfield-beir'));
  if (cran !== null) out.push({ name: 'cranfield', label: 'Cranfield', dir: cran });
  return out;
}

/** `quiver add <corpus>` into a store (a file path or a URL), timed in seconds. */
function ingest(corpus: string, store: string): { seconds: number } {
  const t = performance.now();
  const r = spawnSync(process.execPath, ['bin/quiver.js', 'add', corpus, '--quiet', '--json'], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    env: { ...process.env, QUIVER_PROGRESS: 'false', QUIVER_STORE: store, QUIVER_VAULT: store },
  });
  const seconds = (performance.now() - t) / 1000;
  // Exit 4: some records were skipped (Cranfield has empty ones); the rest are in.
  if (r.status !== 0 && r.status !== 4)
    throw new Error(`quiver add into ${store} failed (${r.status}): ${r.stderr}`);
  return { seconds };
}

const LEGS: { name: string; options: SearchOptions }[] = [
  { name: 'lexical leg', options: { legs: 'lexical', select: { method: 'topk' } } },
  { name: 'vector leg', options: { legs: 'vector', select: { method: 'topk' } } },
  { name: 'fused (top-k)', options: { select: { method: 'topk' } } },
  { name: 'default search', options: {} },
];

export async function benchPostgres(): Promise<void> {
  const server = benchPostgresUrl();
  let md = `## PostgreSQL and SQLite\n\nMachine: ${machine()}. The same corpus ingested by \`quiver add\` into a SQLite file and into a PostgreSQL 15 + pgvector database on the same machine (loopback), then every question searched on both in one process, interleaved, at \`--limit 10\`. "Same top 10" counts questions whose ten sections come back in the same order from both.\n`;
  if (server === null) {
    writeSection('postgres', `${md}\nSkipped: no PostgreSQL server (set QUIVER_BENCH_POSTGRES_URL).\n`);
    return;
  }
  mkdirSync(OUT_DIR, { recursive: true });
  const quality: (string | number)[][] = [];
  const speed: (string | number)[][] = [];
  const ingestRows: (string | number)[][] = [];
  for (const set of dataSets()) {
    const beir = loadBeir(set.dir, set.split);
    const corpus = join(set.dir, 'corpus.jsonl');
    const file = join(OUT_DIR, `postgres-bench-${set.name}.db`);
    for (const x of ['', '-wal', '-shm', '.lexical']) rmSync(file + x, { force: true });
    const url = await freshDatabase(server, `quiver_bench_${set.name}`);
    const sq = ingest(corpus, file);
    const pq = ingest(corpus, url);
    // What autovacuum does shortly after a bulk load: the visibility map that lets BM25 read
    // postings from the index alone, and fresh planner statistics.
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query('VACUUM (ANALYZE)');
    await admin.end();
    process.stderr.write(
      `${set.name}: ingested (SQLite ${sq.seconds.toFixed(1)} s, PostgreSQL ${pq.seconds.toFixed(1)} s)\n`,
    );
    const sqlite = await Vault.open({ overrides: { vault: file } });
    const postgres = await Vault.open({ overrides: { store: url } });
    try {
      const chunks = (await sqlite.store.stats()).chunks;
      ingestRows.push(
        [set.label, chunks, 'SQLite', sq.seconds.toFixed(1), Math.round(chunks / sq.seconds)],
        [set.label, chunks, 'PostgreSQL', pq.seconds.toFixed(1), Math.round(chunks / pq.seconds)],
      );
      const ndcg = { sqlite: [] as number[], postgres: [] as number[] };
      let same = 0;
      const times = new Map<string, { sqlite: number[]; postgres: number[] }>(
        LEGS.map((l) => [l.name, { sqlite: [], postgres: [] }]),
      );
      for (const q of beir.queries) {
        const gains = Object.fromEntries(beir.qrels.get(q.id) ?? []);
        const lists: Record<'sqlite' | 'postgres', string[]> = { sqlite: [], postgres: [] };
        for (const leg of LEGS) {
          for (const [name, v] of [
            ['sqlite', sqlite],
            ['postgres', postgres],
          ] as const) {
            const t = performance.now();
            const r = await v.search(q.text, { ...leg.options, limit: 10 });
            times.get(leg.name)![name].push(performance.now() - t);
            // A JSONL record's source is `<file>#<id>`: the id is what the judgements name (the file
            // part is relative to each store's ingest root, which differ).
            if (leg.name === 'default search')
              lists[name] = r.hits.map((h) => h.source.slice(h.source.lastIndexOf('#') + 1));
          }
        }
        const a = ndcgAtK(lists.sqlite, gains, 10);
        const b = ndcgAtK(lists.postgres, gains, 10);
        if (a !== null && b !== null) {
          ndcg.sqlite.push(a);
          ndcg.postgres.push(b);
        }
        if (lists.sqlite.join('\n') === lists.postgres.join('\n')) same++;
        else if (process.env.QUIVER_BENCH_VERBOSE === '1')
          process.stderr.write(
            `differs: ${q.id}\n  ${lists.sqlite.join(' ')}\n  ${lists.postgres.join(' ')}\n`,
          );
      }
      quality.push([
        `${set.label} (${beir.queries.length} questions, ${chunks} chunks)`,
        mean(ndcg.sqlite).toFixed(4),
        mean(ndcg.postgres).toFixed(4),
        (mean(ndcg.postgres) - mean(ndcg.sqlite)).toFixed(4),
        `${((100 * same) / beir.queries.length).toFixed(1)}%`,
      ]);
      for (const leg of LEGS) {
        const t = times.get(leg.name)!;
        speed.push([
          set.label,
          leg.name,
          median(t.sqlite).toFixed(2),
          percentile(t.sqlite, 95).toFixed(2),
          median(t.postgres).toFixed(2),
          percentile(t.postgres, 95).toFixed(2),
          (median(t.postgres) / median(t.sqlite)).toFixed(2),
        ]);
      }
    } finally {
      await sqlite.close();
      await postgres.close();
    }
  }
  md += `\nThe PostgreSQL database was vacuumed and analysed after the load, as its autovacuum does shortly after a bulk load (the visibility map lets BM25 read postings by index-only scans).\n`;
  md += `\n### Retrieval quality (default search, nDCG@10)\n\n${mdTable(['data set', 'SQLite', 'PostgreSQL', 'difference', 'same top 10'], quality)}\n`;
  md += `\n### Latency per search (ms, in-process, interleaved)\n\n${mdTable(['data set', 'what', 'SQLite p50', 'SQLite p95', 'PostgreSQL p50', 'PostgreSQL p95', 'p50 ratio'], speed)}\n`;
  md += `\n### Ingest (\`quiver add\` of the corpus, built-in embedder)\n\n${mdTable(['data set', 'chunks', 'store', 'seconds', 'chunks/s'], ingestRows)}\n`;
  writeSection('postgres', md);
  process.stdout.write(md);
}

if (import.meta.url === `file://${process.argv[1]}`) await benchPostgres();
