/**
 * "Open my last answer in the lab": a live answer measured as `measureAnswer` measures it (the same
 * judge, context relevance and completeness Undefined), with some of its context sections left out,
 * so a reader sees faithfulness and citation support move when a source goes. A citation of a
 * left-out section stays present and becomes invalid, as a citation of a section that was not
 * retrieved is (seed 000). Numbers in the result are the answer's own `[n]`.
 */
import type { AskResult } from '../answer/ask.js';
import { measureAnswer, type AnswerGrounding } from './answer-grounding.js';
import type { Judge } from './judges/judge.js';

/** What the lab needs of an answer: its numbered context, its claims with their `[n]`, its text. */
export type LabAnswer = Pick<AskResult, 'context' | 'claims' | 'answer'>;

/**
 * The answer as if the sections numbered in `omitted` had not been retrieved: the kept sections
 * renumbered 1..k in order, each claim's citation of a kept section renumbered with it, and every
 * other citation (a left-out section, or a number that was already out of range) turned into `-n`,
 * which is out of range and distinct per `n`. `originalN[i]` is the answer's number of new `[i+1]`.
 */
export function withoutSections(
  r: LabAnswer,
  omitted: ReadonlySet<number>,
): { answer: LabAnswer; originalN: number[] } {
  const kept = r.context.filter((c) => !omitted.has(c.n));
  const renumber = new Map(kept.map((c, i) => [c.n, i + 1]));
  return {
    answer: {
      answer: r.answer,
      context: kept.map((c, i) => ({ ...c, n: i + 1 })),
      claims: r.claims.map((c) => ({
        text: c.text,
        citations: c.citations.map((n) => renumber.get(n) ?? -Math.abs(n)),
      })),
    },
    originalN: kept.map((c) => c.n),
  };
}

/**
 * `measureAnswer` of the answer without the sections in `omitted`, its numbers mapped back to the
 * answer's own: `supportedBy` and each citation's `ref` name the original `[n]`. With nothing
 * omitted it equals `measureAnswer(r, judge)`.
 */
export async function measureAnswerWithout(
  r: LabAnswer,
  omitted: ReadonlySet<number>,
  judge: Judge,
  signal?: AbortSignal,
): Promise<AnswerGrounding> {
  const { answer, originalN } = withoutSections(r, omitted);
  const back = (n: number): number => (n > 0 ? (originalN[n - 1] ?? n) : -n);
  const g = await measureAnswer(answer, judge, signal);
  return {
    ...g,
    claims: g.claims.map((c) => ({
      ...c,
      citations: c.citations.map((x) => ({ ...x, ref: typeof x.ref === 'number' ? back(x.ref) : x.ref })),
    })),
    supportedBy: g.supportedBy.map((ns) => ns.map(back)),
  };
}
