/**
 * `useRatings(question, token)`: up/down on the sections of one answer, each written at once as a
 * feedback row (`POST /v1/feedback`), which the ranker learns from. Remembers the signal given to
 * each section for this question, the ones on their way and the last failure per section; all
 * start again when the question changes.
 */
import { useEffect, useState } from 'preact/hooks';
import { getJson } from './api.js';
import type { FeedbackJson, Signal } from './wire.js';

export interface Ratings {
  /** The signal last written for each section id. */
  given: ReadonlyMap<string, Signal>;
  /** Section ids whose rating is being written. */
  pending: ReadonlySet<string>;
  /** The last failure for each section id (an ApiError from the server, or any error). */
  errors: ReadonlyMap<string, unknown>;
  /** Write `signal` for `sectionId`; giving the same signal again writes nothing. */
  rate(sectionId: string, signal: Signal): void;
}

interface State {
  given: Map<string, Signal>;
  pending: Set<string>;
  errors: Map<string, unknown>;
}

const EMPTY = (): State => ({ given: new Map(), pending: new Set(), errors: new Map() });

export function useRatings(question: string, token: string): Ratings {
  const [state, setState] = useState<State>(EMPTY);
  useEffect(() => setState(EMPTY()), [question, token]);
  const rate = (sectionId: string, signal: Signal): void => {
    if (state.given.get(sectionId) === signal || state.pending.has(sectionId)) return;
    setState((s) => ({ ...s, pending: new Set(s.pending).add(sectionId) }));
    const settle = (change: (s: State) => Partial<State>): void =>
      setState((s) => {
        const pending = new Set(s.pending);
        pending.delete(sectionId);
        return { ...s, pending, ...change(s) };
      });
    getJson<FeedbackJson>('/v1/feedback', token, { body: { question, sectionId, signal } }).then(
      () =>
        settle((s) => {
          const errors = new Map(s.errors);
          errors.delete(sectionId);
          return { given: new Map(s.given).set(sectionId, signal), errors };
        }),
      (error: unknown) => settle((s) => ({ errors: new Map(s.errors).set(sectionId, error) })),
    );
  };
  return { ...state, rate };
}
