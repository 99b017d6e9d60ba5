// The Peers section of RESULTS.md: quality on SciFact (and Cranfield) with paired-bootstrap
// intervals against quiver's default search, the tuning spread, and the cost table.
import { pairedBootstrap } from '../../src/evaluate/bootstrap.js';
import { mdTable, median, percentile } from '../lib.js';
import type { BuildMeasure } from './build-one.js';
import { means, QUALITY_DEPTH, type PerQuery } from './evaluate.js';
import { LATENCY_DEPTH } from './latency.js';
import type { Tuned } from './tune.js';
import type { Peer } from './types.js';

/** Everything measured for one system; a failed step leaves its error and null results. */
export interface Run {
  /** Registry name (bench/peers/registry.ts). */
  key: string;
  name: string;
  peer: Peer | null;
  tuned: Tuned | null;
  error: string | null;
  scores: PerQuery | null;
  cranfield: PerQuery | null;
  cranfieldError: string | null;
  build: BuildMeasure | string | null;
  latency: number[];
  latencyError: string | null;
}

export interface PeersReport {
  runs: readonly Run[];
  /** Registry name of the system the others are compared with. */
  baseline: string;
  /** How the SciFact queries were split into tuning and scored ones. */
  setsLabel: string;
  scored: number;
  tuning: number;
  documents: number;
  cranfieldLabel: string | null;
  /** The child that only reads the corpus (or its error). */
  corpusOnlyPeak: BuildMeasure | string;
  warmup: number;
}

const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const signed = (x: number): string => `${x >= 0 ? '+' : ''}${x.toFixed(3)}`;

const QUALITY_HEADERS = [
  'system',
  'configuration',
  'nDCG@10',
  'recall@100',
  'MRR@10',
  'ΔnDCG@10 vs quiver default [95% CI]',
  'significant',
];

function qualityTable(
  r: PeersReport,
  pick: (run: Run) => PerQuery | null,
  err: (run: Run) => string | null,
): string {
  const base = r.runs.find((run) => run.key === r.baseline);
  const baseScores = base === undefined ? null : pick(base);
  const rows = r.runs.map((run) => {
    const config = run.tuned?.variant.config ?? '—';
    const p = pick(run);
    if (p === null)
      return [run.name, config, `failed: ${run.error ?? err(run) ?? 'not run'}`, '—', '—', '—', '—'];
    const m = means(p);
    let delta = '—';
    let significant = '—';
    if (baseScores !== null && run.key !== r.baseline) {
      const b = pairedBootstrap(p.ndcg10, baseScores.ndcg10);
      if (b.meanDiff !== null && b.lo !== null && b.hi !== null) {
        delta = `${signed(b.meanDiff)} [${signed(b.lo)}, ${signed(b.hi)}]`;
        significant = b.verdict === 'no difference' ? 'no' : `yes (${b.verdict})`;
      }
    }
    return [run.name, config, m.ndcg10, m.recall100, m.mrr10, delta, significant];
  });
  return mdTable(QUALITY_HEADERS, rows);
}

function tuningTable(r: PeersReport): string {
  return mdTable(
    ['system', 'candidates scored', 'best nDCG@10', 'worst nDCG@10'],
    r.runs.map((run) =>
      run.tuned === null || run.tuned.candidates === 0
        ? [run.name, run.tuned === null ? 'failed' : 'none (one configuration)', '—', '—']
        : [run.name, run.tuned.candidates, run.tuned.best ?? NaN, run.tuned.worst ?? NaN],
    ),
  );
}

function sizeText(run: Run, b: BuildMeasure): string {
  if (run.peer === null) return '—';
  if (run.peer.size === 'in-memory' || b.sizeBytes === null) return 'in-memory, n/a';
  return `${mib(b.sizeBytes)} (${run.peer.size === 'disk' ? 'on disk' : 'serialised JSON'})`;
}

function costTable(r: PeersReport): string {
  const base = r.runs.find((run) => run.key === r.baseline);
  const baseP50 = base === undefined ? NaN : median(base.latency);
  return mdTable(
    ['system', 'build s', 'peak RSS MiB', 'size', 'query p50 ms', 'query p95 ms', 'p50 / quiver default p50'],
    r.runs.map((run) => {
      const lat =
        run.latency.length === 0
          ? [`failed: ${run.latencyError ?? run.error ?? 'not run'}`, '—', '—']
          : [
              median(run.latency).toFixed(2),
              percentile(run.latency, 95).toFixed(2),
              `${(median(run.latency) / baseP50).toFixed(2)}×`,
            ];
      const b = run.build;
      if (b === null || typeof b === 'string')
        return [run.name, `failed: ${b ?? run.error ?? 'not run'}`, '—', '—', ...lat];
      const shared = run.peer?.sharesBuildWith === undefined ? '' : ' (same vault)';
      return [
        run.name,
        `${(b.buildMs / 1000).toFixed(2)}${shared}`,
        (b.peakRssKiB / 1024).toFixed(0),
        sizeText(run, b),
        ...lat,
      ];
    }),
  );
}

export function renderPeers(r: PeersReport): string {
  const floor =
    typeof r.corpusOnlyPeak === 'string'
      ? `(failed: ${r.corpusOnlyPeak})`
      : `${(r.corpusOnlyPeak.peakRssKiB / 1024).toFixed(0)} MiB`;
  let md = `## Peers\n\nEvery system indexes the same SciFact documents (title and text) and answers the same queries with its top ${QUALITY_DEPTH}; each library is set up as its documentation recommends for English (stemming and stop words where it offers them), and its other options (title boost, BM25 parameters, prefix or fuzzy matching) are chosen by nDCG@10 on tuning queries and scored on others: ${r.setsLabel}. quiver runs its shipped defaults, which earlier benches chose on SciFact train, so for quiver the scored queries are not held out; Cranfield is scored with the configurations chosen on SciFact. ΔnDCG@10 is the paired-bootstrap 95% interval (\`src/evaluate/bootstrap.ts\`) over the scored queries, significant when it excludes 0. Latency is a separate pass at top ${LATENCY_DEPTH} over the scored queries, all systems in one process and interleaved (each query runs every system once, in an order rotated per query) after ${r.warmup} warm-up queries, so it carries this machine's noise; build time, peak RSS and size come from building each chosen configuration in a child process of its own.\n`;
  md += `\n### SciFact (${r.scored} scored queries)\n\n${qualityTable(
    r,
    (run) => run.scores,
    () => null,
  )}\n`;
  if (r.cranfieldLabel !== null)
    md += `\n### ${r.cranfieldLabel}\n\n${qualityTable(
      r,
      (run) => run.cranfield,
      (run) => run.cranfieldError,
    )}\n`;
  md += `\n### Tuning (SciFact, ${r.tuning} tuning queries)\n\n${tuningTable(r)}\n`;
  md += `\n### Cost on SciFact (${r.documents} documents)\n\n${costTable(r)}\n`;
  md += `\nPeak RSS is the child's \`VmHWM\` (its \`process.resourceUsage().maxRSS\` would start at this benchmark's own size, inherited at the fork) and includes Node, tsx and the parsed corpus: a child that only reads the corpus peaks at ${floor}. quiver's build ingests the corpus file (\`Vault.add\`, with its built-in embedder); the libraries index documents already in memory. Sizes: quiver's vault file and its sidecars, LanceDB's table folder, the documented serialised form of MiniSearch (\`JSON.stringify\`), wink (\`exportJSON\`) and Orama (\`save\`, as JSON); the plain BM25 reference has none. Orama always matches query terms as prefixes of indexed terms (its \`exact\` option is a case-sensitive filter on the raw text, not a switch for that), so a query term such as \`1\` matches every number that starts with 1.\n`;
  return md;
}
