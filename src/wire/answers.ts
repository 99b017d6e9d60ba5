import type { AskEvent } from '../answer/ask-events.js';
import type { AskResult, CitedSection } from '../answer/ask.js';
import type { Conflict } from '../answer/conflicts.js';
import type { ContextSection } from '../answer/context-section.js';

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
  return { ...sectionRefJson(c), title: c.title, score: c.score, text: c.text };
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
