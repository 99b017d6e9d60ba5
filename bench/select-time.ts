/**
 * Selection time for top-k, MMR, Dartboard and LangChain.js's `maximalMarginalRelevance`: median
 * wall time over many runs for N candidates (15, 100, 1,000) and k (5, 10, 50). `bench/selection.ts`
 * calls {@link timeSelectors} with real section vectors from a built vault; run alone, this file
 * times deterministic random vectors (384 dimensions, a MiniLM-sized embedding) and prints a table.
 *
 *   node --import tsx bench/select-time.ts [--dim 384] [--runs 51]
 */
import { maximalMarginalRelevance } from '@langchain/core/utils/math';
import { select, SELECT_METHODS } from '../src/retrieve/select/index.js';

/** One timed selector: a label and a function of (query, candidates, k) that selects. */
interface Timed {
  label: string;
  prepare: (
    query: Float32Array,
    candidates: Float32Array[],
    relevance: number[] | undefined,
  ) => (k: number) => unknown;
}

/**
 * The selectors timed: quiver's three with the library defaults (given the candidates' retrieval
 * scores, as `Vault.search` passes them, when there are any) and LangChain's MMR (λ 0.5, on plain
 * arrays converted once, outside the timing).
 */
export const TIMED: readonly Timed[] = [
  ...SELECT_METHODS.map((method) => ({
    label: method,
    prepare:
      (query: Float32Array, candidates: Float32Array[], relevance: number[] | undefined) => (k: number) =>
        select(method, { query, candidates, k, ...(relevance === undefined ? {} : { relevance }) }),
  })),
  {
    label: 'LangChain MMR',
    prepare: (query: Float32Array, candidates: Float32Array[]) => {
      const q = Array.from(query);
      const c = candidates.map((v) => Array.from(v));
      return (k: number) => maximalMarginalRelevance(q, c, 0.5, k);
    },
  },
];

export const TIME_SIZES: readonly number[] = [15, 100, 1000];
export const TIME_KS: readonly number[] = [5, 10, 50];

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/**
 * Median ms of `fn` over `runs` runs after warm-up (two calls, or one when a call takes over
 * 100 ms), stopping early once `budgetMs` is spent (at least 3 runs).
 */
export function medianMs(fn: () => unknown, runs: number, budgetMs = 1000): { ms: number; runs: number } {
  const w = performance.now();
  fn();
  if (performance.now() - w < 100) fn();
  const times: number[] = [];
  const start = performance.now();
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
    if (r >= 2 && performance.now() - start > budgetMs) break;
  }
  return { ms: median(times), runs: times.length };
}

/** One timing row: N, k and the median ms per selector label. */
export interface TimeRow {
  n: number;
  k: number;
  ms: Record<string, number>;
  runs: Record<string, number>;
}

/**
 * Times every selector in {@link TIMED} on the first N of `candidates` for each N and k. Runs per
 * cell: `baseRuns` for N ≤ 100, a fifth of it (at least 5) above, each cell capped at ~1 s of runs.
 */
export function timeSelectors(
  query: Float32Array,
  candidates: Float32Array[],
  options: {
    relevance?: number[];
    baseRuns?: number;
    sizes?: readonly number[];
    ks?: readonly number[];
  } = {},
): TimeRow[] {
  const { relevance, baseRuns = 51, sizes = TIME_SIZES, ks = TIME_KS } = options;
  const rows: TimeRow[] = [];
  for (const n of sizes) {
    const pool = candidates.slice(0, n);
    const runners = TIMED.map((t) => ({
      label: t.label,
      run: t.prepare(query, pool, relevance?.slice(0, n)),
    }));
    for (const k of ks) {
      const row: TimeRow = { n: pool.length, k, ms: {}, runs: {} };
      for (const r of runners) {
        const m = medianMs(() => r.run(k), n > 100 ? Math.max(5, Math.floor(baseRuns / 5)) : baseRuns);
        row.ms[r.label] = m.ms;
        row.runs[r.label] = m.runs;
      }
      rows.push(row);
    }
  }
  return rows;
}

/** Deterministic pseudo-random vectors (Park–Miller), so every run times the same inputs. */
function vectors(count: number, dim: number, seed: number): Float32Array[] {
  let x = seed;
  const rnd = () => ((x = (x * 48271) % 2147483647) / 2147483647) * 2 - 1;
  return Array.from({ length: count }, () => Float32Array.from({ length: dim }, rnd));
}

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : NaN;
  return Number.isFinite(v) && v > 0 ? v : fallback;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dim = arg('dim', 384);
  const [query] = vectors(1, dim, 7);
  const rows = timeSelectors(query!, vectors(Math.max(...TIME_SIZES), dim, 1011), {
    baseRuns: arg('runs', 51),
  });
  const labels = TIMED.map((t) => t.label);
  const table = [
    ['N', 'k', ...labels.map((l) => `${l} ms`)],
    ...rows.map((r) => [String(r.n), String(r.k), ...labels.map((l) => r.ms[l]!.toFixed(3))]),
  ];
  const widths = table[0]!.map((_, c) => Math.max(...table.map((r) => r[c]!.length)));
  console.log(`selection time, median, dim ${dim}, random vectors`);
  for (const r of table) console.log(r.map((cell, c) => cell.padStart(widths[c]!)).join('  '));
}
