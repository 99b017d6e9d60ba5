import type { AskResult, CitedSection } from '../answer/ask.js';

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
    conflicts: r.conflicts.map((c) => ({
      kind: c.kind,
      sides: c.sides.map((side) => ({
        n: side.n,
        section_id: side.sectionId,
        sentence: side.sentence,
        span: side.span,
        span_start: side.spanStart,
        span_end: side.spanEnd,
      })),
    })),
    context: r.context.map((c) => ({ ...sectionRefJson(c), score: c.score, text: c.text })),
    generator: r.generator,
    usage: { prompt_tokens: r.usage.promptTokens, completion_tokens: r.usage.completionTokens },
    timings_ms: r.timings,
    shrunk: r.shrunk,
    transcript_id: r.transcriptId,
  };
}
