/**
 * The feedback vocabulary: each signal a person or an answer can give about one section for one
 * question, with the label (1 good, 0 bad) and weight it contributes to the prior and the ranker.
 */

import { QuiverError } from '../errors.js';

/** A signal's label (1 = the section helped, 0 = it did not) and its weight. */
export interface SignalSpec {
  readonly label: 0 | 1;
  readonly weight: number;
}

/**
 * up/good 1×3, down/bad 0×3, read 1×1.5, cited 1×1, shown 0×0.35. `shown` is the weak negative:
 * a section that was offered to the answer and not cited.
 */
export const SIGNALS = {
  up: { label: 1, weight: 3 },
  good: { label: 1, weight: 3 },
  down: { label: 0, weight: 3 },
  bad: { label: 0, weight: 3 },
  read: { label: 1, weight: 1.5 },
  cited: { label: 1, weight: 1 },
  shown: { label: 0, weight: 0.35 },
} as const satisfies Record<string, SignalSpec>;

export type SignalName = keyof typeof SIGNALS;

/** The valid signal names, sorted (for messages and CLI help). */
export const SIGNAL_NAMES: readonly SignalName[] = (Object.keys(SIGNALS) as SignalName[]).sort();

/** True when `name` is one of {@link SIGNALS}. */
export function isSignal(name: string): name is SignalName {
  return Object.hasOwn(SIGNALS, name);
}

/**
 * The label and weight of a signal. An unknown name throws BAD_INPUT listing the valid names.
 *
 * @example signalOf('cited') // { label: 1, weight: 1 }
 */
export function signalOf(name: string): SignalSpec {
  if (!isSignal(name)) {
    throw new QuiverError(
      'BAD_INPUT',
      `quiver: signal must be one of ${SIGNAL_NAMES.join(', ')}, got ${JSON.stringify(name)}`,
      { details: { field: 'signal', value: name } },
    );
  }
  return SIGNALS[name];
}

/** One section offered to an answer, numbered as the prompt numbered it (`[n]`, 1-based). */
export interface AskSection {
  n: number;
  sectionId: string;
  docId: string;
  /** The retrieval score it was shown with (0 when unknown, e.g. another shelf's section). */
  score: number;
}

export interface FeedbackRowsForAskInput {
  question: string;
  sections: readonly AskSection[];
  /** Section numbers the answer cited. */
  cited: readonly number[];
  /** Section numbers a person marked good. */
  up?: readonly number[];
  /** Section numbers a person marked bad. */
  down?: readonly number[];
  /** Log the offered-but-uncited sections as `shown` weak negatives. Defaults to true. */
  weak?: boolean;
}

/** One feedback row ready to store (the caller adds the ask id, the row id and the time). */
export interface FeedbackDraft {
  question: string;
  sectionId: string;
  docId: string;
  signal: SignalName;
  label: 0 | 1;
  weight: number;
  /** The section's 1-based number in the prompt. */
  rank: number;
  score: number;
}

/**
 * The feedback rows for one answered question. Per section, the signal is chosen with precedence
 * up > down > cited > shown (`shown` only when `weak`; otherwise the section writes nothing).
 * When `cited`, `up` and `down` are all empty, nothing is written: a model that stops citing on a
 * hard question must not turn every section into a negative. Numbers not matching any section's
 * `n` (beyond the list) are ignored. Rows come in the order of `sections`.
 *
 * @example
 * feedbackRowsForAsk({ question: 'q', sections: [s1, s2], cited: [1] })
 * // → [{ signal: 'cited', … s1 }, { signal: 'shown', … s2 }]
 */
export function feedbackRowsForAsk(input: FeedbackRowsForAskInput): FeedbackDraft[] {
  const cited = new Set(input.cited);
  const up = new Set(input.up ?? []);
  const down = new Set(input.down ?? []);
  const weak = input.weak ?? true;
  if (cited.size === 0 && up.size === 0 && down.size === 0) return [];
  const rows: FeedbackDraft[] = [];
  for (const s of input.sections) {
    let signal: SignalName | undefined;
    if (up.has(s.n)) signal = 'up';
    else if (down.has(s.n)) signal = 'down';
    else if (cited.has(s.n)) signal = 'cited';
    else if (weak) signal = 'shown';
    if (signal === undefined) continue;
    const { label, weight } = SIGNALS[signal];
    rows.push({
      question: input.question,
      sectionId: s.sectionId,
      docId: s.docId,
      signal,
      label,
      weight,
      rank: s.n,
      score: Number.isFinite(s.score) ? s.score : 0,
    });
  }
  return rows;
}
