/**
 * Built-in embedder candidates (issue 3), measured on SciFact train and HotpotQA:
 *   (a) hashing: quiver's default hashing embedder (512 dims, words + character 3–5-grams) with IDF
 *       fitted on the corpus (`createHashingEmbedder` + `fitHashingIdf`);
 *   (b) PPMI+SVD+SIF: word vectors from the corpus's own co-occurrences, pooled with smooth inverse
 *       frequency, first principal component removed (bench/embed-candidates/ppmi-sif.ts);
 *   (c) concatenations [√λ·a, √(1−λ)·b] (cosine = λ·cos_a + (1−λ)·cos_b).
 * Each model is fitted on the corpus it is measured on (title + body of every document), as a vault
 * fits on its own chunks. For each: the vector leg alone (brute-force cosine over title + body), RRF
 * with quiver's lexical leg (in-memory FTS5 BM25, title weight 3, `any`-mode terms, no feedback pass)
 * at several vector weights, near-duplicate geometry and throughput as in bench/embedders.ts, and
 * fitting time.
 *
 *   node --import tsx bench/embedder-candidates.ts [--no-sweep] [--runs 3]
 *
 * Writes the section `embedder-candidates` (bench/out/sections/embedder-candidates.md).
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { createHashingEmbedder, hashingFeatureOptions } from '../src/embed/hashing.js';
import { fitHashingIdf } from '../src/embed/hashing-idf.js';
import { loadBeir } from '../src/evaluate/datasets/beir.js';
import { ndcgAtK, recallAtK } from '../src/evaluate/retrieval-metrics.js';
import {
  avg,
  cpuMs,
  docText,
  embedAll,
  fuse,
  geometry,
  lexicalRankings,
  makeEdits,
  pairedBootstrap,
  quantile,
  throughputChunks,
  vectorRankings,
} from './embed-candidates/measure.js';
import type { Doc, Embed } from './embed-candidates/measure.js';
import { concatEmbedder, fitPpmiSvd, sifEmbedder } from './embed-candidates/ppmi-sif.js';
import type { PpmiFactorization, PpmiSifModel, PpmiSifOptions } from './embed-candidates/ppmi-sif.js';
import { rsvdSelfCheck } from './embed-candidates/rsvd.js';
import { ci, verdict } from './embed-candidates/verdict.js';
import { hotpotCorpus, hotpotFile } from './near-duplicates.js';
import { dataPath, machine, mdTable, median, writeSection } from './lib.js';

export const FUSION_WEIGHTS = [0.05, 0.1, 0.3, 1] as const;
const LAMBDAS = [0.5, 0.7] as const;
const f3 = (x: number): string => x.toFixed(3);
const secs = (ms: number): string => (ms / 1000).toFixed(1);

interface Candidate {
  name: string;
  dims: number;
  embed: Embed;
  fitMs: number;
}

/** The candidates fitted on one corpus. */
function fitCandidates(texts: readonly string[]): {
  list: Candidate[];
  ppmi: PpmiSifModel;
  fact: PpmiFactorization;
  idfMs: number;
} {
  let t = performance.now();
  const idf = fitHashingIdf(texts, hashingFeatureOptions({}));
  const idfMs = performance.now() - t;
  const hashing = createHashingEmbedder({ idf });
  t = performance.now();
  const fact = fitPpmiSvd(texts);
  const ppmi = sifEmbedder(fact);
  const ppmiMs = performance.now() - t;
  const list: Candidate[] = [
    { name: 'hashing 512 + IDF', dims: hashing.dims, embed: hashing.embedOne, fitMs: idfMs },
    { name: `PPMI+SVD+SIF ${ppmi.dims}`, dims: ppmi.dims, embed: ppmi.embedOne, fitMs: ppmiMs },
    ...LAMBDAS.map((l) => ({
      name: `concat λ=${l} (hashing ${l}, PPMI ${Math.round((1 - l) * 10) / 10})`,
      dims: hashing.dims + ppmi.dims,
      embed: concatEmbedder(hashing.embedOne, ppmi.embedOne, l),
      fitMs: idfMs + ppmiMs,
    })),
  ];
  return { list, ppmi, fact, idfMs };
}

interface Metrics {
  /** SciFact: nDCG@10, recall@100. HotpotQA: recall@2, all-gold@2, recall@10. */
  [k: string]: number;
}

/** Per configuration (vector alone and each fusion weight) metrics for one candidate. */
function evaluate(
  docs: readonly Doc[],
  queries: readonly string[],
  lexical: readonly string[][],
  embed: Embed,
  score: (rankings: readonly string[][]) => Metrics,
): { vector: Metrics; fused: Metrics[]; fusedRankings: string[][][] } {
  const dm = embedAll(embed, docs.map(docText));
  const vec = vectorRankings(docs, dm, queries, embed);
  const fusedRankings = FUSION_WEIGHTS.map((w) => vec.map((v, i) => fuse(lexical[i]!, v, w)));
  return { vector: score(vec), fused: fusedRankings.map(score), fusedRankings };
}

function readDocs(path: string): Doc[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const o = JSON.parse(l) as { _id: string; title?: string; text?: string };
      return { id: String(o._id), title: o.title ?? '', text: o.text ?? '' };
    });
}

/** Pooling variants of PPMI+SVD+SIF (they reuse the default's SVD, so the sweep is cheap). */
const SWEEP: PpmiSifOptions[] = [
  { eigenPower: 0.5 },
  { eigenPower: 1 },
  { normalizeWords: false },
  { removePc: false },
  { sifA: 1e-2 },
  { sifA: 1e-4 },
];

/** Variants that change the co-occurrence matrix, so need their own SVD. */
const REFIT_SWEEP: PpmiSifOptions[] = [{ window: 10 }];

/** The throughput bar for the built-in embedder (chunks/s on this machine). */
const THROUGHPUT_BAR = 10_000;

export async function benchEmbedderCandidates(
  options: { sweep?: boolean; runs?: number } = {},
): Promise<void> {
  const tStart = performance.now();
  const runs = options.runs ?? 3;
  const scifactDir = dataPath('scifact');
  const hotpotDir = dataPath('hotpotqa');
  if (scifactDir === null || hotpotDir === null) {
    writeSection(
      'embedder-candidates',
      '## Built-in embedder candidates\n\nSkipped: SciFact or HotpotQA not found under the data folder.',
    );
    return;
  }
  const check = rsvdSelfCheck();
  console.log(`randomized SVD self-check: ${JSON.stringify(check)}`);

  // ---- SciFact train ----
  const set = loadBeir(scifactDir, 'train');
  const sfDocs = readDocs(set.corpusPath);
  const sfQueries = set.queries.map((q) => q.text);
  const sfGains = set.queries.map((q) => Object.fromEntries(set.qrels.get(q.id) ?? []));
  const sfScore = (rankings: readonly string[][]): Metrics => ({
    ndcg10: avg(rankings.map((r, i) => ndcgAtK(r, sfGains[i]!, 10) ?? 0)),
    recall100: avg(
      rankings.map(
        (r, i) =>
          recallAtK(
            r,
            Object.keys(sfGains[i]!).filter((d) => sfGains[i]![d]! > 0),
            100,
          ) ?? 0,
      ),
    ),
  });
  const sfFit = fitCandidates(sfDocs.map(docText));
  console.log(`SciFact PPMI fit: ${JSON.stringify(sfFit.ppmi.stats)}`);
  const sfLexical = lexicalRankings(sfDocs, sfQueries);
  const sfLex = sfScore(sfLexical);
  const sfRes = sfFit.list.map((c) => {
    const r = evaluate(sfDocs, sfQueries, sfLexical, c.embed, sfScore);
    console.log(
      `SciFact ${c.name}: vector ${f3(r.vector.ndcg10!)}, fused ${r.fused.map((m) => f3(m.ndcg10!)).join(' ')}`,
    );
    return r;
  });

  // ---- HotpotQA (50 dev questions, all their paragraphs) ----
  const hp = hotpotCorpus(hotpotFile(hotpotDir), false);
  const hpDocs: Doc[] = hp.passages.map((p) => ({ id: p.id, title: p.title, text: p.text }));
  const hpQueries = hp.queries.map((q) => q.text);
  const hpScore = (rankings: readonly string[][]): Metrics => ({
    r2: avg(rankings.map((r, i) => recallAtK(r, hp.queries[i]!.gold, 2) ?? 0)),
    all2: avg(rankings.map((r, i) => ((recallAtK(r, hp.queries[i]!.gold, 2) ?? 0) === 1 ? 1 : 0))),
    r10: avg(rankings.map((r, i) => recallAtK(r, hp.queries[i]!.gold, 10) ?? 0)),
  });
  const hpFit = fitCandidates(hpDocs.map(docText));
  console.log(`HotpotQA PPMI fit: ${JSON.stringify(hpFit.ppmi.stats)}`);
  const hpLexical = lexicalRankings(hpDocs, hpQueries);
  const hpLex = hpScore(hpLexical);
  const hpRes = hpFit.list.map((c) => {
    const r = evaluate(hpDocs, hpQueries, hpLexical, c.embed, hpScore);
    console.log(
      `HotpotQA ${c.name}: vector ${f3(r.vector.r2!)}, fused ${r.fused.map((m) => f3(m.r2!)).join(' ')}`,
    );
    return r;
  });

  // ---- geometry and throughput (SciFact-fitted models) ----
  const edits = makeEdits(sfDocs, 1000);
  const geo = sfFit.list.map((c) => geometry(c.embed, edits));
  const chunks = throughputChunks(sfDocs);
  for (const c of sfFit.list) for (const t of chunks) c.embed(t); // warm-up
  const wall: number[][] = sfFit.list.map(() => []);
  const cpu: number[][] = sfFit.list.map(() => []);
  for (let r = 0; r < runs; r++)
    for (const [k, c] of sfFit.list.entries()) {
      const c0 = cpuMs();
      const t0 = performance.now();
      for (const t of chunks) c.embed(t);
      wall[k]!.push((chunks.length / (performance.now() - t0)) * 1000);
      cpu[k]!.push((chunks.length / (cpuMs() - c0)) * 1000);
    }

  // ---- optional sweep of PPMI pooling settings (SciFact vector leg alone) ----
  const sweepRows: (string | number)[][] = [];
  if (options.sweep ?? true) {
    const texts = sfDocs.map(docText);
    for (const o of [...SWEEP, ...REFIT_SWEEP]) {
      const refit = REFIT_SWEEP.includes(o);
      const t = performance.now();
      const m = refit ? sifEmbedder(fitPpmiSvd(texts, o)) : sifEmbedder(sfFit.fact, o);
      const fitS = refit ? secs(performance.now() - t) : 'same SVD';
      const s = sfScore(vectorRankings(sfDocs, embedAll(m.embedOne, texts), sfQueries, m.embedOne));
      sweepRows.push([JSON.stringify(o).replace(/[{}"]/g, ''), s.ndcg10!, s.recall100!, fitS]);
      console.log(`sweep ${JSON.stringify(o)}: ${f3(s.ndcg10!)} / ${f3(s.recall100!)}`);
    }
  }

  // ---- tables ----
  const names = sfFit.list.map((c) => c.name);
  const wCols = FUSION_WEIGHTS.map((w) => `fused w_vec=${w}`);
  const sfTable = mdTable(
    ['candidate', 'vector alone', ...wCols],
    [
      [
        'lexical alone (BM25)',
        `${f3(sfLex.ndcg10!)} / ${f3(sfLex.recall100!)}`,
        ...FUSION_WEIGHTS.map(() => ''),
      ],
      ...sfRes.map((r, k) => [
        names[k]!,
        `${f3(r.vector.ndcg10!)} / ${f3(r.vector.recall100!)}`,
        ...r.fused.map((m) => `${f3(m.ndcg10!)} / ${f3(m.recall100!)}`),
      ]),
    ],
  );
  const hpCell = (m: Metrics): string => `${f3(m.r2!)} / ${f3(m.all2!)} / ${f3(m.r10!)}`;
  const hpTable = mdTable(
    ['candidate', 'vector alone', ...wCols],
    [
      ['lexical alone (BM25)', hpCell(hpLex), ...FUSION_WEIGHTS.map(() => '')],
      ...hpRes.map((r, k) => [names[k]!, hpCell(r.vector), ...r.fused.map(hpCell)]),
    ],
  );
  const pair = (xs: number[], q: number): string => `${f3(avg(xs))}/${f3(quantile(xs, q))}`;
  const geoTable = mdTable(
    [
      'candidate',
      'dims',
      'chunks/s',
      'chunks/s CPU',
      'fit SciFact s',
      'fit HotpotQA s',
      'drop mean/p5',
      'swap mean/p5',
      'number mean/p5',
      'far mean/p95',
      'margin',
    ],
    sfFit.list.map((c, k) => [
      c.name,
      c.dims,
      Math.round(median(wall[k]!)),
      Math.round(median(cpu[k]!)),
      secs(c.fitMs),
      secs(hpFit.list[k]!.fitMs),
      pair(geo[k]!.drop, 0.05),
      pair(geo[k]!.swap, 0.05),
      pair(geo[k]!.number, 0.05),
      pair(geo[k]!.far, 0.95),
      f3(geo[k]!.margin),
    ]),
  );
  const ppmiLine = (label: string, m: PpmiSifModel): string => {
    const s = m.stats;
    return `${label}: ${s.texts} texts, ${s.tokens} content tokens, vocabulary ${s.vocab}, ${s.nnz} non-zero co-occurrence cells, rank-${m.dims} SVD keeps ${(100 * s.energy).toFixed(1)}% of ‖SPPMI‖²; fit ${secs(s.ms.total)} s (counting ${secs(s.ms.count)}, matrix ${secs(s.ms.matrix)}, SVD ${secs(s.ms.svd)}, SIF principal component ${secs(s.ms.pool)}).`;
  };

  // ---- paired differences fused − lexical (SciFact nDCG@10) and the verdict, from the numbers ----
  const perQuery = (rankings: readonly string[][]): number[] =>
    rankings.map((r, i) => ndcgAtK(r, sfGains[i]!, 10) ?? 0);
  const lexPer = perQuery(sfLexical);
  const deltas = sfRes.map((r) =>
    r.fusedRankings.map((rk) => pairedBootstrap(perQuery(rk).map((x, i) => x - lexPer[i]!))),
  );
  const hpCellAt = (k: number, w: number): string => hpCell(hpRes[k]!.fused[w]!);
  const deltaTable = mdTable(
    ['candidate', ...wCols],
    deltas.map((row, k) => [names[k]!, ...row.map(ci)]),
  );
  const verdictMd = verdict({
    names,
    weights: FUSION_WEIGHTS,
    bar: THROUGHPUT_BAR,
    lexical: { ndcg10: sfLex.ndcg10!, recall100: sfLex.recall100!, hotpot: hpCell(hpLex) },
    vector: sfRes.map((r, k) => ({
      ndcg10: r.vector.ndcg10!,
      recall100: r.vector.recall100!,
      hpR2: hpRes[k]!.vector.r2!,
      hpR10: hpRes[k]!.vector.r10!,
    })),
    fused: sfRes.map((r, k) =>
      r.fused.map((m, w) => ({ ndcg10: m.ndcg10!, recall100: m.recall100!, hotpot: hpCellAt(k, w) })),
    ),
    deltas,
    cpuRate: sfFit.list.map((_, k) => median(cpu[k]!)),
    fitMs: sfFit.list.map((c) => c.fitMs),
    dims: sfFit.list.map((c) => c.dims),
  });

  const md =
    `## Built-in embedder candidates (SciFact train, HotpotQA)\n\n` +
    `Produced by \`bench/embedder-candidates.ts\`. Candidates, each fitted on the corpus it is measured on (title + body of every document, as a vault fits on its own chunks): **hashing 512 + IDF** (quiver's built-in: stemmed words + character 3–5-grams, sublinear TF, IDF from \`fitHashingIdf\`); **PPMI+SVD+SIF** (stemmed content words with count ≥ 5, at most 30k; co-occurrences within ±5 content words; PPMI with context smoothing α = 0.75, shift k = 1; randomized rank-256 SVD with 2 power iterations, word vectors U (eigenvalue weight p = 0, chosen by the sweep below; p = ½ was the starting point) unit-normalised; per text the SIF-weighted mean a/(a + p(w)), a = 1e-3, minus its projection on the first principal component of the corpus's pooled vectors); **concat λ** = [√λ·hashing, √(1−λ)·PPMI], so cosine = λ·cos_hashing + (1−λ)·cos_PPMI. ` +
    `Vector leg: brute-force cosine over title + body, top ${300}. Lexical leg: in-memory FTS5 (porter unicode61 remove_diacritics 2), BM25 with title weight 3, \`any\`-mode terms (\`queryTerms\` + \`compileFtsQuery\`), top 300, over whole documents and without quiver's pseudo-relevance-feedback pass (so it is close to, not the same as, the retrieval-quality section's lexical leg). Fusion: \`rrf\` (k = 60), lexical weight 1, vector weight w_vec. ` +
    `Randomized SVD self-check (synthetic rank-12 60×45 matrix): relative reconstruction error ${check.exactErr.toExponential(1)} exact, ${check.noisyErr.toExponential(1)} with noise; ‖UᵀU − I‖ ${check.orthoErr.toExponential(1)}.\n\n` +
    `### SciFact train (${sfQueries.length} claims, ${sfDocs.length} documents): nDCG@10 / recall@100\n\n${sfTable}\n\n` +
    `### HotpotQA (${hpQueries.length} dev questions, ${hpDocs.length} paragraphs): gold recall@2 / both gold in top 2 / recall@10\n\n` +
    `One question is 0.02 of "both@2", so differences below ~0.04 are noise.\n\n${hpTable}\n\n` +
    `### Near-duplicate geometry, throughput and fitting time (SciFact-fitted models)\n\n` +
    `Geometry as in "Built-in embedder variants": ${edits.drop.length} passages of ~512 characters vs a copy with a sentence dropped, two words swapped, a number changed, and vs an unrelated passage; margin = p5 of near-duplicate cosines − p95 of unrelated. Throughput: ${chunks.length} chunks of ≤ 512 characters, median of ${runs} runs, one core; "CPU" divides by process CPU time (the machine was shared: load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' / ')} at the end, so wall-clock numbers are pessimistic).\n\n${geoTable}\n\n` +
    `${ppmiLine('PPMI fit, SciFact', sfFit.ppmi)} ${ppmiLine('PPMI fit, HotpotQA', hpFit.ppmi)} Hashing IDF fit: SciFact ${secs(sfFit.idfMs)} s, HotpotQA ${secs(hpFit.idfMs)} s.\n\n` +
    (sweepRows.length > 0
      ? `### PPMI+SVD+SIF pooling settings (SciFact train, vector leg alone; one change from the default each)\n\nMeasured on the split the default was chosen on, so read these as sensitivity, not as held-out scores. Default: ${f3(sfRes[1]!.vector.ndcg10!)} / ${f3(sfRes[1]!.vector.recall100!)}.\n\n` +
        mdTable(['change', 'nDCG@10', 'recall@100', 'fit s'], sweepRows) +
        '\n\n'
      : '') +
    `### Fused − lexical alone, SciFact nDCG@10 (mean over claims, 95% paired bootstrap interval)\n\n${deltaTable}\n\n` +
    `${verdictMd}\n\nRun time ${secs(performance.now() - tStart)} s on ${machine()}.\n`;
  writeSection('embedder-candidates', md);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const i = process.argv.indexOf('--runs');
  await benchEmbedderCandidates({
    sweep: !process.argv.includes('--no-sweep'),
    runs: i === -1 ? 3 : Number(process.argv[i + 1]),
  });
}
