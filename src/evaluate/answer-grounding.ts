/**
 * The grounding measurements of one live answer (`ask`), for the faces that show them next to the
 * answer (the web page's five cards). The same `measureGrounding` as `quiver eval`, with what a live
 * question lacks left Undefined: no relevance labels (context relevance) and no reference facts
 * (completeness). Each claim also lists every context section the judge finds supporting it on its
 * own, so a reader sees which source backs which claim, cited or not.
 */
import type { AskResult } from '../answer/ask.js';
import { judgedText } from '../answer/context-section.js';
import { measureGrounding, type GroundingResult } from './grounding.js';
import type { Judge } from './judges/judge.js';
import { undefinedMeasurement } from './measurement.js';

/** Why context relevance is Undefined for a live answer: nobody judged its sections. */
export const NO_RELEVANCE_LABELS = 'no relevance labels (a live question has no judged sections)';

/** `measureGrounding`'s result plus, per claim, the context numbers `[n]` that support it alone. */
export interface AnswerGrounding extends GroundingResult {
  /** Same order as `claims`: the 1-based context numbers whose section supports the claim. */
  supportedBy: number[][];
}

/**
 * Measure an answer against its own context with `judge`. Context relevance is Undefined
 * (`NO_RELEVANCE_LABELS`); completeness is Undefined (no required facts); the other three follow
 * `measureGrounding`. An abstention has no claims, so the claim-based measurements are Undefined.
 */
export async function measureAnswer(
  r: Pick<AskResult, 'context' | 'claims' | 'answer'>,
  judge: Judge,
  signal?: AbortSignal,
): Promise<AnswerGrounding> {
  const call = signal === undefined ? {} : { signal };
  const sources = r.context.map((c) => ({ id: c.sectionId, text: judgedText(c) }));
  const g = await measureGrounding({
    retrieved: sources,
    claims: r.claims.map((c) => ({ text: c.text, citations: c.citations })),
    requiredFacts: [],
    answerText: r.answer,
    judge,
    ...call,
  });
  const supportedBy = await Promise.all(
    r.claims.map(async (claim) => {
      const verdicts = await Promise.all(sources.map((s) => judge.supports(s, { text: claim.text }, call)));
      return r.context.filter((_, i) => verdicts[i] === true).map((c) => c.n);
    }),
  );
  return { ...g, contextRelevance: undefinedMeasurement(NO_RELEVANCE_LABELS), supportedBy };
}
