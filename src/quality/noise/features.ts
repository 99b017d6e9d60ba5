/**
 * Per-document noise features from the chunk vectors and texts: the nine reference features
 * (quality-reference §5.3) followed by the content-intrinsic ones (./intrinsic.ts). Every column is
 * oriented so that larger = noisier.
 */

import { codePointLength } from '../../text/tokens.js';
import { INTRINSIC_FEATURES, intrinsicFeatures } from './intrinsic.js';
import { entropy, idf, idfTokens, kmeans, knn } from './primitives.js';
import type { KnnFn } from './primitives.js';

/** The reference's nine features, in its column order. */
export const NOISE_FEATURES = [
  'hub',
  'dup_out',
  'off_centre',
  'spread_chunk',
  'spread_doc',
  'low_idf',
  'redundancy',
  'short',
  'promiscuity',
] as const;

/** All columns {@link noiseFeatures} returns: the nine reference features, then the intrinsic ones. */
export const ALL_NOISE_FEATURES: readonly string[] = [...NOISE_FEATURES, ...INTRINSIC_FEATURES];

export const DEFAULT_NOISE_K = 10;
export const DEFAULT_NOISE_TOPICS = 64;
export const DEFAULT_NOISE_TAU = 0.9;
export const DEFAULT_NOISE_TEMP = 8;
/** A chunk shorter than this many code points counts as `short`. */
export const SHORT_CHUNK_CHARS = 200;

/** One embedded chunk. Chunks of a document should be given in reading order. */
export interface NoiseChunk {
  docId: string;
  text: string;
  vector: Float32Array;
}

export interface NoiseFeaturesInput {
  chunks: readonly NoiseChunk[];
  /** Distinct logged questions that retrieved each document (for `promiscuity`). */
  questionsByDoc?: ReadonlyMap<string, ReadonlySet<string>>;
  /** Neighbours per chunk. Defaults to 10. */
  k?: number;
  /** Number of k-means topics (capped at n/4). Defaults to 64. */
  topics?: number;
  /** Near-duplicate cosine threshold. Defaults to 0.9. */
  tau?: number;
  /** Softmax temperature over centroid similarities. Defaults to 8. */
  temp?: number;
  /** k-means seed. Defaults to 0. */
  seed?: number;
  /** kNN implementation; defaults to exact {@link knn}. Must exclude the row itself. */
  knnImpl?: KnnFn;
}

/** One row per document (order of first appearance in `chunks`), one column per name. */
export interface NoiseFeatureMatrix {
  docIds: string[];
  names: string[];
  X: number[][];
}

function unitRow(v: Float32Array): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
  const n = Math.sqrt(s) + 1e-9;
  return Float32Array.from(v, (x) => x / n);
}

function dot(a: Float32Array, b: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/**
 * The noise feature matrix. Chunk vectors are L2-normalised (v/(‖v‖+1e-9)); chunks with an empty
 * vector are skipped. Per chunk, then averaged per document unless stated:
 * 1. `hub`: kNN in-degree z-scored over all chunks, (h − mean)/(sd_pop + 1e-9).
 * 2. `dup_out`: 1 if a neighbour has cos ≥ tau and another docId.
 * 3. `off_centre`: 1 − v·ĉ, ĉ the normalised mean of all chunk vectors.
 * 4. `spread_chunk`: normalised entropy of softmax(temp·V·Cᵀ) over the seeded k-means centroids C
 *    (one centroid when n ≤ 8 → 0).
 * 5. `spread_doc` (per doc): normalised entropy of the doc's histogram over the clusters its chunks
 *    are assigned to (argmax), with K = the number of distinct clusters it touches (one → 0).
 * 6. `low_idf`: −mean idf over the chunk's token occurrences (no tokens → 0); idf over all chunks.
 * 7. `redundancy`: 1 if a neighbour has cos ≥ tau and the same docId.
 * 8. `short`: 1 if the chunk has < 200 code points.
 * 9. `promiscuity` (per doc): |questions(doc)| / max(|⋃ questions|, 1); 0 without a log.
 * 10+. the intrinsic features of the doc's chunk texts joined by newlines (./intrinsic.ts).
 * n < 3 chunks → the kNN features are 0. No chunks → no rows.
 */
export function noiseFeatures(input: NoiseFeaturesInput): NoiseFeatureMatrix {
  const k = input.k ?? DEFAULT_NOISE_K;
  const tau = input.tau ?? DEFAULT_NOISE_TAU;
  const temp = input.temp ?? DEFAULT_NOISE_TEMP;
  const chunks = input.chunks.filter((c) => c.vector.length > 0);
  const names = [...ALL_NOISE_FEATURES];
  const n = chunks.length;
  if (n === 0) return { docIds: [], names, X: [] };

  const V = chunks.map((c) => unitRow(c.vector));
  const dim = V[0]!.length;
  const docIds: string[] = [];
  const docIndex = new Map<string, number>();
  const docOf = chunks.map((c) => {
    let d = docIndex.get(c.docId);
    if (d === undefined) {
      d = docIds.length;
      docIndex.set(c.docId, d);
      docIds.push(c.docId);
    }
    return d;
  });

  // kNN-derived: hub, dup_out, redundancy
  const { idx, sim } = (input.knnImpl ?? knn)(V, k);
  const indeg = new Float64Array(n);
  const dupOut = new Float64Array(n);
  const redundancy = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const ni = idx[i] ?? [];
    const si = sim[i] ?? [];
    for (let t = 0; t < ni.length; t++) {
      const j = ni[t]!;
      indeg[j]!++;
      if (si[t]! >= tau) {
        if (docOf[j] !== docOf[i]) dupOut[i] = 1;
        else redundancy[i] = 1;
      }
    }
  }
  const hub = new Float64Array(n);
  if ((idx[0]?.length ?? 0) > 0) {
    const mean = indeg.reduce((a, b) => a + b, 0) / n;
    const sd = Math.sqrt(indeg.reduce((a, b) => a + (b - mean) ** 2, 0) / n);
    for (let i = 0; i < n; i++) hub[i] = (indeg[i]! - mean) / (sd + 1e-9);
  }

  // off_centre
  const centre = new Float64Array(dim);
  for (const v of V) for (let t = 0; t < dim; t++) centre[t]! += v[t]!;
  const cn = Math.sqrt(centre.reduce((a, b) => a + b * b, 0)) + 1e-9;
  for (let t = 0; t < dim; t++) centre[t] = centre[t]! / cn;
  const offCentre = V.map((v) => 1 - dot(v, centre));

  // spread_chunk and the cluster assignment for spread_doc
  const C = kmeans(V, input.topics ?? DEFAULT_NOISE_TOPICS, input.seed ?? 0);
  const spreadChunk = new Float64Array(n);
  const cluster = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const s = C.map((c) => dot(V[i]!, c));
    let best = 0;
    for (let c = 1; c < s.length; c++) if (s[c]! > s[best]!) best = c;
    cluster[i] = best;
    const m = s[best] ?? 0;
    const e = s.map((x) => Math.exp(temp * (x - m)));
    const z = e.reduce((a, b) => a + b, 0);
    spreadChunk[i] = entropy(e.map((x) => x / z));
  }

  // low_idf
  const weights = idf(chunks.map((c) => c.text));
  const lowIdf = chunks.map((c) => {
    const toks = idfTokens(c.text);
    if (toks.length === 0) return 0;
    let s = 0;
    for (const w of toks) s += weights.get(w) ?? 0;
    return -s / toks.length;
  });

  const short = chunks.map((c) => (codePointLength(c.text) < SHORT_CHUNK_CHARS ? 1 : 0));

  // per-document aggregation
  const D = docIds.length;
  const perChunk = [hub, dupOut, offCentre, spreadChunk, null, lowIdf, redundancy, short];
  const sums = docIds.map(() => new Float64Array(perChunk.length));
  const counts = new Int32Array(D);
  const hist = docIds.map(() => new Map<number, number>());
  const texts = docIds.map(() => [] as string[]);
  for (let i = 0; i < n; i++) {
    const d = docOf[i]!;
    counts[d]!++;
    perChunk.forEach((col, f) => {
      if (col !== null) sums[d]![f]! += col[i]!;
    });
    hist[d]!.set(cluster[i]!, (hist[d]!.get(cluster[i]!) ?? 0) + 1);
    texts[d]!.push(chunks[i]!.text);
  }
  const allQuestions = new Set<string>();
  for (const qs of input.questionsByDoc?.values() ?? []) for (const q of qs) allQuestions.add(q);
  const qTotal = Math.max(allQuestions.size, 1);

  const X = docIds.map((docId, d) => {
    const row = Array.from(sums[d]!, (s) => s / counts[d]!);
    const h = [...hist[d]!.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1] / counts[d]!);
    row[4] = entropy(h);
    row.push((input.questionsByDoc?.get(docId)?.size ?? 0) / qTotal);
    row.push(...intrinsicFeatures(texts[d]!.join('\n')));
    return row;
  });
  return { docIds, names, X };
}
