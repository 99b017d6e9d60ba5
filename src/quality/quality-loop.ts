/**
 * The quality loop wired to a vault's store and embedder: the feedback log, the Beta prior, the
 * noise score with a person's marks, and the pairwise ranker. The maths lives in the pure modules
 * beside this file; this class reads and writes their inputs and outputs. Nothing here changes
 * retrieval until a person switches it on (`learn`, `useNoise`, `useRanker`), except a mark,
 * which takes effect at once.
 */

import { randomUUID } from 'node:crypto';
import hnswlib from 'hnswlib-node';
import type { AskResult } from '../answer/ask.js';
import type { Embedder } from '../embed/embedder.js';
import { QuiverError } from '../errors.js';
import type { FeedbackRecord, Store } from '../store/store.js';
import type { ChunkRecord, DocumentRecord } from '../types.js';
import { codePointLength } from '../text/tokens.js';
import { NOISE_WEIGHTS, DEFAULT_SUGGEST_K, DEFAULT_SUGGEST_MIN_SCORE } from './noise/blend.js';
import { ALL_NOISE_FEATURES, noiseFeatures as computeNoiseFeatures } from './noise/features.js';
import type { NoiseChunk, NoiseFeatureMatrix } from './noise/features.js';
import { idf, knn, rankNormalize } from './noise/primitives.js';
import type { KnnResult } from './noise/primitives.js';
import { PAIR_FEATURES, pairFeatures } from './pair-features.js';
import type { PairDocInfo, PairHit } from './pair-features.js';
import { docPrior, docStats } from './prior.js';
import type { DocPriorOptions, DocStat } from './prior.js';
import { Prng } from './prng.js';
import { DEFAULT_RANKER_L2, Ranker } from './ranker.js';
import { DEFAULT_RETUNE_ALPHA, retune } from './retune.js';
import { feedbackRowsForAsk, signalOf } from './signals.js';
import type { SignalName } from './signals.js';
import { trainingData } from './training.js';
import type { TrainingData, TrainingRow } from './training.js';

/** Where the switches (meta) and fitted models (blobs) live in the store. */
export const QUALITY_KEYS = {
  learn: 'quality.learn',
  rankerOn: 'quality.ranker.on',
  noiseOn: 'quality.noise.on',
  ranker: 'quality.ranker',
  noise: 'quality.noise',
  rankerAt: 'quality.ranker.at',
  noiseAt: 'quality.noise.at',
} as const;

/** Section text the ranker sees, in training and in serving alike: the section's own text cut here. */
export const RANKER_TEXT_CHARS = 4000;
/**
 * Above this many chunks the noise kNN uses an HNSW index instead of the exact scan. Measured on
 * random unit 512-d vectors (2 cores): exact 11 s at 2 000 chunks and 40 s at 5 000; HNSW 2 s and
 * 7 s with 0.99 and 0.94 recall of the exact neighbours.
 */
export const DEFAULT_NOISE_EXACT_MAX = 2_000;
export const DEFAULT_RATINGS_LIMIT = 50;

const hex = (n: number): string => randomUUID().replace(/-/g, '').slice(0, n);

/**
 * Approximate cosine kNN over unit rows with an HNSW index (hnswlib, seed 100). Asks for k + 1
 * neighbours and removes the row itself **by id** (never by position, which fails with exact
 * duplicates), then keeps k. Similarity = 1 − cosine distance. Same edge cases as the exact `knn`.
 */
export function hnswKnn(V: readonly Float32Array[], k: number): KnnResult {
  const n = V.length;
  const kk = Math.min(Math.floor(k), n - 1);
  const idx: number[][] = V.map(() => []);
  const sim: number[][] = V.map(() => []);
  if (n < 3 || kk < 1) return { idx, sim };
  const index = new hnswlib.HierarchicalNSW('cosine', V[0]!.length);
  index.initIndex({ maxElements: n, m: 16, efConstruction: 200, randomSeed: 100 });
  V.forEach((v, i) => index.addPoint(Array.from(v), i));
  index.setEf(Math.max(50, 2 * (kk + 1)));
  V.forEach((v, i) => {
    const r = index.searchKnn(Array.from(v), kk + 1);
    const pairs = r.neighbors
      .map((j, t) => [j, 1 - r.distances[t]!] as const)
      .filter(([j]) => j !== i)
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, kk);
    idx[i] = pairs.map((p) => p[0]);
    sim[i] = pairs.map((p) => p[1]);
  });
  return { idx, sim };
}

export interface QualityLoopOptions {
  /** Clock in ms since the epoch (tests). Defaults to `Date.now`. */
  now?: () => number;
  /** Chunk count above which kNN goes approximate. Defaults to 2 000 (DEFAULT_NOISE_EXACT_MAX). */
  exactMax?: number;
}

export interface RateOptions {
  rank?: number | null;
  score?: number | null;
  /** Groups this rating with others of the same question; a fresh id when absent. */
  askId?: string;
}

/** What `logAsk` needs from an answer. */
export type AskLike = Pick<AskResult, 'question' | 'context' | 'cited'>;

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

export interface FitResult {
  model: Ranker;
  /** True when the model was fitted and written to the store. */
  saved: boolean;
}

export interface RankerInfo {
  learning: boolean;
  feedbackRows: number;
  ranker: { on: boolean; fittedAt: string | null; meta: Ranker['meta'] | null; weights: [string, number][] };
  noise: { on: boolean; fittedAt: string | null; meta: Ranker['meta'] | null; weights: [string, number][] };
}

interface Corpus {
  key: string;
  chunks: ChunkRecord[];
  vectors: Float32Array[];
  /** Token idf over the chunk texts, computed on first use. */
  idf?: Map<string, number>;
}

/** The quality loop of one vault. Create with the vault's store and embedder. */
export class QualityLoop {
  private readonly now: () => number;
  private readonly exactMax: number;
  private corpusCache: Corpus | null = null;
  private noiseCache: { key: string; f: NoiseFeatureMatrix } | null = null;

  constructor(
    private readonly store: Store,
    private readonly embedder: Embedder,
    options: QualityLoopOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.exactMax = options.exactMax ?? DEFAULT_NOISE_EXACT_MAX;
  }

  private iso(): string {
    return new Date(this.now()).toISOString();
  }

  // ---- feedback log ----

  /**
   * Record one signal about a section for a question. Unknown signal → BAD_INPUT listing the valid
   * ones; a section that is not live → NOT_FOUND. Without `askId` the rating is its own group.
   */
  async rate(
    q: string,
    sectionId: string,
    signal: string,
    options: RateOptions = {},
  ): Promise<FeedbackRecord> {
    const { label, weight } = signalOf(signal);
    const [section] = await this.store.getSections([sectionId]);
    if (section === undefined) throw new QuiverError('NOT_FOUND', `quiver: no section ${sectionId}`);
    const row: FeedbackRecord = {
      id: hex(16),
      at: this.iso(),
      q: q ?? '',
      askId: options.askId ?? hex(12),
      sectionId,
      docId: section.docId,
      rank: options.rank ?? null,
      score: options.score ?? null,
      signal,
      label,
      weight,
    };
    await this.store.addFeedback([row]);
    return row;
  }

  /** Feedback rows, newest first, optionally for one document. Defaults to the last 50. */
  async ratings(options: { docId?: string; limit?: number } = {}): Promise<FeedbackRecord[]> {
    return this.store.listFeedback({
      ...options,
      limit: options.limit ?? DEFAULT_RATINGS_LIMIT,
      order: 'newest',
    });
  }

  /**
   * Log one answer: cited sections as `cited`, the other offered ones as `shown` (when `weak`),
   * `up`/`down` (1-based section numbers) overriding both; precedence up > down > cited > shown.
   * One fresh ask id per call. An answer that cites nothing and has no up/down writes nothing.
   * Returns the number of rows written.
   */
  async logAsk(
    ask: AskLike,
    options: { up?: number[]; down?: number[]; weak?: boolean } = {},
  ): Promise<number> {
    const drafts = feedbackRowsForAsk({
      question: ask.question,
      sections: ask.context.map((c) => ({ n: c.n, sectionId: c.sectionId, docId: c.docId, score: c.score })),
      cited: ask.cited.map((c) => c.n),
      ...options,
    });
    if (drafts.length === 0) return 0;
    const askId = hex(12);
    const at = this.iso();
    await this.store.addFeedback(
      drafts.map((d) => ({
        id: hex(16),
        at,
        q: d.question,
        askId,
        sectionId: d.sectionId,
        docId: d.docId,
        rank: d.rank,
        score: d.score,
        signal: d.signal,
        label: d.label,
        weight: d.weight,
      })),
    );
    return drafts.length;
  }

  /** Switch logging of answers on or off (off by default). */
  async learn(on: boolean): Promise<void> {
    await this.store.setMeta(QUALITY_KEYS.learn, on ? '1' : '0');
  }

  async isLearning(): Promise<boolean> {
    return (await this.store.getMeta(QUALITY_KEYS.learn)) === '1';
  }

  /** After an answer: log it when learning is on. Never throws; returns an error message instead (null when fine). */
  async observe(ask: AskLike): Promise<string | null> {
    try {
      if (await this.isLearning()) await this.logAsk(ask);
      return null;
    } catch (e) {
      return `quiver: could not log the answer for learning: ${(e as Error).message}`;
    }
  }

  // ---- prior ----

  /** Weighted wins and losses per document over the whole log (minus `excludeAsk` groups). */
  async docStats(excludeAsk?: ReadonlySet<string>): Promise<Map<string, DocStat>> {
    return docStats(await this.store.listFeedback({ order: 'oldest' }), excludeAsk);
  }

  /**
   * Each document's prior multiplier (absent → 1). Serving uses the posterior mean (`explore` 0,
   * the default here); with explore > 0 the Thompson draws come from `Prng(seed)` (default 0), so the
   * same seed gives the same multipliers.
   */
  async docPrior(
    options: Omit<DocPriorOptions, 'rng'> & { seed?: number; excludeAsk?: ReadonlySet<string> } = {},
  ): Promise<Map<string, number>> {
    const { seed, excludeAsk, ...rest } = options;
    const explore = rest.explore ?? 0;
    return docPrior(await this.docStats(excludeAsk), {
      ...rest,
      explore,
      ...(explore > 0 ? { rng: new Prng(seed ?? 0) } : {}),
    });
  }

  // ---- noise ----

  private async corpusKey(): Promise<string> {
    const s = await this.store.stats();
    const batches = (await this.store.listBatches(5)).map((b) => `${b.id}:${b.status}`).join(',');
    return `${s.documents}|${s.chunks}|${s.vectors[this.embedder.id] ?? 0}|${batches}`;
  }

  /** Every live chunk with a vector under the vault's embedder, in id order (cached until the corpus changes). */
  private async corpus(): Promise<Corpus> {
    const key = await this.corpusKey();
    if (this.corpusCache?.key === key) return this.corpusCache;
    const chunks: ChunkRecord[] = [];
    const vectors: Float32Array[] = [];
    for (let after = 0; ;) {
      const page = await this.store.scanChunks(after, 1000);
      if (page.length === 0) break;
      const vs = await this.store.chunkVectors(
        page.map((c) => c.id),
        this.embedder.id,
      );
      for (const c of page) {
        const v = vs.get(c.id);
        if (v === undefined || v.length === 0) continue;
        chunks.push(c);
        vectors.push(v);
      }
      after = page[page.length - 1]!.id;
    }
    this.corpusCache = { key, chunks, vectors };
    return this.corpusCache;
  }

  /**
   * The noise feature matrix over every live embedded chunk (marked documents included), with
   * `promiscuity` from the distinct non-empty questions in the feedback log. kNN is exact up to
   * `exactMax` chunks, HNSW above.
   */
  async noiseFeatures(): Promise<NoiseFeatureMatrix> {
    const c = await this.corpus();
    const newest = (await this.store.listFeedback({ limit: 1 }))[0]?.id ?? '';
    const key = `${c.key}|${newest}`;
    if (this.noiseCache?.key === key) return this.noiseCache.f;
    const questionsByDoc = new Map<string, Set<string>>();
    for (const r of await this.store.listFeedback({ order: 'oldest' })) {
      if (r.docId === null || r.q === '') continue;
      const set = questionsByDoc.get(r.docId) ?? new Set<string>();
      set.add(r.q);
      questionsByDoc.set(r.docId, set);
    }
    const chunks: NoiseChunk[] = c.chunks.map((ch, i) => ({
      docId: ch.docId,
      text: ch.text,
      vector: c.vectors[i]!,
    }));
    const f = computeNoiseFeatures({
      chunks,
      questionsByDoc,
      knnImpl: chunks.length > this.exactMax ? hnswKnn : knn,
    });
    this.noiseCache = { key, f };
    return f;
  }

  private async loadModel(key: string, names: readonly string[]): Promise<Ranker | null> {
    const blob = await this.store.getBlob(key);
    if (blob === null) return null;
    const model = Ranker.fromJSON(JSON.parse(Buffer.from(blob).toString('utf8')));
    if (model.names.join(',') !== names.join(',')) {
      throw new QuiverError(
        'SCHEMA',
        `quiver: the stored ${key} model has other features than this quiver; fit it again`,
      );
    }
    return model;
  }

  private async saveModel(key: string, atKey: string, model: Ranker): Promise<void> {
    await this.store.putBlob(key, Buffer.from(JSON.stringify(model.toJSON()), 'utf8'));
    await this.store.setMeta(atKey, this.iso());
  }

  private async docMap(): Promise<Map<string, DocumentRecord>> {
    const docs = await this.store.listDocuments({ filter: { includeNoisy: true } });
    return new Map(docs.map((d) => [d.id, d]));
  }

  /**
   * Every document's noise score, noisiest first: the fitted blend when `useNoise(true)` is on
   * (a logit-scale score), otherwise the fixed `NOISE_WEIGHTS` blend of rank-normalised features
   * (in [−1.73, 1.73]).
   */
  async noiseScores(): Promise<NoiseRow[]> {
    const f = await this.noiseFeatures();
    const Z = rankNormalize(f.X);
    const fitted =
      (await this.store.getMeta(QUALITY_KEYS.noiseOn)) === '1'
        ? await this.loadModel(QUALITY_KEYS.noise, f.names)
        : null;
    let scores: number[];
    if (fitted !== null) scores = fitted.score(Z);
    else {
      const w = f.names.map((n) => NOISE_WEIGHTS[n] ?? 0);
      const total = w.reduce((a, b) => a + Math.abs(b), 0) || 1;
      scores = Z.map((z) => z.reduce((a, v, j) => a + v * w[j]!, 0) / total);
    }
    const docs = await this.docMap();
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

  /** Documents to show a person: score ≥ minScore (default 1.0), not yet judged, the first k (default 20). */
  async suggestNoisy(options: { k?: number; minScore?: number } = {}): Promise<NoiseRow[]> {
    const judged = new Set((await this.store.listMarks()).map((m) => m.docId));
    const k = options.k ?? DEFAULT_SUGGEST_K;
    const min = options.minScore ?? DEFAULT_SUGGEST_MIN_SCORE;
    return (await this.noiseScores())
      .filter((r) => r.score >= min && !judged.has(r.docId))
      .slice(0, Math.max(0, k));
  }

  /** Resolve a document reference (id, source, or a title/source fragment) to exactly one document. */
  async resolveDoc(ref: string): Promise<DocumentRecord> {
    const r = ref.trim();
    if (r === '') throw new QuiverError('BAD_INPUT', 'quiver: a document reference must not be empty');
    const found = await this.store.findDocuments(r);
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

  /**
   * Mark a document as noise (it leaves search, context and ask at once) or, with `noisy` false, as
   * a confirmed keeper (it leaves the suggestions and is a negative label for `fitNoise`). Marks
   * survive re-ingest. Ambiguous ref → BAD_INPUT listing candidates; no match → NOT_FOUND.
   */
  async markNoisy(ref: string, noisy = true, reason = ''): Promise<MarkResult> {
    const d = await this.resolveDoc(ref);
    const why = reason === '' ? null : reason;
    await this.store.setMark(d.id, noisy, why);
    return { docId: d.id, title: d.title, source: d.source, noisy, reason: why };
  }

  async markNoisyMany(
    refs: readonly (string | { docId: string })[],
    noisy = true,
    reason = '',
  ): Promise<MarkResult[]> {
    const out: MarkResult[] = [];
    for (const r of refs) out.push(await this.markNoisy(typeof r === 'string' ? r : r.docId, noisy, reason));
    return out;
  }

  /** Mark the current suggestions as noise. */
  async acceptNoisy(k = DEFAULT_SUGGEST_K, reason = 'suggested', minScore?: number): Promise<MarkResult[]> {
    const s = await this.suggestNoisy({ k, ...(minScore === undefined ? {} : { minScore }) });
    return this.markNoisyMany(s, true, reason);
  }

  /** A person's judgements, newest first, with titles (a document no longer live shows its id). */
  async marks(): Promise<MarkResult[]> {
    const docs = await this.docMap();
    return (await this.store.listMarks()).map((m) => ({
      docId: m.docId,
      title: docs.get(m.docId)?.title ?? m.docId,
      source: docs.get(m.docId)?.source ?? '',
      noisy: m.noisy,
      reason: m.reason,
    }));
  }

  /**
   * Fit the noise blend to a person's marks: pairwise logistic (one group) over rank-normalised
   * features of the marked documents. When the marks hold one class only, the unmarked documents
   * serve as the other. No marks → BAD_INPUT. Saved (not switched on) with `save`.
   */
  async fitNoise(options: { save?: boolean; l2?: number } = {}): Promise<FitResult & { labelled: number }> {
    const marks = await this.store.listMarks();
    if (marks.length === 0) {
      throw new QuiverError(
        'BAD_INPUT',
        'quiver: fitting the noise blend needs marks; mark some documents noisy (and some keepers) first',
      );
    }
    const labels = new Map(marks.map((m) => [m.docId, m.noisy ? 1 : 0]));
    const f = await this.noiseFeatures();
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
    if (saved) await this.saveModel(QUALITY_KEYS.noise, QUALITY_KEYS.noiseAt, model);
    return { model, saved, labelled: keep.length };
  }

  private async use(onKey: string, modelKey: string, what: string, on: boolean): Promise<void> {
    if (on && (await this.store.getBlob(modelKey)) === null) {
      throw new QuiverError('BAD_INPUT', `quiver: no fitted ${what} is stored; fit it with save first`);
    }
    await this.store.setMeta(onKey, on ? '1' : '0');
  }

  /** Switch suggestions to the fitted blend (needs a saved fit) or back to the fixed weights. */
  async useNoise(on: boolean): Promise<void> {
    await this.use(QUALITY_KEYS.noiseOn, QUALITY_KEYS.noise, 'noise blend', on);
  }

  // ---- ranker ----

  /** The ranker's text for a section: its own text cut at RANKER_TEXT_CHARS code points. */
  private async sectionInputs(
    sectionIds: readonly string[],
  ): Promise<Map<string, { text: string; vector?: Float32Array }>> {
    const out = new Map<string, { text: string; vector?: Float32Array }>();
    const unique = [...new Set(sectionIds)];
    const sections = new Map((await this.store.getSections(unique)).map((s) => [s.id, s]));
    for (const id of unique) {
      const raw = sections.get(id)?.text ?? '';
      const text =
        codePointLength(raw) > RANKER_TEXT_CHARS ? [...raw].slice(0, RANKER_TEXT_CHARS).join('') : raw;
      const chunks = await this.store.chunksOfSections([id]);
      const vs = await this.store.chunkVectors(
        chunks.map((c) => c.id),
        this.embedder.id,
      );
      let vector: Float32Array | undefined;
      if (vs.size > 0) {
        const sum = new Float32Array(this.embedder.dims);
        for (const v of vs.values()) for (let i = 0; i < sum.length; i++) sum[i]! += v[i] ?? 0;
        const n = Math.hypot(...sum) || 1;
        vector = sum.map((x) => x / n);
      }
      out.set(id, vector === undefined ? { text } : { text, vector });
    }
    return out;
  }

  /** What the pair features need about the corpus: idf over chunk texts, noise z per doc, doc info. */
  private async pairContext(docIds: Iterable<string>): Promise<{
    idf: Map<string, number>;
    noiseZ: Map<string, number[]>;
    docInfo: Map<string, PairDocInfo>;
  }> {
    const c = await this.corpus();
    const f = await this.noiseFeatures();
    const Z = rankNormalize(f.X);
    const docInfo = new Map<string, PairDocInfo>();
    for (const id of new Set(docIds)) {
      const d = await this.store.getDocument(id);
      if (d !== null) docInfo.set(id, { kind: d.kind, addedAtMs: Date.parse(d.addedAt) });
    }
    return {
      idf: (c.idf ??= idf(c.chunks.map((ch) => ch.text))),
      noiseZ: new Map(f.docIds.map((d, i) => [d, Z[i]!])),
      docInfo,
    };
  }

  /** The ranker's training set from the log (groups with ≥ 2 rows and both labels; out-of-fold prior). */
  async trainingData(minGroup?: number): Promise<TrainingData> {
    const rows: TrainingRow[] = (await this.store.listFeedback({ order: 'oldest' })).flatMap((r) =>
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
    const inputs = await this.sectionInputs(rows.map((r) => r.sectionId));
    const questions = [...new Set(rows.map((r) => r.question))].filter((q) => q !== '');
    const qv = new Map<string, Float32Array>();
    if (questions.length > 0) {
      const vs = await this.embedder.embed(questions, { purpose: 'query' });
      questions.forEach((q, i) => qv.set(q, vs[i]!));
    }
    const ctx = await this.pairContext(rows.map((r) => r.docId));
    return trainingData(rows, {
      ...(minGroup === undefined ? {} : { minGroup }),
      hitFor: (r) => inputs.get(r.sectionId) ?? { text: '' },
      queryVectorFor: (q) => qv.get(q),
      ...ctx,
      nowMs: this.now(),
    });
  }

  /** Fit the pairwise ranker on the log; saved (not switched on) with `save` when a pair existed. */
  async fitRanker(options: { save?: boolean; l2?: number } = {}): Promise<FitResult> {
    const data = await this.trainingData();
    const model = Ranker.fit({ ...data, l2: options.l2 ?? DEFAULT_RANKER_L2 });
    const saved = options.save === true && model.fitted;
    if (saved) await this.saveModel(QUALITY_KEYS.ranker, QUALITY_KEYS.rankerAt, model);
    return { model, saved };
  }

  /** Switch the ranker on for `context`/`ask` (needs a saved fit) or off. */
  async useRanker(on: boolean): Promise<void> {
    await this.use(QUALITY_KEYS.rankerOn, QUALITY_KEYS.ranker, 'ranker', on);
  }

  async isRankerOn(): Promise<boolean> {
    return (await this.store.getMeta(QUALITY_KEYS.rankerOn)) === '1';
  }

  /** Switches, fit times, fit sizes and weights (largest first) of both models. */
  async rankerInfo(): Promise<RankerInfo> {
    const part = async (onKey: string, modelKey: string, atKey: string, names: readonly string[]) => {
      const model = await this.loadModel(modelKey, names);
      return {
        on: (await this.store.getMeta(onKey)) === '1',
        fittedAt: await this.store.getMeta(atKey),
        meta: model?.meta ?? null,
        weights: model?.weights() ?? [],
      };
    };
    return {
      learning: await this.isLearning(),
      feedbackRows: (await this.store.listFeedback()).length,
      ranker: await part(QUALITY_KEYS.rankerOn, QUALITY_KEYS.ranker, QUALITY_KEYS.rankerAt, PAIR_FEATURES),
      noise: await part(QUALITY_KEYS.noiseOn, QUALITY_KEYS.noise, QUALITY_KEYS.noiseAt, ALL_NOISE_FEATURES),
    };
  }

  /**
   * Reorder a context with the fitted ranker when it is switched on (else the hits come back as
   * they are): pair features on the section text (as in training), the prior's posterior mean
   * (explore 0: repeatable), then `retune` at α = 0.25, which moves a hit about one place.
   */
  async retuneContext<T extends { sectionId: string; docId: string; score: number }>(
    question: string,
    hits: readonly T[],
    options: { alpha?: number; model?: Ranker } = {},
  ): Promise<T[]> {
    if (hits.length === 0) return [...hits];
    let model = options.model ?? null;
    if (model === null) {
      if (!(await this.isRankerOn())) return [...hits];
      model = await this.loadModel(QUALITY_KEYS.ranker, PAIR_FEATURES);
      if (model === null) return [...hits];
    }
    const inputs = await this.sectionInputs(hits.map((h) => h.sectionId));
    const [queryVector] =
      question.trim() === '' ? [] : await this.embedder.embed([question], { purpose: 'query' });
    const pairHits: PairHit[] = hits.map((h) => ({
      ...inputs.get(h.sectionId)!,
      score: h.score,
      docId: h.docId,
      sectionId: h.sectionId,
    }));
    const X = pairFeatures({
      question,
      hits: pairHits,
      prior: await this.docPrior({ explore: 0 }),
      ...(await this.pairContext(hits.map((h) => h.docId))),
      ...(queryVector === undefined ? {} : { queryVector }),
      nowMs: this.now(),
    });
    return retune(hits, model.score(X), { alpha: options.alpha ?? DEFAULT_RETUNE_ALPHA }).map((r) => r.hit);
  }
}

export type { SignalName };
