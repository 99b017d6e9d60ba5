/**
 * The JSON the page reads from the HTTP API (snake_case, as `src/wire/*.ts` writes it). Only the
 * fields the page uses are declared; the server may send more.
 */

export type Pages = [number, number] | null;

/** A numbered context section of an answer (`context` event, `done.context`). */
export interface ContextSectionJson {
  n: number;
  section_id: string;
  doc_id: string;
  title: string;
  breadcrumb: string;
  source: string;
  pages: Pages;
  score: number;
  text: string;
}

/** A cited section (`claims.cited`). */
export interface CitedJson {
  n: number;
  section_id: string;
  doc_id: string;
  breadcrumb: string;
  source: string;
  pages: Pages;
}

export interface ClaimJson {
  text: string;
  citations: number[];
}

export interface AbstentionJson {
  coverage: number;
  threshold: number;
  missing: string[];
}

/** The `claims` event: the answer split into claims, citations resolved. */
export interface ClaimsJson {
  answer: string;
  claims: ClaimJson[];
  cited: CitedJson[];
  invalid_citations: number[];
  abstained: AbstentionJson | null;
}

/** One measurement: a fraction with its parts, or Undefined (`value: null`) with its reason. */
export type MeasurementJson =
  | { num: number; den: number; value: number }
  | { num: number; den: number; value: null; undefined_reason: string };

/** The five measurements of `done.grounding`, with the judge and each claim's verdicts. */
export interface GroundingJson {
  judge: { id: string; proxy: boolean };
  context_relevance: MeasurementJson;
  faithfulness: MeasurementJson;
  citation_support: MeasurementJson;
  citation_precision: MeasurementJson;
  completeness: MeasurementJson;
  claims: {
    text: string;
    supported: boolean;
    validly_cited: boolean;
    /** Context numbers whose section supports the claim on its own. */
    supported_by: number[];
    citations: { n: number | string; section_id: string | null; valid: boolean }[];
  }[];
}

/** The `done` event: the whole answer. */
export interface AnswerJson extends ClaimsJson {
  question: string;
  context: ContextSectionJson[];
  generator: string;
  timings_ms: Record<string, number>;
  grounding?: GroundingJson;
}

/** A section of `POST /v1/context`: why it is in the evidence (ranks are 0-based). */
export interface EvidenceHitJson {
  n: number;
  section_id: string;
  retrieval_rank: number;
  selection_rank: number;
  step_score: number | null;
  leg_ranks: { lexical: number | null; vector: number | null };
}

/** `GET /v1/sections/:id`. */
export interface SectionJson {
  id: string;
  doc_id: string;
  source: string;
  title: string;
  breadcrumb: string;
  pages: Pages;
  text: string;
}

/** `GET /v1/documents/:id/outline`. */
export interface OutlineJson {
  document: { id: string; source: string; title: string };
  sections: { id: string; level: number; title: string; breadcrumb: string; pages: Pages }[];
}

/** Every failure: `{error: {code, message}}` (src/server/http-status.ts). */
export interface ErrorJson {
  error: { code: string; message: string };
}
