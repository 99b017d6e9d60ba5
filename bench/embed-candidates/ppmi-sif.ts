/**
 * Candidate (b) of issue 3: word vectors fitted on the corpus's own co-occurrences (shifted PPMI +
 * truncated SVD), pooled per text with smooth inverse frequency (Arora, Liang & Ma 2017):
 *
 *   tokens     = folded words, stop-words dropped, Porter-stemmed (`words`, `STOPWORDS`, `stem`);
 *   vocabulary = stems with count ≥ minCount, the `maxVocab` most frequent (ties by string);
 *   n(w, c)    = co-occurrences within ±window in-vocabulary tokens (out-of-vocabulary tokens dropped first);
 *   SPPMI(w,c) = max(0, ln(n(w,c) / (n(w) · P_α(c))) − ln k),  P_α(c) = n(c)^α / Σ n(c')^α  (α = 0.75);
 *   W          = U_d Σ_d^p  (rank-d randomized SVD of SPPMI), rows optionally unit-normalised;
 *   v(text)    = mean over in-vocabulary tokens of  a / (a + p(w)) · W[w],   p(w) = count(w) / total;
 *   v         ← v − u uᵀ v  (u = first right singular vector of the fitted texts' pooled vectors), then v / ‖v‖.
 *
 * A text with no in-vocabulary token gets the zero vector. Bench-only code.
 */
import { STOPWORDS } from '../../src/text/stopwords.js';
import { stem, words } from '../../src/text/tokens.js';
import { csrOperator, gram, randomizedSvd, symmetricEigen } from './rsvd.js';
import type { Csr, TruncatedSvd } from './rsvd.js';

export interface PpmiSifOptions {
  dims?: number;
  window?: number;
  minCount?: number;
  maxVocab?: number;
  /** Shift k of SPPMI (1 = plain PPMI). */
  shift?: number;
  /** Context-distribution smoothing exponent α. */
  cds?: number;
  /** Eigenvalue weighting p in W = U Σ^p. */
  eigenPower?: number;
  /** Unit-normalise word vectors before pooling. */
  normalizeWords?: boolean;
  /** SIF constant a. */
  sifA?: number;
  /** Remove the first principal component. */
  removePc?: boolean;
  powerIterations?: number;
}

export const PPMI_DEFAULTS: Required<PpmiSifOptions> = {
  dims: 256,
  window: 5,
  minCount: 5,
  maxVocab: 30_000,
  shift: 1,
  cds: 0.75,
  eigenPower: 0,
  normalizeWords: true,
  sifA: 1e-3,
  removePc: true,
  powerIterations: 2,
};

/** Content tokens of a text: folded words minus stop-words, stemmed. */
export function contentTokens(text: string): string[] {
  const out: string[] = [];
  for (const w of words(text)) {
    if (STOPWORDS.has(w.replace(/['’].*$/, ''))) continue;
    out.push(stem(w));
  }
  return out;
}

export interface PpmiSifModel {
  options: Required<PpmiSifOptions>;
  vocab: Map<string, number>;
  /** V×dims word vectors, row-major. */
  vectors: Float32Array;
  /** SIF weight per vocabulary id. */
  sif: Float32Array;
  /** Unit principal direction removed from every pooled vector (zeros when off). */
  pc: Float64Array;
  dims: number;
  stats: {
    texts: number;
    tokens: number;
    vocab: number;
    nnz: number;
    /** Share of ‖SPPMI‖_F² captured by the rank-d approximation (Σ σ² / ‖M‖²). */
    energy: number;
    ms: { count: number; matrix: number; svd: number; pool: number; total: number };
  };
  embedOne(text: string): Float32Array;
}

/** Sorted-key run-length count of pair codes a·V + b (codes exact in float64). */
function countPairs(codes: Float64Array, n: number, v: number): Csr {
  const keys = codes.subarray(0, n).sort();
  const rowsOf: number[] = [];
  const cols: number[] = [];
  const vals: number[] = [];
  for (let i = 0; i < n;) {
    const k = keys[i]!;
    let j = i + 1;
    while (j < n && keys[j] === k) j++;
    rowsOf.push(Math.floor(k / v));
    cols.push(k % v);
    vals.push(j - i);
    i = j;
  }
  const indptr = new Int32Array(v + 1);
  for (const r of rowsOf) indptr[r + 1]!++;
  for (let r = 0; r < v; r++) indptr[r + 1]! += indptr[r]!;
  return { rows: v, cols: v, indptr, indices: Int32Array.from(cols), values: Float64Array.from(vals) };
}

/** The corpus statistics and the SVD of its SPPMI matrix, shared by pooling variants. */
export interface PpmiFactorization {
  options: Required<PpmiSifOptions>;
  tokenized: string[][];
  /** (stem, count) of the vocabulary, by id. */
  kept: [string, number][];
  vocab: Map<string, number>;
  total: number;
  svd: TruncatedSvd;
  nnz: number;
  energy: number;
  ms: { count: number; matrix: number; svd: number };
}

/** Counts, SPPMI matrix and its rank-d SVD over `texts` (pooling options are ignored here). */
export function fitPpmiSvd(texts: readonly string[], options: PpmiSifOptions = {}): PpmiFactorization {
  const o = { ...PPMI_DEFAULTS, ...options };
  const t0 = performance.now();
  const tokenized = texts.map(contentTokens);
  const counts = new Map<string, number>();
  let total = 0;
  for (const ts of tokenized)
    for (const t of ts) {
      counts.set(t, (counts.get(t) ?? 0) + 1);
      total++;
    }
  const kept = [...counts]
    .filter(([, c]) => c >= o.minCount)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, o.maxVocab);
  const vocab = new Map(kept.map(([w], i) => [w, i]));
  const V = vocab.size;
  const tCount = performance.now();

  // Co-occurrence pairs (both directions) as codes a·V + b, counted by sorting.
  let codes = new Float64Array(1 << 20);
  let n = 0;
  for (const ts of tokenized) {
    const ids: number[] = [];
    for (const t of ts) {
      const id = vocab.get(t);
      if (id !== undefined) ids.push(id);
    }
    for (let i = 0; i < ids.length; i++) {
      const a = ids[i]!;
      for (let j = i + 1; j <= i + o.window && j < ids.length; j++) {
        const b = ids[j]!;
        if (n + 2 > codes.length) {
          const bigger = new Float64Array(codes.length * 2);
          bigger.set(codes);
          codes = bigger;
        }
        codes[n++] = a * V + b;
        codes[n++] = b * V + a;
      }
    }
  }
  const m = countPairs(codes, n, V);
  const rowSum = new Float64Array(V);
  for (let r = 0; r < V; r++)
    for (let p = m.indptr[r]!; p < m.indptr[r + 1]!; p++) rowSum[r]! += m.values[p]!;
  let cdsTotal = 0;
  for (let c = 0; c < V; c++) cdsTotal += rowSum[c]! ** o.cds;
  const logShift = Math.log(o.shift);
  // SPPMI in place; zeros stay stored (harmless for the products).
  let frob = 0;
  for (let r = 0; r < V; r++)
    for (let p = m.indptr[r]!; p < m.indptr[r + 1]!; p++) {
      const c = m.indices[p]!;
      const pc = rowSum[c]! ** o.cds / cdsTotal;
      const x = Math.max(0, Math.log(m.values[p]! / (rowSum[r]! * pc)) - logShift);
      m.values[p] = x;
      frob += x * x;
    }
  const tMatrix = performance.now();
  const svd = randomizedSvd(csrOperator(m), Math.min(o.dims, V), {
    powerIterations: o.powerIterations,
    seed: 1,
  });
  let energy = 0;
  for (let c = 0; c < svd.k; c++) energy += svd.s[c]! ** 2;
  return {
    options: o,
    tokenized,
    kept,
    vocab,
    total,
    svd,
    nnz: m.indices.length,
    energy: frob > 0 ? energy / frob : 0,
    ms: { count: tCount - t0, matrix: tMatrix - tCount, svd: performance.now() - tMatrix },
  };
}

/**
 * The SIF embedder over a factorization, with the pooling options of `options` (eigenPower,
 * normalizeWords, sifA, removePc; the others must match the factorization's and are ignored).
 */
export function sifEmbedder(f: PpmiFactorization, options: PpmiSifOptions = {}): PpmiSifModel {
  const o = { ...f.options, ...options };
  const t0 = performance.now();
  const { svd, vocab, kept, total } = f;
  const V = vocab.size;
  const dims = svd.k;
  const vectors = new Float32Array(V * dims);
  for (let r = 0; r < V; r++) {
    let sq = 0;
    for (let c = 0; c < dims; c++) {
      const x = svd.u[r * dims + c]! * svd.s[c]! ** o.eigenPower;
      vectors[r * dims + c] = x;
      sq += x * x;
    }
    if (o.normalizeWords && sq > 0) {
      const inv = 1 / Math.sqrt(sq);
      for (let c = 0; c < dims; c++) vectors[r * dims + c]! *= inv;
    }
  }
  const sif = Float32Array.from(kept, ([, c]) => o.sifA / (o.sifA + c / total));
  const pc = new Float64Array(dims);
  const acc = new Float64Array(dims);
  const pool = (ts: readonly string[]): boolean => {
    acc.fill(0);
    let hits = 0;
    for (const t of ts) {
      const id = vocab.get(t);
      if (id === undefined) continue;
      const w = sif[id]!;
      const off = id * dims;
      for (let c = 0; c < dims; c++) acc[c]! += w * vectors[off + c]!;
      hits++;
    }
    if (hits === 0) return false;
    for (let c = 0; c < dims; c++) acc[c]! /= hits;
    return true;
  };
  if (o.removePc) {
    const pooled: number[] = [];
    let rows = 0;
    for (const ts of f.tokenized) {
      if (!pool(ts)) continue;
      for (let c = 0; c < dims; c++) pooled.push(acc[c]!);
      rows++;
    }
    const eig = symmetricEigen(gram(Float64Array.from(pooled), rows, dims), dims);
    for (let c = 0; c < dims; c++) pc[c] = eig.vectors[c * dims]!;
  }
  const poolMs = performance.now() - t0;

  function embedOne(text: string): Float32Array {
    const out = new Float32Array(dims);
    if (!pool(contentTokens(text))) return out;
    if (o.removePc) {
      let proj = 0;
      for (let c = 0; c < dims; c++) proj += pc[c]! * acc[c]!;
      for (let c = 0; c < dims; c++) acc[c]! -= proj * pc[c]!;
    }
    let sq = 0;
    for (let c = 0; c < dims; c++) sq += acc[c]! * acc[c]!;
    if (sq === 0) return out;
    const inv = 1 / Math.sqrt(sq);
    for (let c = 0; c < dims; c++) out[c] = acc[c]! * inv;
    return out;
  }

  return {
    options: o,
    vocab,
    vectors,
    sif,
    pc,
    dims,
    stats: {
      texts: f.tokenized.length,
      tokens: total,
      vocab: V,
      nnz: f.nnz,
      energy: f.energy,
      ms: { ...f.ms, pool: poolMs, total: f.ms.count + f.ms.matrix + f.ms.svd + poolMs },
    },
    embedOne,
  };
}

/** Fits the model on `texts` (the vault's own documents or chunks): `fitPpmiSvd` then `sifEmbedder`. */
export function fitPpmiSif(texts: readonly string[], options: PpmiSifOptions = {}): PpmiSifModel {
  return sifEmbedder(fitPpmiSvd(texts, options), options);
}

/**
 * Candidate (c): the concatenation [√λ · a(t), √(1−λ) · b(t)] of two unit vectors, so that
 * cos(x, y) = λ · cos_a + (1 − λ) · cos_b when both parts are non-zero. A zero part leaves the other
 * part's share; the result is renormalised (zero stays zero).
 */
export function concatEmbedder(
  a: (t: string) => Float32Array,
  b: (t: string) => Float32Array,
  lambda: number,
): (t: string) => Float32Array {
  const wa = Math.sqrt(lambda);
  const wb = Math.sqrt(1 - lambda);
  return (t) => {
    const x = a(t);
    const y = b(t);
    const out = new Float32Array(x.length + y.length);
    let sq = 0;
    for (let i = 0; i < x.length; i++) {
      const v = wa * x[i]!;
      out[i] = v;
      sq += v * v;
    }
    for (let i = 0; i < y.length; i++) {
      const v = wb * y[i]!;
      out[x.length + i] = v;
      sq += v * v;
    }
    if (sq > 0 && Math.abs(sq - 1) > 1e-6) {
      const inv = 1 / Math.sqrt(sq);
      for (let i = 0; i < out.length; i++) out[i]! *= inv;
    }
    return out;
  };
}
