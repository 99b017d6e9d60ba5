/**
 * The noise side of the quality loop over a vault's store: the corpus the noise features are
 * computed on, each document's noise score, the suggestions shown to a person, their marks, and
 * the blend fitted to those marks. The maths lives in ./noise/; caching lives in `QualityLoop`.
 */

import type { Store } from '../store/store.js';
import { QuiverError } from '../errors.js';
import type { ChunkRecord, DocumentRecord } from '../types.js';
import { NOISE_WEIGHTS, DEFAULT_SUGGEST_K, DEFAULT_SUGGEST_MIN_SCORE } from './noise/blend.js';
import { noiseFeatures } from './noise/features.js';
import type { NoiseChunk, NoiseFeatureMatrix } from './noise/features.js';
import { hnswKnn } from './noise/hnsw-knn.js';
import { knn, rankNormalize } from './noise/primitives.js';
import { isModelOn, loadModel, saveModel } from './model-store.js';
import type { FitResult } from './model-store.js';
import { DEFAULT_RANKER_L2, Ranker } from './ranker.js';

/**
 * Above this many chunks the noise kNN uses an HNSW index instead of the exact scan. Measured on
 * random unit 512-d vectors (2 cores): exact 11 s at 2 000 chunks and 40 s at 5 000; HNSW 2 s and
 * 7 s with 0.99 and 0.94 recall of the exact neighbours.
 */
export const DEFAULT_NOISE_EXACT_MAX = 2_000;

/** One document's noise score, its rank-normalised features (why) and raw values. */
export interface NoiseRow {
  docId: string;
  title: string;
  source: string;
  score: number;
  /** Rank-normalised value per feature, in [−1.73, 1.73]. */
  features: Record<string, number>;
  raw: Record<string, number>;
}

export interface MarkResult {
  docId: string;
  title: string;
  source: string;
  noisy: boolean;
  reason: string | null;
}

/** Every live chunk with a vector under one embedder, in id order, and the key it was read under. */
export interface Corpus {
  key: string;
  chunks: ChunkRecord[];
  vectors: Float32Array[];
  /** Token idf over the chunk texts, computed on first use. */
  idf?: Map<string, number>;
}

/** Changes whenever the documents, chunks, `embedderId` vectors or recent ingest batches do. */
export async function corpusKey(store: Store, embedderId: string): Promise<string> {
  const s = await store.stats();
  const batches = (await store.listBatches(5)).map((b) => `${b.id}:${b.status}`).join(',');
  return `${s.documents}|${s.chunks}|${s.vectors[embedderId] ?? 0}|${batches}`;
}

/** Read every live chunk that has a non-empty `embedderId` vector, 1000 at a time, in id order. */
export async function loadCorpus(store: Store, embedderId: string, key: string): Promise<Corpus> {
  const chunks: ChunkRecord[] = [];
  const vectors: Float32Array[] = [];
  for (let after = 0; ;) {
    const page = await store.scanChunks(after, 1000);
    if (page.length === 0) break;
    const vs = await store.chunkVectors(
      page.map((c) => c.id),
      embedderId,
    );
    for (const c of page) {
      const v = vs.get(c.id);
      if (v === undefined || v.length === 0) continue;
      chunks.push(c);
      vectors.push(v);
    }
    after = page[page.length - 1]!.id;
  }
  return { key, chunks, vectors };
}

/**
 * The noise feature matrix of a corpus, with `promiscuity` from the distinct non-empty questions
 * per document in the feedback log. kNN is exact up to `exactMax` chunks, HNSW above.
 */
export async function corpusNoiseFeatures(
  store: Store,
  corpus: Corpus,
  exactMax: number,
): Promise<NoiseFeatureMatrix> {
  const questionsByDoc = new Map<string, Set<string>>();
  for (const r of await store.listFeedback({ order: 'oldest' })) {
    if (r.docId === null || r.q === '') continue;
    const set = questionsByDoc.get(r.docId) ?? new Set<string>();
    set.add(r.q);
    questionsByDoc.set(r.docId, set);
  }
  const chunks: NoiseChunk[] = corpus.chunks.map((ch, i) => ({
    docId: ch.docId,
    text: ch.text,
    vector: corpus.vectors[i]!,
  }));
  return noiseFeatures({
    chunks,
    questionsByDoc,
    knnImpl: chunks.length > exactMax ? hnswKnn : knn,
  });
}

async function docMap(store: Store): Promise<Map<string, DocumentRecord>> {
  const docs = await store.listDocuments({ filter: { includeNoisy: true } });
  return new Map(docs.map((d) => [d.id, d]));
}

/** Score the documents of `f`, noisiest first (the stored blend when switched on, else NOISE_WEIGHTS). */
export async function noiseScores(store: Store, f: NoiseFeatureMatrix): Promise<NoiseRow[]> {
  const Z = rankNormalize(f.X);
  const fitted = (await isModelOn(store, 'noise')) ? await loadModel(store, 'noise', f.names) : null;
  let scores: number[];
  if (fitted !== null) scores = fitted.score(Z);
  else {
    const w = f.names.map((n) => NOISE_WEIGHTS[n] ?? 0);
    const total = w.reduce((a, b) => a + Math.abs(b), 0) || 1;
    scores = Z.map((z) => z.reduce((a, v, j) => a + v * w[j]!, 0) / total);
  }
  const docs = await docMap(store);
  const rows = f.docIds.map((docId, i) => ({
    i,
    row: {
      docId,
      title: docs.get(docId)?.title ?? docId,
      source: docs.get(docId)?.source ?? '',
      score: scores[i]!,
      features: Object.fromEntries(f.names.map((n, j) => [n, Z[i]![j]!])),
      raw: Object.fromEntries(f.names.map((n, j) => [n, f.X[i]![j]!])),
    },
  }));
  return rows.sort((a, b) => b.row.score - a.row.score || a.i - b.i).map((r) => r.row);
}

/** The unjudged documents of `f` scoring ≥ minScore, the first k. */
export async function suggestNoisy(
  store: Store,
  f: NoiseFeatureMatrix,
  options: { k?: number; minScore?: number } = {},
): Promise<NoiseRow[]> {
  const judged = new Set((await store.listMarks()).map((m) => m.docId));
  const k = options.k ?? DEFAULT_SUGGEST_K;
  const min = options.minScore ?? DEFAULT_SUGGEST_MIN_SCORE;
  return (await noiseScores(store, f))
    .filter((r) => r.score >= min && !judged.has(r.docId))
    .slice(0, Math.max(0, k));
}

/** Exactly one document for `ref`: empty → BAD_INPUT, none → NOT_FOUND, several → BAD_INPUT with candidates. */
export async function resolveDoc(store: Store, ref: string): Promise<DocumentRecord> {
  const r = ref.trim();
  if (r === '') throw new QuiverError('BAD_INPUT', 'quiver: a document reference must not be empty');
  const found = await store.findDocuments(r);
  if (found.length === 0)
    throw new QuiverError('NOT_FOUND', `quiver: no document matches ${JSON.stringify(r)}`);
  if (found.length > 1) {
    const list = found
      .slice(0, 10)
      .map((d) => `  ${d.id}  ${d.title} (${d.source})`)
      .join('\n');
    throw new QuiverError(
      'BAD_INPUT',
      `quiver: ${JSON.stringify(r)} matches ${found.length} documents; use an id:\n${list}`,
      {
        details: { candidates: found.map((d) => d.id) },
      },
    );
  }
  return found[0]!;
}

/** Store a noisy/keeper mark for the document `ref` resolves to; an empty reason is stored as null. */
export async function markNoisy(store: Store, ref: string, noisy = true, reason = ''): Promise<MarkResult> {
  const d = await resolveDoc(store, ref);
  const why = reason === '' ? null : reason;
  await store.setMark(d.id, noisy, why);
  return { docId: d.id, title: d.title, source: d.source, noisy, reason: why };
}

/**
 * Take back a person's mark on a document: it is neither junk nor a keeper any more (it leaves the
 * marks list and a later fit; a document marked as junk returns to the retrieval legs). The
 * document as it was marked is returned; a document without a mark → NOT_FOUND, nothing changed.
 */
export async function unmark(store: Store, ref: string): Promise<MarkResult> {
  const d = await resolveDoc(store, ref);
  const had = (await store.listMarks()).find((m) => m.docId === d.id);
  if (had === undefined)
    throw new QuiverError('NOT_FOUND', `quiver: ${d.title || d.id} has no mark to take back`);
  await store.setMark(d.id, null, null);
  return { docId: d.id, title: d.title, source: d.source, noisy: had.noisy, reason: had.reason };
}

/** `markNoisy` for each ref in turn (a row's docId stands for itself). */
export async function markNoisyMany(
  store: Store,
  refs: readonly (string | { docId: string })[],
  noisy = true,
  reason = '',
): Promise<MarkResult[]> {
  const out: MarkResult[] = [];
  for (const r of refs) out.push(await markNoisy(store, typeof r === 'string' ? r : r.docId, noisy, reason));
  return out;
}

/** The stored marks, newest first, with titles (a document no longer live shows its id). */
export async function marks(store: Store): Promise<MarkResult[]> {
  const docs = await docMap(store);
  return (await store.listMarks()).map((m) => ({
    docId: m.docId,
    title: docs.get(m.docId)?.title ?? m.docId,
    source: docs.get(m.docId)?.source ?? '',
    noisy: m.noisy,
    reason: m.reason,
  }));
}

/**
 * Fit the noise blend to the marks (see `QualityLoop.fitNoise`). No marks → BAD_INPUT before
 * `features` is asked for; saved, with its fit time from `now`, when `save` is set and it fitted.
 */
export async function fitNoise(
  store: Store,
  features: () => Promise<NoiseFeatureMatrix>,
  now: () => number,
  options: { save?: boolean; l2?: number } = {},
): Promise<FitResult & { labelled: number }> {
  const stored = await store.listMarks();
  if (stored.length === 0) {
    throw new QuiverError(
      'NOT_FOUND',
      'quiver: noise blend not fitted: no documents are marked; mark some noisy (`noise mark`) and some keepers (`noise keep`) first',
    );
  }
  const labels = new Map(stored.map((m) => [m.docId, m.noisy ? 1 : 0]));
  const f = await features();
  const Z = rankNormalize(f.X);
  let keep = f.docIds.flatMap((d, i) => (labels.has(d) ? [i] : []));
  const y = f.docIds.map((d) => labels.get(d) ?? 0);
  if (new Set(keep.map((i) => y[i])).size < 2) keep = f.docIds.map((_, i) => i);
  const model = Ranker.fit({
    names: f.names,
    X: keep.map((i) => Z[i]!),
    groups: keep.map(() => 'all'),
    y: keep.map((i) => y[i]!),
    l2: options.l2 ?? DEFAULT_RANKER_L2,
  });
  const saved = options.save === true && model.fitted;
  if (saved) await saveModel(store, 'noise', model, now);
  return { model, saved, labelled: keep.length };
}
