/**
 * The last answer the Ask view finished, for "Open my last answer in the lab": the Ask view hands
 * it over with `rememberAnswer` when its stream is done; the lab reads it with `useLastAnswer`.
 * Kept in memory only (a reload forgets it, as it forgets the answer).
 */
import { useEffect, useState } from 'preact/hooks';
import type { LabAnswer } from '../../../src/evaluate/answer-lab.js';
import type { AnswerJson } from '../wire.js';

let last: AnswerJson | null = null;
const listeners = new Set<(a: AnswerJson) => void>();

/** Keep `answer` as the last one and tell whoever is listening. */
export function rememberAnswer(answer: AnswerJson): void {
  last = answer;
  for (const l of listeners) l(answer);
}

/** The last answer remembered, following later ones; null until there is one. */
export function useLastAnswer(): AnswerJson | null {
  const [answer, setAnswer] = useState<AnswerJson | null>(last);
  useEffect(() => {
    listeners.add(setAnswer);
    setAnswer(last);
    return () => {
      listeners.delete(setAnswer);
    };
  }, []);
  return answer;
}

/** The answer as `measureAnswerWithout` reads it: its numbered context and its claims. */
export function toLabAnswer(a: AnswerJson): LabAnswer {
  return {
    answer: a.answer,
    claims: a.claims.map((c) => ({ text: c.text, citations: [...c.citations] })),
    context: a.context.map((s) => ({
      n: s.n,
      sectionId: s.section_id,
      docId: s.doc_id,
      title: s.title,
      breadcrumb: s.breadcrumb,
      source: s.source,
      pages: s.pages,
      text: s.text,
      score: s.score,
    })),
  };
}
