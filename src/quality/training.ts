/**
 * Turning the feedback log into the ranker's training set, with an out-of-fold document prior.
 */

import { PAIR_FEATURES, pairFeatures } from './pair-features.js';
import type { PairDocInfo, PairHit } from './pair-features.js';
import { docPrior, docStats } from './prior.js';

export const DEFAULT_MIN_GROUP = 2;

/** The fields of a stored feedback row that training reads. */
export interface TrainingRow {
  askId: string;
  question: string;
  docId: string;
  sectionId: string;
  label: number;
  weight: number;
  /** The retrieval score the section was shown with (missing or non-finite → 0). */
  score?: number | null;
}

export interface TrainingDataOptions {
  /** Skip groups with fewer rows. Defaults to 2. */
  minGroup?: number;
  /**
   * The section's text (and vector) for a row. Must return the same text serving will use for that
   * section (e.g. the section's text cut at one fixed length), so `len` and the overlaps agree.
   */
  hitFor: (row: TrainingRow) => Pick<PairHit, 'text'> & { vector?: ArrayLike<number> };
  /** The question's embedding, if available (for `cos`). */
  queryVectorFor?: (question: string) => ArrayLike<number> | undefined;
  idf: ReadonlyMap<string, number>;
  docInfo: ReadonlyMap<string, PairDocInfo>;
  noiseZ: ReadonlyMap<string, readonly number[]>;
  nowMs: number;
}

/** Stacked training rows for {@link Ranker.fit}. */
export interface TrainingData {
  names: string[];
  X: number[][];
  groups: string[];
  y: number[];
  weights: number[];
}

/**
 * Group `rows` (ordered by time, oldest first) by askId, groups in order of first appearance and
 * rows in log order (which sets the `rank` feature). Skip a group with fewer than `minGroup` rows
 * or fewer than 2 distinct labels (all-positive or all-negative teaches a pairwise model nothing).
 * Each group's features use the question of its first row and a prior that is OUT OF FOLD: the
 * posterior mean (explore 0) over every row except this group's own — an in-fold prior leaks the
 * label (the reference's recall fell from 0.80 to 0.47). No usable group → empty arrays.
 */
export function trainingData(rows: readonly TrainingRow[], options: TrainingDataOptions): TrainingData {
  const minGroup = options.minGroup ?? DEFAULT_MIN_GROUP;
  const byAsk = new Map<string, TrainingRow[]>();
  for (const r of rows) {
    const g = byAsk.get(r.askId) ?? [];
    g.push(r);
    byAsk.set(r.askId, g);
  }
  const out: TrainingData = { names: [...PAIR_FEATURES], X: [], groups: [], y: [], weights: [] };
  for (const [askId, group] of byAsk) {
    if (group.length < minGroup || new Set(group.map((r) => r.label)).size < 2) continue;
    const prior = docPrior(docStats(rows, new Set([askId])), { explore: 0 });
    const hits: PairHit[] = group.map((r) => {
      const h = options.hitFor(r);
      const hit: PairHit = {
        text: h.text,
        score: typeof r.score === 'number' && Number.isFinite(r.score) ? r.score : 0,
        docId: r.docId,
        sectionId: r.sectionId,
      };
      if (h.vector !== undefined) hit.vector = h.vector;
      return hit;
    });
    const question = group[0]!.question;
    const qv = options.queryVectorFor?.(question);
    const X = pairFeatures({
      question,
      hits,
      idf: options.idf,
      prior,
      docInfo: options.docInfo,
      noiseZ: options.noiseZ,
      nowMs: options.nowMs,
      ...(qv === undefined ? {} : { queryVector: qv }),
    });
    group.forEach((r, i) => {
      out.X.push(X[i]!);
      out.groups.push(askId);
      out.y.push(r.label);
      out.weights.push(r.weight);
    });
  }
  return out;
}
