/**
 * The feedback log of a vault: a person's ratings of sections, answers logged for learning, and
 * the switch that turns that logging on. The rows feed the prior, the noise `promiscuity` and the
 * ranker's training data.
 */

import { createHash, randomUUID } from 'node:crypto';
import type { AskResult } from '../answer/ask.js';
import { QuiverError } from '../errors.js';
import type { FeedbackRecord, Store } from '../store/store.js';
import { QUALITY_KEYS } from './model-store.js';
import { feedbackRowsForAsk, signalOf } from './signals.js';

export const DEFAULT_RATINGS_LIMIT = 50;

export interface RateOptions {
  rank?: number | null;
  score?: number | null;
  /**
   * Groups this rating with others of the same question. When absent, ratings that name the same
   * question share a group (`questionGroup`), so rating one section up and another down for a
   * question gives the ranker a pair; a rating without a question gets a group of its own.
   */
  askId?: string;
}

/**
 * The group id of a question's ratings: `q` + the first 11 hex digits of SHA-256 over the question
 * lower-cased with whitespace runs collapsed and trimmed. Edge case: spacing and case never split a
 * group; different wording does.
 */
export function questionGroup(question: string): string {
  const norm = question.toLowerCase().replace(/\s+/g, ' ').trim();
  return `q${createHash('sha256').update(norm).digest('hex').slice(0, 11)}`;
}

/** What `logAsk` needs from an answer. */
export type AskLike = Pick<AskResult, 'question' | 'context' | 'cited'>;

const hex = (n: number): string => randomUUID().replace(/-/g, '').slice(0, n);
const iso = (now: () => number): string => new Date(now()).toISOString();

/**
 * Write one rating row stamped `now()`. Unknown signal → BAD_INPUT; a section that is not live →
 * NOT_FOUND.
 */
export async function rate(
  store: Store,
  now: () => number,
  q: string,
  sectionId: string,
  signal: string,
  options: RateOptions = {},
): Promise<FeedbackRecord> {
  const { label, weight } = signalOf(signal);
  const [section] = await store.getSections([sectionId]);
  if (section === undefined) throw new QuiverError('NOT_FOUND', `quiver: no section ${sectionId}`);
  const row: FeedbackRecord = {
    id: hex(16),
    at: iso(now),
    q: q ?? '',
    askId: options.askId ?? ((q ?? '').trim() === '' ? hex(12) : questionGroup(q)),
    sectionId,
    docId: section.docId,
    rank: options.rank ?? null,
    score: options.score ?? null,
    signal,
    label,
    weight,
  };
  await store.addFeedback([row]);
  return row;
}

/** Feedback rows, newest first (at most DEFAULT_RATINGS_LIMIT unless `limit` says). */
export async function ratings(
  store: Store,
  options: { docId?: string; limit?: number } = {},
): Promise<FeedbackRecord[]> {
  return store.listFeedback({
    ...options,
    limit: options.limit ?? DEFAULT_RATINGS_LIMIT,
    order: 'newest',
  });
}

/** Write an answer's rows (see `feedbackRowsForAsk`) under one fresh ask id; returns how many. */
export async function logAsk(
  store: Store,
  now: () => number,
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
  const at = iso(now);
  await store.addFeedback(
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

export async function setLearning(store: Store, on: boolean): Promise<void> {
  await store.setMeta(QUALITY_KEYS.learn, on ? '1' : '0');
}

export async function isLearning(store: Store): Promise<boolean> {
  return (await store.getMeta(QUALITY_KEYS.learn)) === '1';
}

/** Log the answer when learning is on. Never throws: a failure comes back as a message, else null. */
export async function observe(store: Store, now: () => number, ask: AskLike): Promise<string | null> {
  try {
    if (await isLearning(store)) await logAsk(store, now, ask);
    return null;
  } catch (e) {
    return `quiver: could not log the answer for learning: ${(e as Error).message}`;
  }
}
