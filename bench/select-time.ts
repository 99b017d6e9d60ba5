/**
 * Selection time for top-k, MMR and Dartboard: median wall time over many runs for N candidates
 * (15, 100, 1,000) and k (5, 10, 50), with 384-dimensional random vectors (a MiniLM-sized
 * embedding). Prints a table; makes no assertions.
 *
 *   node --import tsx bench/select-time.ts [--dim 384] [--runs 51]
 */
import { select, SELECT_METHODS } from '../src/retrieve/select/index.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : NaN;
  return Number.isFinite(v) && v > 0 ? v : fallback;
}

/** Deterministic pseudo-random vectors (Park–Miller), so every run times the same inputs. */
function vectors(count: number, dim: number, seed: number): Float32Array[] {
  let x = seed;
  const rnd = () => ((x = (x * 48271) % 2147483647) / 2147483647) * 2 - 1;
  return Array.from({ length: count }, () => Float32Array.from({ length: dim }, rnd));
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

const dim = arg('dim', 384);
const baseRuns = arg('runs', 51);
const rows: string[][] = [['N', 'k', ...SELECT_METHODS.map((m) => `${m} ms`)]];
for (const n of [15, 100, 1000]) {
  const [query] = vectors(1, dim, 7);
  const candidates = vectors(n, dim, 11 + n);
  for (const k of [5, 10, 50]) {
    const runs = n >= 1000 ? Math.max(5, Math.floor(baseRuns / 5)) : baseRuns;
    const cells = SELECT_METHODS.map((method) => {
      const input = { query: query!, candidates, k };
      for (let w = 0; w < 3; w++) select(method, input); // warm up the JIT
      const times: number[] = [];
      for (let r = 0; r < runs; r++) {
        const t0 = performance.now();
        select(method, input);
        times.push(performance.now() - t0);
      }
      return median(times).toFixed(3);
    });
    rows.push([String(n), String(k), ...cells]);
  }
}
const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
console.log(`selection time, median, dim ${dim}`);
for (const r of rows) console.log(r.map((cell, c) => cell.padStart(widths[c]!)).join('  '));
