import type { SectionHit, SectionSearchResult } from '../retrieve/sections.js';
import type { SelectionMap } from '../retrieve/selection-map.js';
import { snippetToPlain } from '../text/plain-text.js';

/** The stable JSON shape of one result (snake_case: other tools rely on it; see README). */
export function hitJson(h: SectionHit): Record<string, unknown> {
  return {
    doc_id: h.docId,
    source: h.source,
    section_id: h.sectionId,
    score: h.score,
    title: h.title,
    doc_title: h.docTitle,
    breadcrumb: h.breadcrumb,
    kind: h.kind,
    pages: h.pages,
    retrieval_rank: h.retrievalRank,
    selection_rank: h.selectionRank,
    step_score: h.stepScore,
    leg_ranks: h.ranks,
    snippets: h.snippets,
    // The first snippet as one line of plain text (Markdown removed), for displays that do not render it.
    snippet: snippetToPlain(h.snippets[0] ?? ''),
    ...(h.text === undefined ? {} : { text: h.text }),
    // Lower hits folded under this one as its near-copies (a ranked list shows each passage once).
    ...(h.nearCopies === undefined
      ? {}
      : {
          near_copies: h.nearCopies.map((c) => ({
            doc_id: c.docId,
            source: c.source,
            section_id: c.sectionId,
            title: c.title,
            breadcrumb: c.breadcrumb,
            score: c.score,
            retrieval_rank: c.retrievalRank,
          })),
        }),
  };
}

/** The JSON shape of a search's reply (`quiver search --json`, `POST /v1/search`). */
export function searchJson(query: string, r: SectionSearchResult): Record<string, unknown> {
  return { query, pool: r.pool, results: r.hits.map(hitJson), timings_ms: r.timings };
}

/** The JSON shape of a context reply (`quiver context --json`, `POST /v1/context`): numbered sections. */
export function contextJson(
  query: string,
  r: { sections: (SectionHit & { n: number })[]; timings: Record<string, number> },
): Record<string, unknown> {
  return { query, sections: r.sections.map((s) => ({ n: s.n, ...hitJson(s) })), timings_ms: r.timings };
}

/**
 * The JSON shape of a selection map (`POST /v1/selection-map`): the candidate pool, each with its
 * distance to the query (1 − cos) and angle (radians), and each method's picks as indexes into
 * `candidates`, in pick order.
 */
export function selectionMapJson(query: string, m: SelectionMap): Record<string, unknown> {
  return {
    query,
    k: m.k,
    candidates: m.candidates.map((c) => ({
      section_id: c.sectionId,
      doc_id: c.docId,
      source: c.source,
      title: c.title,
      breadcrumb: c.breadcrumb,
      snippet: c.snippet,
      score: c.score,
      retrieval_rank: c.retrievalRank,
      leg_ranks: c.ranks,
      distance: c.distance,
      angle: c.angle,
    })),
    picks: m.picks,
  };
}
