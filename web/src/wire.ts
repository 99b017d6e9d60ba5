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

/** The signals a person gives from the page (`POST /v1/feedback` takes more). */
export type Signal = 'up' | 'down';

/** A feedback row (`POST /v1/feedback`, `GET /v1/feedback`). */
export interface FeedbackJson {
  id: string;
  at: string;
  question: string;
  ask_id: string;
  section_id: string | null;
  doc_id: string | null;
  rank: number | null;
  score: number | null;
  signal: string;
  label: number;
  weight: number;
}

/** `GET /v1/feedback`: the ratings, newest first, and whether answers are logged for learning. */
export interface RatingsJson {
  ratings: FeedbackJson[];
  learning: boolean;
}

/** A document's record (`GET /v1/documents`, `outline.document`). */
export interface DocumentJson {
  id: string;
  source: string;
  title: string;
  kind: string;
  pages: number | null;
  added_at: string;
  updated_at: string;
  batch_id: string;
}

/** An ingest or removal batch (`GET /v1/batches`; camelCase, as the store keeps it). */
export interface BatchJson {
  id: string;
  startedAt: string;
  finishedAt: string | null;
  status: 'running' | 'done' | 'interrupted' | 'rolled_back';
  label: string;
  added: number;
  updated: number;
  unchanged: number;
  removed: number;
  failed: number;
}

/** A job (`GET /v1/jobs`; camelCase, as src/wire/jobs.ts writes it). */
export interface JobJson {
  id: string;
  kind: string;
  state: 'queued' | 'leased' | 'done' | 'dead';
  attempts: number;
  maxAttempts: number;
  createdAt: string;
  progress: Record<string, unknown> | null;
  /** What the job returned: for an ingest, its add report ({@link AddReportJson}). */
  result: Record<string, unknown> | null;
  lastError: string | null;
  finishedAt: string | null;
}

/** `POST /v1/uploads` and `POST /v1/documents` with paths: 202 and the queued job. */
export interface AcceptedJson {
  job: JobJson;
}

/** An ingest's report (`quiver add --json`; an ingest job's `result`). */
export interface AddReportJson {
  batch: string | null;
  added: number;
  updated: number;
  unchanged: number;
  removed: number;
  failed: number;
  skipped: number;
  items: {
    source: string;
    status: string;
    docId?: string;
    title?: string;
    error?: { code: string; message: string };
  }[];
}

/** A document that looks like junk (`GET /v1/noise/suggestions`). */
export interface NoiseSuggestionJson {
  doc_id: string;
  title: string;
  source: string;
  /** The blend of the features (larger: noisier); suggestions start at 1.0. */
  score: number;
  /** Rank-normalised value per feature, in [−1.73, 1.73], larger: noisier. */
  features: Record<string, number>;
  raw: Record<string, number>;
}

/** A person's judgement of a document (`GET`/`POST /v1/noise/marks`). */
export interface NoiseMarkJson {
  doc_id: string;
  title: string;
  source: string;
  /** true: junk (left out of search and answers); false: a keeper. */
  noisy: boolean;
  reason: string | null;
}

/** `GET /v1/jobs`. */
export interface JobsJson {
  counts: Record<string, number>;
  jobs: JobJson[];
}

/** The selection methods a selection map shows the picks of. */
export type SelectionMethod = 'topk' | 'mmr' | 'dartboard';

/** One candidate of `POST /v1/selection-map`: where it sits around the query. */
export interface MapCandidateJson {
  section_id: string;
  doc_id: string;
  source: string;
  title: string;
  breadcrumb: string;
  snippet: string;
  score: number;
  retrieval_rank: number;
  leg_ranks: { lexical: number | null; vector: number | null };
  /** 1 − cosine similarity to the query. */
  distance: number;
  /** Radians, from a projection of the pool's vectors (near-copies sit together). */
  angle: number;
}

/** `POST /v1/selection-map`: the candidate pool and each method's picks (indexes into it). */
export interface SelectionMapJson {
  query: string;
  k: number;
  candidates: MapCandidateJson[];
  picks: Record<SelectionMethod, number[]>;
}

/** A stored model's switch, fit time, fit size and weights (`GET /v1/ranker`). */
export interface ModelInfoJson {
  on: boolean;
  fitted_at: string | null;
  meta: { nPairs: number; nRows: number; nGroups: number; l2: number } | null;
  weights: Record<string, number>;
}

/** The learning switch, the ranker and the noise blend (`GET /v1/ranker`). */
export interface RankerInfoJson {
  learning: boolean;
  feedback_rows: number;
  ranker: ModelInfoJson;
  noise: ModelInfoJson;
}

/** A fitted noise blend (`POST /v1/noise/fit`). */
export interface NoiseFitJson {
  fitted: boolean;
  saved: boolean;
  labelled: number;
  weights: Record<string, number>;
}
