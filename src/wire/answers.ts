import type { AskEvent } from '../answer/ask-events.js';
import type { AskResult, CitedSection } from '../answer/ask.js';
import type { Conflict } from '../answer/conflicts.js';
import type { ContextSection } from '../answer/context-section.js';
import { measureAnswer, type AnswerGrounding } from '../evaluate/answer-grounding.js';
import { createLexicalJudge } from '../evaluate/judges/lexical.js';
import type { Judge } from '../evaluate/judges/judge.js';
import type { Measurement } from '../evaluate/measurement.js';

/** A cited or context section as JSON (snake_case). */
function sectionRefJson(c: CitedSection): Record<string, unknown> {
  return {
    n: c.n,
    section_id: c.sectionId,
    doc_id: c.docId,
    breadcrumb: c.breadcrumb,
    source: c.source,
    pages: c.pages,
  };
}

/** The stable JSON shape of an answer (snake_case; see README). */
export function askJson(r: AskResult): Record<string, unknown> {
  return {
    question: r.question,
    answer: r.answer,
    claims: r.claims,
    cited: r.cited.map(sectionRefJson),
    invalid_citations: r.invalidCitations,
    abstained: r.abstained,
    conflicts: r.conflicts.map(conflictJson),
    context: r.context.map(contextSectionJson),
    generator: r.generator,
    usage: { prompt_tokens: r.usage.promptTokens, completion_tokens: r.usage.completionTokens },
    timings_ms: r.timings,
    shrunk: r.shrunk,
    transcript_id: r.transcriptId,
  };
}

function conflictJson(c: Conflict): Record<string, unknown> {
  return {
    kind: c.kind,
    sides: c.sides.map((side) => ({
      n: side.n,
      section_id: side.sectionId,
      sentence: side.sentence,
      span: side.span,
      span_start: side.spanStart,
      span_end: side.spanEnd,
    })),
  };
}

function contextSectionJson(c: ContextSection): Record<string, unknown> {
  const r = c.ranking;
  return {
    ...sectionRefJson(c),
    title: c.title,
    score: c.score,
    // Where retrieval and selection put it, named as in a search hit (`wire/hits.ts`).
    ...(r === undefined
      ? {}
      : {
          retrieval_rank: r.retrievalRank,
          selection_rank: r.selectionRank,
          step_score: r.stepScore,
          leg_ranks: r.ranks,
        }),
    text: c.text,
  };
}

/**
 * One step of a streamed answer as JSON (the `data:` of a Server-Sent Event named by `type`, and
 * MCP's progress): the same fields as `askJson`, sent as they become known.
 */
export function askEventJson(e: AskEvent): Record<string, unknown> {
  switch (e.type) {
    case 'context':
      return { sections: e.sections.map(contextSectionJson), timings_ms: e.timings };
    case 'token':
      return { text: e.text };
    case 'claims':
      return {
        answer: e.answer,
        claims: e.claims,
        cited: e.cited.map(sectionRefJson),
        invalid_citations: e.invalidCitations,
        abstained: e.abstained,
        conflicts: e.conflicts.map(conflictJson),
      };
    case 'measured':
      return {
        timings_ms: e.timings,
        usage: { prompt_tokens: e.usage.promptTokens, completion_tokens: e.usage.completionTokens },
        generator: e.generator,
      };
    case 'done':
      return askJson(e.result);
  }
}

function measurementJson(m: Measurement): Record<string, unknown> {
  return m.value === null
    ? { num: m.num, den: m.den, value: null, undefined_reason: m.undefinedReason }
    : { num: m.num, den: m.den, value: m.value };
}

/**
 * An answer's grounding measurements as JSON (the `grounding` field of an answer): the judge that
 * decided support (`proxy: true` for the lexical-overlap proxy), the five measurements (each
 * `{num, den, value}`, or `value: null` with `undefined_reason`), and per claim its verdicts: the
 * sections supporting it alone (`supported_by`, context numbers) and each citation's validity.
 */
export function groundingJson(
  g: AnswerGrounding,
  judge: Pick<Judge, 'id' | 'proxy'>,
): Record<string, unknown> {
  return {
    judge: { id: judge.id, proxy: judge.proxy },
    context_relevance: measurementJson(g.contextRelevance),
    faithfulness: measurementJson(g.faithfulness),
    citation_support: measurementJson(g.citationSupport),
    citation_precision: measurementJson(g.citationPrecision),
    completeness: measurementJson(g.completeness),
    claims: g.claims.map((c, i) => ({
      text: c.text,
      supported: c.supported,
      validly_cited: c.validlyCited,
      supported_by: g.supportedBy[i] ?? [],
      citations: c.citations.map((x) => ({ n: x.ref, section_id: x.sectionId, valid: x.valid })),
    })),
  };
}

/** The judge of a live answer's measurements: the lexical proxy (offline, cheap, named on the reply). */
const LIVE_JUDGE = createLexicalJudge();

/**
 * An answer's JSON with its `grounding` measurements (`groundingJson`): what `quiver ask --json`,
 * `POST /v1/ask` and its `done` event send, so every face shows the same numbers.
 */
export async function groundedAskJson(r: AskResult, signal?: AbortSignal): Promise<Record<string, unknown>> {
  return { ...askJson(r), grounding: groundingJson(await measureAnswer(r, LIVE_JUDGE, signal), LIVE_JUDGE) };
}
