/**
 * The quality loop wired to a vault's store and embedder: the feedback log, the Beta prior, the
 * noise score with a person's marks, and the pairwise ranker. The maths lives in the pure modules
 * beside this file and the store work in ./feedback-log.ts, ./noise-loop.ts, ./ranker-loop.ts and
 * ./model-store.ts; this class holds the clock and the caches and is the one public surface.
 * Nothing here changes retrieval until a person switches it on (`learn`, `useNoise`, `useRanker`),
 * except a mark, which takes effect at once.
 */

import type { Embedder } from '../embed/embedder.js';
import type { FeedbackRecord, Store } from '../store/store.js';
import type { DocumentRecord } from '../types.js';
import * as feedbackLog from './feedback-log.js';
import type { AskLike, RateOptions } from './feedback-log.js';
import { isModelOn, modelInfo, setModelOn } from './model-store.js';
import type { FitResult, ModelInfo } from './model-store.js';
import { DEFAULT_SUGGEST_K } from './noise/blend.js';
import { ALL_NOISE_FEATURES } from './noise/features.js';
import type { NoiseFeatureMatrix } from './noise/features.js';
import * as noiseLoop from './noise-loop.js';
import { DEFAULT_NOISE_EXACT_MAX } from './noise-loop.js';
import type { Corpus, MarkResult, NoiseRow } from './noise-loop.js';
import { PAIR_FEATURES } from './pair-features.js';
import { docPrior, docStats } from './prior.js';
import type { DocPriorOptions, DocStat } from './prior.js';
import { Prng } from './prng.js';
import type { Ranker } from './ranker.js';
import * as rankerLoop from './ranker-loop.js';
import type { PairContext, RankerSources } from './ranker-loop.js';
import type { SignalName } from './signals.js';
import type { TrainingData } from './training.js';

export { QUALITY_KEYS } from './model-store.js';
export type { FitResult, ModelInfo } from './model-store.js';
export { DEFAULT_RATINGS_LIMIT } from './feedback-log.js';
export type { AskLike, RateOptions } from './feedback-log.js';
export { DEFAULT_NOISE_EXACT_MAX } from './noise-loop.js';
export type { MarkResult, NoiseRow } from './noise-loop.js';
export { hnswKnn } from './noise/hnsw-knn.js';
export { RANKER_TEXT_CHARS } from './ranker-loop.js';
export type { SignalName };

export interface QualityLoopOptions {
  /** Clock in ms since the epoch (tests). Defaults to `Date.now`. */
  now?: () => number;
  /** Chunk count above which kNN goes approximate. Defaults to 2 000 (DEFAULT_NOISE_EXACT_MAX). */
  exactMax?: number;
}

export interface RankerInfo {
  learning: boolean;
  feedbackRows: number;
  ranker: ModelInfo;
  noise: ModelInfo;
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
    return feedbackLog.rate(this.store, this.now, q, sectionId, signal, options);
  }

  /** Feedback rows, newest first, optionally for one document. Defaults to the last 50. */
  async ratings(options: { docId?: string; limit?: number } = {}): Promise<FeedbackRecord[]> {
    return feedbackLog.ratings(this.store, options);
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
    return feedbackLog.logAsk(this.store, this.now, ask, options);
  }

  /** Switch logging of answers on or off (off by default). */
  async learn(on: boolean): Promise<void> {
    await feedbackLog.setLearning(this.store, on);
  }

  async isLearning(): Promise<boolean> {
    return feedbackLog.isLearning(this.store);
  }

  /** After an answer: log it when learning is on. Never throws; returns an error message instead (null when fine). */
  async observe(ask: AskLike): Promise<string | null> {
    return feedbackLog.observe(this.store, this.now, ask);
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

  /** Every live chunk with a vector under the vault's embedder, in id order (cached until the corpus changes). */
  private async corpus(): Promise<Corpus> {
    const key = await noiseLoop.corpusKey(this.store, this.embedder.id);
    if (this.corpusCache?.key === key) return this.corpusCache;
    this.corpusCache = await noiseLoop.loadCorpus(this.store, this.embedder.id, key);
    return this.corpusCache;
  }

  /**
   * The noise feature matrix over every live embedded chunk (marked documents included), with
   * `promiscuity` from the distinct non-empty questions in the feedback log. kNN is exact up to
   * `exactMax` chunks, HNSW above. Cached until the corpus or the log changes.
   */
  async noiseFeatures(): Promise<NoiseFeatureMatrix> {
    const c = await this.corpus();
    const newest = (await this.store.listFeedback({ limit: 1 }))[0]?.id ?? '';
    const key = `${c.key}|${newest}`;
    if (this.noiseCache?.key === key) return this.noiseCache.f;
    const f = await noiseLoop.corpusNoiseFeatures(this.store, c, this.exactMax);
    this.noiseCache = { key, f };
    return f;
  }

  /**
   * Every document's noise score, noisiest first: the fitted blend when `useNoise(true)` is on
   * (a logit-scale score), otherwise the fixed `NOISE_WEIGHTS` blend of rank-normalised features
   * (in [−1.73, 1.73]).
   */
  async noiseScores(): Promise<NoiseRow[]> {
    return noiseLoop.noiseScores(this.store, await this.noiseFeatures());
  }

  /** Documents to show a person: score ≥ minScore (default 1.0), not yet judged, the first k (default 20). */
  async suggestNoisy(options: { k?: number; minScore?: number } = {}): Promise<NoiseRow[]> {
    return noiseLoop.suggestNoisy(this.store, await this.noiseFeatures(), options);
  }

  /** Resolve a document reference (id, source, or a title/source fragment) to exactly one document. */
  async resolveDoc(ref: string): Promise<DocumentRecord> {
    return noiseLoop.resolveDoc(this.store, ref);
  }

  /**
   * Mark a document as noise (it leaves search, context and ask at once) or, with `noisy` false, as
   * a confirmed keeper (it leaves the suggestions and is a negative label for `fitNoise`). Marks
   * survive re-ingest. Ambiguous ref → BAD_INPUT listing candidates; no match → NOT_FOUND.
   */
  async markNoisy(ref: string, noisy = true, reason = ''): Promise<MarkResult> {
    return noiseLoop.markNoisy(this.store, ref, noisy, reason);
  }

  /** Take back a mark (`noise-loop.ts` `unmark`); NOT_FOUND when the document has none. */
  async unmark(ref: string): Promise<MarkResult> {
    return noiseLoop.unmark(this.store, ref);
  }

  async markNoisyMany(
    refs: readonly (string | { docId: string })[],
    noisy = true,
    reason = '',
  ): Promise<MarkResult[]> {
    return noiseLoop.markNoisyMany(this.store, refs, noisy, reason);
  }

  /** Mark the current suggestions as noise. */
  async acceptNoisy(k = DEFAULT_SUGGEST_K, reason = 'suggested', minScore?: number): Promise<MarkResult[]> {
    const s = await this.suggestNoisy({ k, ...(minScore === undefined ? {} : { minScore }) });
    return this.markNoisyMany(s, true, reason);
  }

  /** A person's judgements, newest first, with titles (a document no longer live shows its id). */
  async marks(): Promise<MarkResult[]> {
    return noiseLoop.marks(this.store);
  }

  /**
   * Fit the noise blend to a person's marks: pairwise logistic (one group) over rank-normalised
   * features of the marked documents. When the marks hold one class only, the unmarked documents
   * serve as the other. No marks → BAD_INPUT. Saved (not switched on) with `save`.
   */
  async fitNoise(options: { save?: boolean; l2?: number } = {}): Promise<FitResult & { labelled: number }> {
    return noiseLoop.fitNoise(this.store, () => this.noiseFeatures(), this.now, options);
  }

  /** Switch suggestions to the fitted blend (needs a saved fit) or back to the fixed weights. */
  async useNoise(on: boolean): Promise<void> {
    await setModelOn(this.store, 'noise', on);
  }

  // ---- ranker ----

  /** What the ranker functions read, with the corpus side of the pair features from the caches here. */
  private rankerSources(): RankerSources {
    return {
      store: this.store,
      embedder: this.embedder,
      now: this.now,
      pairContext: async (docIds): Promise<PairContext> =>
        rankerLoop.pairContext(this.store, await this.corpus(), await this.noiseFeatures(), docIds),
    };
  }

  /** The ranker's training set from the log (groups with ≥ 2 rows and both labels; out-of-fold prior). */
  async trainingData(minGroup?: number): Promise<TrainingData> {
    return rankerLoop.rankerTrainingData(this.rankerSources(), minGroup);
  }

  /** Fit the pairwise ranker on the log; saved (not switched on) with `save` when a pair existed. */
  async fitRanker(options: { save?: boolean; l2?: number } = {}): Promise<FitResult> {
    return rankerLoop.fitRanker(this.rankerSources(), options);
  }

  /** Switch the ranker on for `context`/`ask` (needs a saved fit) or off. */
  async useRanker(on: boolean): Promise<void> {
    await setModelOn(this.store, 'ranker', on);
  }

  async isRankerOn(): Promise<boolean> {
    return isModelOn(this.store, 'ranker');
  }

  /** Switches, fit times, fit sizes and weights (largest first) of both models. */
  async rankerInfo(): Promise<RankerInfo> {
    return {
      learning: await this.isLearning(),
      feedbackRows: (await this.store.listFeedback()).length,
      ranker: await modelInfo(this.store, 'ranker', PAIR_FEATURES),
      noise: await modelInfo(this.store, 'noise', ALL_NOISE_FEATURES),
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
    const model = options.model ?? (await rankerLoop.servingRanker(this.store));
    if (model === null) return [...hits];
    const src = { ...this.rankerSources(), prior: () => this.docPrior({ explore: 0 }) };
    return rankerLoop.retuneHits(src, question, hits, model, options.alpha);
  }
}
