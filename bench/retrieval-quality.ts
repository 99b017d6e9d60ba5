// Retrieval quality on SciFact (train split) and Cranfield: lexical, vector and fused search, from
// quiver's own batch retrieval output (`quiver search --queries … --json`), beside MiniSearch and
// Orama at their library defaults (no stemming, no stop words, untuned) on the same documents and
// queries. Configured and tuned peers, scored on held-out queries: bench/peers.ts (section Peers).
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import MiniSearch from 'minisearch';
import { create, insertMultiple, search as oramaSearch } from '@orama/orama';
import { loadBeir, type BeirSet } from '../src/evaluate/datasets/beir.js';
import { mrrAtK, ndcgAtK, recallAtK } from '../src/evaluate/retrieval-metrics.js';
import { Vault } from '../src/index.js';
import { cranfieldAsBeir } from './datasets/cranfield.js';
import {
  DATA_DIR,
  dataPath,
  mdTable,
  mean,
  median,
  OUT_DIR,
  percentile,
  quiver,
  writeSection,
} from './lib.js';
import { parseJsonlSource } from '../src/ingest/jsonl-id.js';

interface Config {
  name: string;
  args: string[];
}

export const CONFIGS: Config[] = [
  {
    name: 'lexical (any), no feedback',
    args: ['--legs', 'lexical', '--mode', 'any', '--feedback-weight', '0'],
  },
  { name: 'lexical (any)', args: ['--legs', 'lexical', '--mode', 'any'] },
  { name: 'lexical (all)', args: ['--legs', 'lexical', '--mode', 'all'] },
  { name: 'vector', args: ['--legs', 'vector'] },
  ...[0.03, 0.05, 0.1, 0.3, 1].map((w) => ({
    name: `fused w_vec=${w}`,
    args: ['--legs', 'both', '--vector-weight', String(w)],
  })),
  { name: 'default fusion, no feedback', args: ['--feedback-weight', '0'] },
  { name: 'default fusion (top-k)', args: [] },
];

export interface Scores {
  ndcg10: number;
  recall100: number;
  mrr10: number;
}

export function score(set: BeirSet, rankings: Map<string, string[]>): Scores {
  const n: number[] = [];
  const r: number[] = [];
  const m: number[] = [];
  for (const q of set.queries) {
    const gains = Object.fromEntries(set.qrels.get(q.id) ?? []);
    const rel = Object.keys(gains).filter((d) => (gains[d] ?? 0) > 0);
    const ranked = rankings.get(q.id) ?? [];
    n.push(ndcgAtK(ranked, gains, 10) ?? 0);
    r.push(recallAtK(ranked, rel, 100) ?? 0);
    m.push(mrrAtK(ranked, rel, 10) ?? 0);
  }
  return { ndcg10: mean(n), recall100: mean(r), mrr10: mean(m) };
}

/** Build (or reuse) a vault of a BEIR corpus; returns its path. */
export function beirVault(name: string, set: BeirSet, fresh = false): string {
  const vault = join(OUT_DIR, `${name}.db`);
  if (fresh) for (const s of ['', '-wal', '-shm']) rmSync(vault + s, { force: true });
  if (!existsSync(vault)) quiver(['add', set.corpusPath, '--vault', vault, '--quiet', '--json']);
  return vault;
}

export function queriesFile(name: string, set: BeirSet): string {
  const file = join(OUT_DIR, `${name}-queries.jsonl`);
  writeFileSync(file, set.queries.map((q) => JSON.stringify({ id: q.id, text: q.text })).join('\n') + '\n');
  return file;
}

/** Run one configuration through the CLI's batch mode; rankings of document sources per query. */
export function runConfig(vault: string, qfile: string, args: string[], limit = 100): Map<string, string[]> {
  const out = quiver([
    'search',
    '--queries',
    qfile,
    '--limit',
    String(limit),
    '--json',
    '--select',
    'topk',
    '--vault',
    vault,
    ...args,
  ]);
  const rankings = new Map<string, string[]>();
  for (const line of out.split('\n')) {
    if (line.trim() === '') continue;
    const o = JSON.parse(line) as { id: string | number; results: { source: string }[] };
    rankings.set(
      String(o.id),
      // A JSONL record's source is `<corpus file>#<id>`; the qrels name the id.
      o.results.map((h) => String(parseJsonlSource(h.source)?.id ?? h.source)),
    );
  }
  return rankings;
}

interface Doc {
  id: string;
  title: string;
  text: string;
}

function corpus(set: BeirSet): Doc[] {
  return readFileSync(set.corpusPath, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const o = JSON.parse(l) as { _id: string; title?: string; text?: string };
      return { id: String(o._id), title: o.title ?? '', text: o.text ?? '' };
    });
}

async function peers(set: BeirSet): Promise<{ name: string; scores: Scores; p50: number }[]> {
  const docs = corpus(set);
  const ms = new MiniSearch<Doc>({ fields: ['title', 'text'], storeFields: ['id'] });
  ms.addAll(docs);
  const orama = create({ schema: { id: 'string', title: 'string', text: 'string' } as const });
  await insertMultiple(orama, docs);
  const out: { name: string; scores: Scores; p50: number }[] = [];
  for (const [name, run] of [
    [
      'MiniSearch 7 (library defaults)',
      async (q: string) =>
        ms
          .search(q)
          .slice(0, 100)
          .map((h) => String(h.id)),
    ],
    [
      'Orama 3 (library defaults)',
      async (q: string) =>
        (await oramaSearch(orama, { term: q, properties: ['title', 'text'], limit: 100 })).hits.map(
          (h) => h.document.id,
        ),
    ],
  ] as const) {
    const rankings = new Map<string, string[]>();
    const times: number[] = [];
    for (const q of set.queries) {
      const t = performance.now();
      rankings.set(q.id, await run(q.text));
      times.push(performance.now() - t);
    }
    out.push({ name, scores: score(set, rankings), p50: median(times) });
  }
  return out;
}

async function quiverLatency(
  vault: string,
  set: BeirSet,
  args: { legs?: 'lexical' | 'both'; feedbackWeight?: number },
): Promise<{ p50: number; p95: number }> {
  const v = await Vault.open({ overrides: { vault } });
  const times: number[] = [];
  for (const q of set.queries.slice(0, 300))
    await v.search(q.text, {
      limit: 10,
      select: { method: 'topk' },
      ...(args.legs ? { legs: args.legs } : {}),
      ...(args.feedbackWeight === undefined ? {} : { feedbackWeight: args.feedbackWeight }),
    });
  for (const q of set.queries) {
    const t = performance.now();
    await v.search(q.text, {
      limit: 10,
      select: { method: 'topk' },
      ...(args.legs ? { legs: args.legs } : {}),
      ...(args.feedbackWeight === undefined ? {} : { feedbackWeight: args.feedbackWeight }),
    });
    times.push(performance.now() - t);
  }
  await v.close();
  return { p50: median(times), p95: percentile(times, 95) };
}

export async function benchRetrievalQuality(fresh = false): Promise<void> {
  mkdirSync(OUT_DIR, { recursive: true });
  const sets: { name: string; label: string; set: BeirSet }[] = [];
  const scifact = dataPath('scifact');
  if (scifact !== null)
    sets.push({
      name: 'scifact',
      label: 'SciFact (train split, 809 queries)',
      set: loadBeir(scifact, 'train'),
    });
  const cran = cranfieldAsBeir(DATA_DIR, join(OUT_DIR, 'cranfield-beir'));
  if (cran !== null)
    sets.push({ name: 'cranfield', label: 'Cranfield (225 queries, graded)', set: loadBeir(cran, 'test') });
  if (sets.length === 0) {
    writeSection(
      'retrieval-quality',
      '## Retrieval quality\n\nSkipped: no data sets found under ' + DATA_DIR,
    );
    return;
  }
  let md =
    '## Retrieval quality\n\nComputed from `quiver search --queries FILE --limit 100 --json --select topk` (one process per configuration), metrics by `src/evaluate/retrieval-metrics.ts` (nDCG with linear graded gains, ideal from all judged documents).\n';
  for (const { name, label, set } of sets) {
    const vault = beirVault(name, set, fresh);
    const qfile = queriesFile(name, set);
    const rows: (string | number)[][] = [];
    for (const c of CONFIGS) {
      const s = score(set, runConfig(vault, qfile, c.args));
      rows.push([c.name, s.ndcg10, s.recall100, s.mrr10]);
      process.stderr.write(`${name} ${c.name}: nDCG@10 ${s.ndcg10.toFixed(4)}\n`);
    }
    const lex = await quiverLatency(vault, set, { legs: 'lexical' });
    const lexPlain = await quiverLatency(vault, set, { legs: 'lexical', feedbackWeight: 0 });
    const fused = await quiverLatency(vault, set, {});
    const row = (n: string) => rows.find((r) => r[0] === n)!;
    const peerRows = await peers(set);
    md += `\n### ${label}\n\n${mdTable(['configuration', 'nDCG@10', 'recall@100', 'MRR@10'], rows)}\n`;
    const def = rows[rows.length - 1]!;
    md += `\nMiniSearch and Orama at their library defaults (no stemming or stop words, nothing tuned) on the same documents and queries, in-process, query p50 over all queries; each configured as its documentation recommends and tuned on other queries: see Peers.\n\n${mdTable(
      ['system', 'nDCG@10', 'recall@100', 'MRR@10', 'query p50 ms'],
      [
        ['quiver default fusion (top-k)', def[1]!, def[2]!, def[3]!, fused.p50.toFixed(2)],
        ['quiver lexical leg', ...row('lexical (any)').slice(1), lex.p50.toFixed(2)],
        [
          'quiver lexical leg, no feedback',
          ...row('lexical (any), no feedback').slice(1),
          lexPlain.p50.toFixed(2),
        ],
        ...peerRows.map((p) => [
          p.name,
          p.scores.ndcg10,
          p.scores.recall100,
          p.scores.mrr10,
          p.p50.toFixed(2),
        ]),
      ],
    )}\n`;
  }
  writeSection('retrieval-quality', md);
}

if (import.meta.url === `file://${process.argv[1]}`)
  await benchRetrievalQuality(process.argv.includes('--fresh'));
