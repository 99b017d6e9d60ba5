/**
 * The state of one question on the Ask view and how each streamed event changes it. Pure.
 */
import type { AskEvent } from '../ask-stream.js';
import type { AnswerJson, ClaimsJson, ContextSectionJson, EvidenceHitJson } from '../wire.js';

export type Phase = 'idle' | 'retrieving' | 'writing' | 'measuring' | 'done' | 'failed';

export interface AskState {
  phase: Phase;
  question: string;
  sections: ContextSectionJson[];
  /** The answer text as streamed so far. */
  streamed: string;
  /** How many token events arrived. */
  tokens: number;
  claims: ClaimsJson | null;
  answer: AnswerJson | null;
  /** Ranks of the context sections by section id (from `POST /v1/context`); null until known. */
  evidence: Map<string, EvidenceHitJson> | null;
  evidenceError: string | null;
  error: unknown;
}

export const IDLE: AskState = {
  phase: 'idle',
  question: '',
  sections: [],
  streamed: '',
  tokens: 0,
  claims: null,
  answer: null,
  evidence: null,
  evidenceError: null,
  error: null,
};

/** The state when `question` is asked. */
export function started(question: string): AskState {
  return { ...IDLE, phase: 'retrieving', question };
}

/** The state after one event of the answer stream. */
export function afterEvent(s: AskState, e: AskEvent): AskState {
  switch (e.type) {
    case 'context':
      return { ...s, phase: 'writing', sections: e.sections };
    case 'token':
      return { ...s, streamed: s.streamed + e.text, tokens: s.tokens + 1 };
    case 'claims':
      return { ...s, phase: 'measuring', claims: e.claims };
    case 'measured':
      return s;
    case 'done':
      return { ...s, phase: 'done', answer: e.answer, claims: e.answer, sections: e.answer.context };
  }
}
