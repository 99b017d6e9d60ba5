/**
 * Exact vector scan time: the previous plain-JS `VectorMatrix.scan` (scalar loop, four
 * accumulators, kept here verbatim as `oldScan`) against the current one (WebAssembly SIMD kernel,
 * and its JS twin, the fallback), median wall time per query over random unit vectors.
 *
 *   node --import tsx bench/vector-scan.ts [--dims 512] [--queries 41] [--limit 20]
 */
import { TopK } from '../src/math/top-k.js';
import { VectorMatrix } from '../src/store/sqlite/vector-cache.js';

/** Matrix sizes timed (rows): Cranfield-sized, a 13k-chunk vault, and the HNSW threshold. */
export const SCAN_SIZES = [3_000, 13_000, 50_000] as const;

/** The scan before the kernel, verbatim (bar `this`), as the baseline. */
function oldScan(
  data: Float32Array,
  count: number,
  dims: number,
  q: Float32Array,
  limit: number,
  allow?: (row: number) => boolean,
): { index: number; score: number }[] {
  if (q.length !== dims) return [];
  const top = new TopK(limit);
  for (let r = 0, off = 0; r < count; r++, off += dims) {
    if (allow !== undefined && !allow(r)) continue;
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let i = 0;
    for (; i + 3 < dims; i += 4) {
      s0 += q[i]! * data[off + i]!;
      s1 += q[i + 1]! * data[off + i + 1]!;
      s2 += q[i + 2]! * data[off + i + 2]!;
      s3 += q[i + 3]! * data[off + i + 3]!;
    }
    for (; i < dims; i++) s0 += q[i]! * data[off + i]!;
    const s = s0 + s1 + s2 + s3;
    if (s === 0) {
      let zero = true;
      for (let j = 0; j < dims; j++)
        if (data[off + j] !== 0) {
          zero = false;
          break;
        }
      if (zero) continue;
    }
    if (s >= top.threshold) top.push(r, s);
  }
  return top.result();
}

/** `count` random unit vectors of `dims` (Park–Miller), row-major. */
function unitRows(count: number, dims: number, seed: number): Float32Array {
  let x = seed;
  const out = new Float32Array(count * dims);
  for (let r = 0; r < count; r++) {
    let n = 0;
    for (let t = 0; t < dims; t++) {
      const v = ((x = (x * 48271) % 2147483647) / 2147483647) * 2 - 1;
      out[r * dims + t] = v;
      n += v * v;
    }
    const inv = 1 / Math.sqrt(n);
    for (let t = 0; t < dims; t++) out[r * dims + t]! *= inv;
  }
  return out;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1]!;
}

/** Median ms per query of `run` over `queries` (after two warm-up rounds). */
function time(queries: Float32Array[], run: (q: Float32Array) => unknown): number {
  for (const q of queries.slice(0, 2)) run(q);
  for (const q of queries.slice(0, 2)) run(q);
  return median(
    queries.map((q) => {
      const t = performance.now();
      run(q);
      return performance.now() - t;
    }),
  );
}

export interface ScanTiming {
  rows: number;
  oldMs: number;
  wasmMs: number;
  jsTwinMs: number;
  /** The default scan: an int8 pass, then the candidates exactly (`VectorMatrix.scan`). */
  int8Ms: number;
}

/** Times the three scans at each size; checks that they return the same rows. */
export function timeScans(dims: number, queryCount: number, limit: number): ScanTiming[] {
  const queries = Array.from({ length: queryCount }, (_, i) => unitRows(1, dims, 1000 + i));
  return SCAN_SIZES.map((rows) => {
    const data = unitRows(rows, dims, 7);
    const ids = Float64Array.from({ length: rows }, (_, i) => i);
    const wasm = new VectorMatrix(ids, [], [], data, dims);
    const twin = new VectorMatrix(ids, [], [], data, dims, false);
    if (!wasm.wasm) throw new Error('WebAssembly SIMD is unavailable: nothing to compare');
    for (const q of queries.slice(0, 3)) {
      const want = oldScan(data, rows, dims, q, limit)
        .map((h) => h.index)
        .join();
      if (
        wasm
          .scanExact(q, limit)
          .map((h) => h.index)
          .join() !== want
      )
        throw new Error(`rows differ at ${rows}`);
    }
    return {
      rows,
      oldMs: time(queries, (q) => oldScan(data, rows, dims, q, limit)),
      wasmMs: time(queries, (q) => wasm.scanExact(q, limit)),
      jsTwinMs: time(queries, (q) => twin.scanExact(q, limit)),
      int8Ms: time(queries, (q) => wasm.scan(q, limit)),
    };
  });
}

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : NaN;
  return Number.isFinite(v) && v > 0 ? v : fallback;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dims = arg('dims', 512);
  const queries = arg('queries', 41);
  const limit = arg('limit', 20);
  const rows = timeScans(dims, queries, limit);
  const table = [
    ['rows', 'old JS ms', 'wasm SIMD ms', 'speed-up', 'JS twin ms', 'int8 pass + exact ms'],
    ...rows.map((r) => [
      r.rows.toLocaleString('en'),
      r.oldMs.toFixed(3),
      r.wasmMs.toFixed(3),
      `${(r.oldMs / r.wasmMs).toFixed(1)}×`,
      r.jsTwinMs.toFixed(3),
      r.int8Ms.toFixed(3),
    ]),
  ];
  const widths = table[0]!.map((_, c) => Math.max(...table.map((r) => r[c]!.length)));
  console.log(
    `exact vector scan, median of ${queries} queries, ${dims} dims, limit ${limit}, random unit vectors`,
  );
  for (const r of table) console.log(r.map((cell, c) => cell.padStart(widths[c]!)).join('  '));
}
