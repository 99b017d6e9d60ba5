/**
 * The ranker ladder (quality-reference §7.4), through the library on real vaults with the built-in
 * embedder: does anything learned from feedback beat plain retrieval, reproducibly?
 *
 * Per corpus (generated seeds 0, 1, 2 of `makeNoiseCorpus`), per query mode (known-item: 2 of the
 * gold document's rare terms + 3 topic terms, one gold document; topic: 4 topic terms, every
 * content document of the topic relevant), per split (document-disjoint: half the gold keys —
 * documents, or topics — train; query-disjoint: half the queries train), a fresh vault:
 * 1. simulated feedback for each training query: the top 10 of `vault.search` logged with
 *    `vault.quality.logAsk` (relevant hits `cited`, the rest `shown`, one ask id per query);
 * 2. the linear ranker fitted with `vault.quality.fitRanker()` (out-of-fold prior);
 * 3. each test query: the top 20 of `vault.search` (top-k selection, so the order is retrieval's)
 *    and these systems, cut at 10: base; +noise (drop `suggestNoisy({k: 10, minScore: 0.5})`);
 *    +prior (score × `docPrior()` posterior mean); +linear fused by `retuneContext` at
 *    α ∈ {0.25, 0.5, 1}; +linear substituted (α = 10⁶: the model's order).
 * Each system is compared with base per metric by `pairedBootstrap` (5000 resamples); a win or a
 * loss is a corpus whose 95% interval excludes 0.
 *
 *   node --import tsx bench/ranker-ladder.ts
 */
import { rmSync } from 'node:fs';
import { toContextSection } from '../src/answer/context-section.js';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { pairedBootstrap } from '../src/evaluate/bootstrap.js';
import { mrrAtK, ndcgAtK, recallAtK } from '../src/evaluate/retrieval-metrics.js';
import { Prng } from '../src/quality/prng.js';
import { STOPWORDS } from '../src/text/stopwords.js';
import { Vault, type SectionHit } from '../src/index.js';
import { mdTable, mean, writeSection } from './lib.js';
import { makeNoiseCorpus, type NoiseDoc } from './noise-corpus.js';

export const SEEDS = [0, 1, 2];
export const N_QUERIES = 90;
export const ALPHAS = [0.25, 0.5, 1];
export const SUBSTITUTE_ALPHA = 1e6;
const METRICS = ['nDCG@10', 'MRR@10', 'recall@10'] as const;
type Metric = (typeof METRICS)[number];
type Mode = 'known-item' | 'topic';
type Split = 'doc-disjoint' | 'query-disjoint';

interface Query {
  text: string;
  /** Corpus doc ids (NoiseDoc.id) that are relevant. */
  relevant: string[];
  /** The split key: the gold doc (known-item) or the topic. */
  key: string;
}

function shuffle<T>(rng: Prng, xs: readonly T[]): T[] {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

const topicOf = (d: NoiseDoc): string => d.title.replace(/ note \d+$/, '');
const lowerWords = (t: string): string[] => t.match(/\b[a-z][a-z]{2,}\b/g) ?? [];

/** Words used by one topic's content documents only (no other topic, no boilerplate, no stop words). */
function topicVocab(docs: readonly NoiseDoc[]): Map<string, string[]> {
  const boiler = new Set(docs.filter((d) => d.label === 'boiler').flatMap((d) => lowerWords(d.text)));
  const byTopic = new Map<string, Map<string, number>>();
  for (const d of docs.filter((x) => x.label === 'content')) {
    const m = byTopic.get(topicOf(d)) ?? new Map<string, number>();
    for (const w of lowerWords(d.text)) m.set(w, (m.get(w) ?? 0) + 1);
    byTopic.set(topicOf(d), m);
  }
  const out = new Map<string, string[]>();
  for (const [t, m] of byTopic) {
    const others = new Set([...byTopic].filter(([o]) => o !== t).flatMap(([, om]) => [...om.keys()]));
    out.set(
      t,
      [...m]
        .filter(([w, c]) => c >= 3 && !others.has(w) && !boiler.has(w) && !STOPWORDS.has(w))
        .map(([w]) => w)
        .sort(),
    );
  }
  return out;
}

export function makeQueries(docs: readonly NoiseDoc[], mode: Mode, seed: number): Query[] {
  const rng = new Prng(seed + 1000);
  const vocab = topicVocab(docs);
  const content = docs.filter((d) => d.label === 'content');
  const pick = (xs: readonly string[], n: number): string[] => shuffle(rng, xs).slice(0, n);
  return Array.from({ length: N_QUERIES }, (_, i) => {
    if (mode === 'known-item') {
      const d = content[i % content.length]!;
      const rare = [...new Set([...d.text.matchAll(/as in the (\w+) account/g)].map((m) => m[1]!))];
      const words = shuffle(rng, [...pick(rare, 2), ...pick(vocab.get(topicOf(d)) ?? [], 3)]);
      return { text: words.join(' '), relevant: [d.id], key: d.id };
    }
    const topics = [...vocab.keys()].sort();
    const t = topics[i % topics.length]!;
    return {
      text: pick(vocab.get(t)!, 4).join(' '),
      relevant: content.filter((d) => topicOf(d) === t).map((d) => d.id),
      key: t,
    };
  });
}

export function split(
  queries: readonly Query[],
  how: Split,
  seed: number,
): { train: Query[]; test: Query[] } {
  const rng = new Prng(seed);
  if (how === 'query-disjoint') {
    const s = shuffle(rng, queries);
    const cut = Math.floor(s.length / 2);
    return { train: s.slice(0, cut), test: s.slice(cut) };
  }
  const keys = shuffle(rng, [...new Set(queries.map((q) => q.key))].sort());
  const trainKeys = new Set(keys.slice(0, Math.floor(keys.length / 2)));
  return {
    train: queries.filter((q) => trainKeys.has(q.key)),
    test: queries.filter((q) => !trainKeys.has(q.key)),
  };
}

const dedupe = (ids: readonly string[]): string[] => [...new Set(ids)];

interface RunResult {
  corpus: string;
  mode: Mode;
  split: Split;
  /** system → metric → per-test-query values. */
  values: Map<string, Record<Metric, (number | null)[]>>;
  trainGroups: number;
}

async function runOne(seed: number, mode: Mode, how: Split): Promise<RunResult> {
  const docs = makeNoiseCorpus(seed).docs;
  const path = join(tmpdir(), `quiver-ladder-${seed}-${mode}-${how}-${process.pid}.db`);
  rmSync(path, { force: true });
  const vault = await Vault.open({ overrides: { vault: path, progress: false }, env: {} });
  try {
    const report = await vault.add(
      docs.map((d) => ({ text: d.text, title: d.title, source: `bench://ladder/${d.id}` })),
    );
    const toCorpus = new Map(
      report.items.map((it) => [it.docId ?? '', it.source.replace('bench://ladder/', '')]),
    );
    const { train, test } = split(makeQueries(docs, mode, seed), how, seed);
    const search = async (q: string, limit: number): Promise<SectionHit[]> =>
      (await vault.search(q, { limit, select: { method: 'topk' } })).hits;

    for (const q of train) {
      const hits = await search(q.text, 10);
      const rel = new Set(q.relevant);
      await vault.quality.logAsk({
        question: q.text,
        context: hits.map((h, i) => toContextSection(i + 1, h, '')),
        cited: hits.flatMap((h, i) => {
          if (!rel.has(toCorpus.get(h.docId) ?? '')) return [];
          const { text: _text, score: _score, ...cited } = toContextSection(i + 1, h, '');
          return [cited];
        }),
      });
    }
    const { model } = await vault.quality.fitRanker();
    const noisy = new Set((await vault.quality.suggestNoisy({ k: 10, minScore: 0.5 })).map((r) => r.docId));
    const prior = await vault.quality.docPrior();

    const systems: [string, (q: string, hits: SectionHit[]) => Promise<SectionHit[]>][] = [
      ['base', async (_q, h) => h],
      ['+noise', async (_q, h) => h.filter((x) => !noisy.has(x.docId))],
      [
        '+prior',
        async (_q, h) =>
          h
            .map((x, i) => ({ x, i, s: x.score * (prior.get(x.docId) ?? 1) }))
            .sort((a, b) => b.s - a.s || a.i - b.i)
            .map((r) => r.x),
      ],
      ...ALPHAS.map((alpha): [string, (q: string, h: SectionHit[]) => Promise<SectionHit[]>] => [
        `+linear fused α=${alpha}`,
        (q, h) => (model.fitted ? vault.quality.retuneContext(q, h, { model, alpha }) : Promise.resolve(h)),
      ]),
      [
        '+linear substituted',
        (q, h) =>
          model.fitted
            ? vault.quality.retuneContext(q, h, { model, alpha: SUBSTITUTE_ALPHA })
            : Promise.resolve(h),
      ],
    ];
    const values = new Map<string, Record<Metric, (number | null)[]>>(
      systems.map(([n]) => [n, { 'nDCG@10': [], 'MRR@10': [], 'recall@10': [] }]),
    );
    for (const q of test) {
      const hits = await search(q.text, 20);
      const gains = Object.fromEntries(q.relevant.map((d) => [d, 1]));
      for (const [name, fn] of systems) {
        const ranked = dedupe((await fn(q.text, hits)).map((h) => toCorpus.get(h.docId) ?? h.docId)).slice(
          0,
          10,
        );
        const v = values.get(name)!;
        v['nDCG@10'].push(ndcgAtK(ranked, gains, 10));
        v['MRR@10'].push(mrrAtK(ranked, q.relevant, 10));
        v['recall@10'].push(recallAtK(ranked, q.relevant, 10));
      }
    }
    return { corpus: `generated-${seed}`, mode, split: how, values, trainGroups: model.meta.nGroups };
  } finally {
    await vault.close();
    for (const s of ['', '-wal', '-shm']) rmSync(`${path}${s}`, { force: true });
  }
}

export async function benchRankerLadder(): Promise<void> {
  const t0 = performance.now();
  const runs: RunResult[] = [];
  for (const seed of SEEDS)
    for (const mode of ['known-item', 'topic'] as const)
      for (const how of ['doc-disjoint', 'query-disjoint'] as const) {
        runs.push(await runOne(seed, mode, how));
        process.stderr.write(
          `ladder: seed ${seed} ${mode} ${how} done (${((performance.now() - t0) / 1000).toFixed(0)} s)\n`,
        );
      }
  const systems = [...runs[0]!.values.keys()];
  let md =
    '## Ranker ladder (built-in embedder)\n\n' +
    `Generated corpora seeds ${SEEDS.join(', ')}; ${N_QUERIES} queries per mode, half for simulated feedback (top 10 logged with \`logAsk\`: relevant = cited, rest = shown), half for test. ` +
    'Base = `vault.search` top 10 (top-k selection). Δ = mean over corpora of (system − base); W/L = corpora where the paired-bootstrap 95% interval (5000 resamples) is above / below 0, per metric.\n';
  for (const mode of ['known-item', 'topic'] as const)
    for (const how of ['doc-disjoint', 'query-disjoint'] as const) {
      const rs = runs.filter((r) => r.mode === mode && r.split === how);
      const base = (r: RunResult, m: Metric): number =>
        mean(r.values.get('base')![m].filter((x): x is number => x !== null));
      const rows = systems.map((s) => {
        const cells: (string | number)[] = [s];
        for (const m of METRICS) {
          if (s === 'base') {
            cells.push(mean(rs.map((r) => base(r, m))).toFixed(3), '');
            continue;
          }
          const tests = rs.map((r) => pairedBootstrap(r.values.get(s)![m], r.values.get('base')![m]));
          const d = mean(tests.map((t) => t.meanDiff ?? 0));
          cells.push(
            `${d >= 0 ? '+' : ''}${d.toFixed(3)}`,
            `${tests.filter((t) => t.verdict === 'better').length}/${tests.filter((t) => t.verdict === 'worse').length}`,
          );
        }
        return cells;
      });
      md += `\n### ${mode} queries, ${how} split (train groups used: ${rs.map((r) => r.trainGroups).join(', ')})\n\n`;
      md +=
        mdTable(['system', 'nDCG@10 (Δ)', 'W/L', 'MRR@10 (Δ)', 'W/L', 'recall@10 (Δ)', 'W/L'], rows) + '\n';
    }
  md += `\nRuntime ${((performance.now() - t0) / 1000).toFixed(0)} s on this machine.\n`;
  writeSection('ranker-ladder', md);
}

if (import.meta.url === `file://${process.argv[1]}`) await benchRankerLadder();
