/**
 * Chunk-level building blocks of the noise features: rank normalisation, normalised entropy,
 * chunk idf, exact cosine kNN and seeded spherical k-means. All pure and deterministic.
 */

import { Prng } from '../prng.js';

/** Half-width scale of {@link rankNormalize}: values lie in [−1.73, +1.73] (≈ ±√3, a unit-variance uniform). */
export const RANK_Z_SCALE = 3.46;

/**
 * Rank-normalise each column: rank the rows 0..n−1 (ties get their average rank), then
 * `z = (rank/(n−1) − 0.5) · 3.46`, in [−1.73, 1.73]. A constant column is all 0. Fewer than 3 rows
 * → all zeros. Robust to outliers, unlike z-scores (one hub outlier took the reference's AUC from
 * 0.988 to 0.55). NaN values rank as equal to each other and above every number.
 *
 * @example rankNormalize([[1], [2], [3], [3]]) // [[-1.73], [-0.576667], [1.153333], [1.153333]]
 */
export function rankNormalize(X: readonly (readonly number[])[]): number[][] {
  const n = X.length;
  const d = X[0]?.length ?? 0;
  const Z = X.map(() => new Array<number>(d).fill(0));
  if (n < 3) return Z;
  const key = (v: number): number => (Number.isNaN(v) ? Infinity : v);
  for (let c = 0; c < d; c++) {
    const col = X.map((row) => key(row[c] ?? 0));
    const order = col
      .map((_, i) => i)
      .sort((a, b) => (col[a]! < col[b]! ? -1 : col[a]! > col[b]! ? 1 : a - b));
    let i = 0;
    while (i < n) {
      let j = i;
      while (j + 1 < n && col[order[j + 1]!] === col[order[i]!]) j++;
      const rank = (i + j) / 2;
      const z = (rank / (n - 1) - 0.5) * RANK_Z_SCALE;
      for (let t = i; t <= j; t++) Z[order[t]!]![c] = z;
      i = j + 1;
    }
  }
  return Z;
}

/**
 * Normalised Shannon entropy of one probability row: clip each p to [1e-9, 1], then
 * `−Σ p ln p / ln K` (K = row length). K ≤ 1 → 0. Uniform → 1; one-hot → ≈0 (not exactly 0,
 * because of the clip).
 *
 * @example entropy([0.75, 0.25]) // 0.811278
 */
export function entropy(p: ArrayLike<number>): number {
  const K = p.length;
  if (K <= 1) return 0;
  let h = 0;
  for (let i = 0; i < K; i++) {
    const v = Math.min(1, Math.max(1e-9, p[i]!));
    h -= v * Math.log(v);
  }
  return h / Math.log(K);
}

const IDF_TOKEN = /[A-Za-z0-9_']+/g;

/** Tokens for idf: `[A-Za-z0-9_']+` over the lower-cased text (ASCII only; `cat's` ≠ `cat`). */
export function idfTokens(text: string): string[] {
  return text.toLowerCase().match(IDF_TOKEN) ?? [];
}

/**
 * Chunk idf: `idf(w) = ln(N / (1 + df(w)))`, N = max(number of texts, 1), df = number of texts
 * containing w. A token in every text gets a negative idf ln(N/(N+1)). Tokens: {@link idfTokens}.
 *
 * @example idf(['the cat sat', 'the dog sat', "the cat's hat", 'A B_c 9']).get('sat') // ln(4/3)
 */
export function idf(texts: readonly string[]): Map<string, number> {
  const df = new Map<string, number>();
  for (const t of texts) for (const w of new Set(idfTokens(t))) df.set(w, (df.get(w) ?? 0) + 1);
  const N = Math.max(texts.length, 1);
  const out = new Map<string, number>();
  for (const [w, c] of df) out.set(w, Math.log(N / (1 + c)));
  return out;
}

/** Neighbour lists: `idx[i]` and `sim[i]` are row i's k nearest other rows, most similar first. */
export interface KnnResult {
  idx: number[][];
  sim: number[][];
}

/** A kNN implementation (exact here; the lead may inject the ANN index with self removed by id). */
export type KnnFn = (V: readonly Float32Array[], k: number) => KnnResult;

function dotF(a: Float32Array, b: Float32Array): number {
  let s = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) s += a[i]! * b[i]!;
  return s;
}

/**
 * Exact cosine kNN over unit rows (cosine = dot product; normalise first). `k ← min(k, n−1)`;
 * n < 3 or k < 1 → every row gets empty lists. A row is never its own neighbour. Neighbours are
 * sorted by similarity descending, ties by lower index. O(n²·dim).
 */
export function knn(V: readonly Float32Array[], k: number): KnnResult {
  const n = V.length;
  const kk = Math.min(Math.floor(k), n - 1);
  const idx: number[][] = V.map(() => []);
  const sim: number[][] = V.map(() => []);
  if (n < 3 || kk < 1) return { idx, sim };
  for (let i = 0; i < n; i++) {
    const vi = V[i]!;
    const ti = idx[i]!;
    const ts = sim[i]!;
    for (let j = 0; j < n; j++) {
      if (j === i) continue;
      const s = dotF(vi, V[j]!);
      if (ts.length === kk && !(s > ts[kk - 1]!)) continue;
      let p = ts.length;
      while (p > 0 && s > ts[p - 1]!) p--;
      ts.splice(p, 0, s);
      ti.splice(p, 0, j);
      if (ts.length > kk) {
        ts.pop();
        ti.pop();
      }
    }
  }
  return { idx, sim };
}

/** Default number of k-means iterations. */
export const DEFAULT_KMEANS_ITERS = 25;

function unit(v: Float64Array, minNorm = 1e-9): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
  const n = Math.sqrt(s);
  const d = n < minNorm ? 1 : n;
  return Float32Array.from(v, (x) => x / d);
}

/**
 * Seeded spherical k-means (deterministic for a given seed and input).
 * 1. `k ← max(2, min(k, ⌊n/4⌋))`; n ≤ 8 → one centroid, the normalised mean (n = 0 → []).
 * 2. k-means++ with {@link Prng}(seed): first centroid V[int(n)], d = 1 − V·C₀; each next one
 *    drawn with probability ∝ max(d, 0)² (uniform if all zero), then d = min(d, 1 − V·Cᵢ).
 * 3. Lloyd, ≤ `iters` rounds: assign each row to argmax V·Cᵀ (first on ties); stop when the
 *    assignment no longer changes; centroid = normalised sum of its members; an empty cluster
 *    takes the row farthest from its nearest centroid (d of the previous round).
 * 4. Centroids with norm ≤ 1e-6 are dropped.
 */
export function kmeans(
  V: readonly Float32Array[],
  k: number,
  seed = 0,
  iters = DEFAULT_KMEANS_ITERS,
): Float32Array[] {
  const n = V.length;
  if (n === 0) return [];
  const dim = V[0]!.length;
  if (n <= 8) {
    const m = new Float64Array(dim);
    for (const v of V) for (let i = 0; i < dim; i++) m[i]! += v[i]!;
    return [unit(m)];
  }
  const K = Math.max(2, Math.min(Math.floor(k), Math.floor(n / 4)));
  const rng = new Prng(seed);
  let C: Float32Array[] = [Float32Array.from(V[rng.int(n)]!)];
  let d = V.map((v) => 1 - dotF(v, C[0]!));
  while (C.length < K) {
    const pr = d.map((x) => Math.max(x, 0) ** 2);
    const total = pr.reduce((a, b) => a + b, 0);
    let pick: number;
    if (!(total > 0)) pick = rng.int(n);
    else {
      const u = rng.random();
      let cum = 0;
      pick = n - 1;
      for (let i = 0; i < n; i++) {
        cum += pr[i]! / total;
        if (cum >= u) {
          pick = i;
          break;
        }
      }
    }
    const c = Float32Array.from(V[pick]!);
    C.push(c);
    d = d.map((x, i) => Math.min(x, 1 - dotF(V[i]!, c)));
  }
  let assign = new Int32Array(n).fill(-1);
  for (let it = 0; it < iters; it++) {
    const next = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      let best = 0;
      let bs = -Infinity;
      for (let c = 0; c < C.length; c++) {
        const s = dotF(V[i]!, C[c]!);
        if (s > bs) {
          bs = s;
          best = c;
        }
      }
      next[i] = best;
    }
    if (next.every((a, i) => a === assign[i])) break;
    assign = next;
    const sums = C.map(() => new Float64Array(dim));
    const counts = new Int32Array(C.length);
    for (let i = 0; i < n; i++) {
      const s = sums[assign[i]!]!;
      counts[assign[i]!]!++;
      const v = V[i]!;
      for (let t = 0; t < dim; t++) s[t]! += v[t]!;
    }
    let far = 0;
    for (let i = 1; i < n; i++) if (d[i]! > d[far]!) far = i;
    C = sums.map((s, c) => (counts[c] === 0 ? Float32Array.from(V[far]!) : unit(s)));
    d = V.map((v) => 1 - Math.max(...C.map((c) => dotF(v, c))));
  }
  return C.filter((c) => Math.sqrt(dotF(c, c)) > 1e-6).map((c) => unit(Float64Array.from(c), 0));
}

/**
 * Round a number to the nearest IEEE-754 half-precision value (round half to even), as the
 * reference stores vectors (float16). |x| ≥ 65520 → ±Infinity; below 2^−14 the subnormal step
 * 2^−24 applies; NaN, ±0 and ±Infinity pass through. Used to reproduce the reference's test vectors.
 *
 * @example toFloat16Round(0.1) // 0.0999755859375
 */
export function toFloat16Round(x: number): number {
  if (!Number.isFinite(x) || x === 0) return x;
  const sign = x < 0 ? -1 : 1;
  const a = Math.abs(x);
  if (a >= 65520) return sign * Infinity;
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e--;
  else if (2 ** (e + 1) <= a) e++;
  const quantum = e < -14 ? 2 ** -24 : 2 ** (e - 10);
  const q = a / quantum;
  let r = Math.floor(q);
  const frac = q - r;
  if (frac > 0.5 || (frac === 0.5 && r % 2 === 1)) r++;
  return sign * r * quantum;
}
