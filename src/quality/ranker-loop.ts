/**
 * The ranker side of the quality loop over a vault's store: the training set read from the
 * feedback log, the fit, and the reordering of a context by the fitted model. Training and serving
 * see a section the same way (`sectionInputs`) so the features match.
 */

import type { Embedder } from '../embed/embedder.js';
import type { Store } from '../store/store.js';
import { codePointLength } from '../text/tokens.js';
import type { NoiseFeatureMatrix } from './noise/features.js';
import { idf, rankNormalize } from './noise/primitives.js';
import type { Corpus } from './noise-loop.js';
import { isModelOn, loadModel, saveModel } from './model-store.js';
import type { FitResult } from './model-store.js';
import { PAIR_FEATURES, pairFeatures } from './pair-features.js';
import type { PairDocInfo, PairHit } from './pair-features.js';
import { DEFAULT_RANKER_L2, Ranker } from './ranker.js';
import { DEFAULT_RETUNE_ALPHA, retune } from './retune.js';
import { trainingData } from './training.js';
import type { TrainingData, TrainingRow } from './training.js';

/** Section text the ranker sees, in training and in serving alike: the section's own text cut here. */
export const RANKER_TEXT_CHARS = 4000;

/** What the pair features need about the corpus: idf over chunk texts, noise z per doc, doc info. */
export interface PairContext {
  idf: Map<string, number>;
  noiseZ: Map<string, number[]>;
  docInfo: Map<string, PairDocInfo>;
}

/** What the ranker reads: the store, the embedder, the clock, and the corpus side of the pair features. */
export interface RankerSources {
  store: Store;
  embedder: Embedder;
  now: () => number;
  pairContext: (docIds: Iterable<string>) => Promise<PairContext>;
}

/** The pair context of `docIds` from a corpus (its idf is computed once and kept on it) and its noise features. */
export async function pairContext(
  store: Store,
  corpus: Corpus,
  f: NoiseFeatureMatrix,
  docIds: Iterable<string>,
): Promise<PairContext> {
  const Z = rankNormalize(f.X);
  const docInfo = new Map<string, PairDocInfo>();
  for (const id of new Set(docIds)) {
    const d = await store.getDocument(id);
    if (d !== null) docInfo.set(id, { kind: d.kind, addedAtMs: Date.parse(d.addedAt) });
  }
  return {
    idf: (corpus.idf ??= idf(corpus.chunks.map((ch) => ch.text))),
    noiseZ: new Map(f.docIds.map((d, i) => [d, Z[i]!])),
    docInfo,
  };
}

/**
 * The ranker's inputs per section: its own text cut at RANKER_TEXT_CHARS code points, and the unit
 * mean of its chunks' vectors under the embedder (absent when none has one).
 */
async function sectionInputs(
  store: Store,
  embedder: Embedder,
  sectionIds: readonly string[],
): Promise<Map<string, { text: string; vector?: Float32Array }>> {
  const out = new Map<string, { text: string; vector?: Float32Array }>();
  const unique = [...new Set(sectionIds)];
  const sections = new Map((await store.getSections(unique)).map((s) => [s.id, s]));
  for (const id of unique) {
    const raw = sections.get(id)?.text ?? '';
    const text =
      codePointLength(raw) > RANKER_TEXT_CHARS ? [...raw].slice(0, RANKER_TEXT_CHARS).join('') : raw;
    const chunks = await store.chunksOfSections([id]);
    const vs = await store.chunkVectors(
      chunks.map((c) => c.id),
      embedder.id,
    );
    let vector: Float32Array | undefined;
    if (vs.size > 0) {
      const sum = new Float32Array(embedder.dims);
      for (const v of vs.values()) for (let i = 0; i < sum.length; i++) sum[i]! += v[i] ?? 0;
      const n = Math.hypot(...sum) || 1;
      vector = sum.map((x) => x / n);
    }
    out.set(id, vector === undefined ? { text } : { text, vector });
  }
  return out;
}

/** The training set from the whole log (rows with a section and a document). */
export async function rankerTrainingData(src: RankerSources, minGroup?: number): Promise<TrainingData> {
  const rows: TrainingRow[] = (await src.store.listFeedback({ order: 'oldest' })).flatMap((r) =>
    r.sectionId === null || r.docId === null
      ? []
      : [
          {
            askId: r.askId,
            question: r.q,
            docId: r.docId,
            sectionId: r.sectionId,
            label: r.label,
            weight: r.weight,
            score: r.score,
          },
        ],
  );
  const inputs = await sectionInputs(
    src.store,
    src.embedder,
    rows.map((r) => r.sectionId),
  );
  const questions = [...new Set(rows.map((r) => r.question))].filter((q) => q !== '');
  const qv = new Map<string, Float32Array>();
  if (questions.length > 0) {
    const vs = await src.embedder.embed(questions, { purpose: 'query' });
    questions.forEach((q, i) => qv.set(q, vs[i]!));
  }
  const ctx = await src.pairContext(rows.map((r) => r.docId));
  return trainingData(rows, {
    ...(minGroup === undefined ? {} : { minGroup }),
    hitFor: (r) => inputs.get(r.sectionId) ?? { text: '' },
    queryVectorFor: (q) => qv.get(q),
    ...ctx,
    nowMs: src.now(),
  });
}

/** Fit on the log's training set; saved when `save` is set and a pair existed. */
export async function fitRanker(
  src: RankerSources,
  options: { save?: boolean; l2?: number } = {},
): Promise<FitResult> {
  const data = await rankerTrainingData(src);
  const model = Ranker.fit({ ...data, l2: options.l2 ?? DEFAULT_RANKER_L2 });
  const saved = options.save === true && model.fitted;
  if (saved) await saveModel(src.store, 'ranker', model, src.now);
  return { model, saved };
}

/** The stored ranker when it is switched on, else null. */
export async function servingRanker(store: Store): Promise<Ranker | null> {
  if (!(await isModelOn(store, 'ranker'))) return null;
  return loadModel(store, 'ranker', PAIR_FEATURES);
}

/**
 * Reorder `hits` by `model` (see `QualityLoop.retuneContext`); `prior` gives the document prior
 * multipliers. `alpha` defaults to DEFAULT_RETUNE_ALPHA.
 */
export async function retuneHits<T extends { sectionId: string; docId: string; score: number }>(
  src: RankerSources & { prior: () => Promise<Map<string, number>> },
  question: string,
  hits: readonly T[],
  model: Ranker,
  alpha = DEFAULT_RETUNE_ALPHA,
): Promise<T[]> {
  const inputs = await sectionInputs(
    src.store,
    src.embedder,
    hits.map((h) => h.sectionId),
  );
  const [queryVector] =
    question.trim() === '' ? [] : await src.embedder.embed([question], { purpose: 'query' });
  const pairHits: PairHit[] = hits.map((h) => ({
    ...inputs.get(h.sectionId)!,
    score: h.score,
    docId: h.docId,
    sectionId: h.sectionId,
  }));
  const X = pairFeatures({
    question,
    hits: pairHits,
    prior: await src.prior(),
    ...(await src.pairContext(hits.map((h) => h.docId))),
    ...(queryVector === undefined ? {} : { queryVector }),
    nowMs: src.now(),
  });
  return retune(hits, model.score(X), { alpha }).map((r) => r.hit);
}
