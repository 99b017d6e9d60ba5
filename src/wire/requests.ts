import { z } from 'zod';

/**
 * The request bodies of the HTTP API (and MCP's tool inputs), as zod schemas: the server checks
 * every body against them (a mismatch is BAD_INPUT, nothing runs) and the OpenAPI description is
 * generated from the same objects. Unknown keys are refused so a misspelt option is an error,
 * not a silent default.
 */

export const MAX_LIMIT = 100;
export const MAX_QUERY_CHARS = 10_000;

const query = z.string().min(1).max(MAX_QUERY_CHARS);
const limit = z.number().int().min(1).max(MAX_LIMIT);

export const SearchFilterSchema = z
  .object({
    kinds: z
      .array(z.enum(['md', 'txt', 'html', 'pdf', 'jsonl']))
      .max(10)
      .optional(),
    docIds: z.array(z.string().min(1).max(200)).max(1000).optional(),
    sourcePrefix: z.string().max(1000).optional(),
    addedAfter: z.iso.datetime().optional(),
    addedBefore: z.iso.datetime().optional(),
    includeNoisy: z.boolean().optional(),
  })
  .strict();

export const SelectSchema = z
  .object({
    method: z.enum(['topk', 'mmr', 'dartboard']).optional(),
    oversample: z.number().min(1).max(50).optional(),
    sigma: z.number().positive().max(10).optional(),
    lambda: z.number().min(0).max(1).optional(),
    diversityWeight: z.number().min(0).max(10).optional(),
    relevanceWeight: z.number().min(0).max(10).optional(),
    relevance: z.enum(['scores', 'cosine']).optional(),
    temperature: z.number().positive().max(100).optional(),
    foldNearCopies: z.boolean().optional(),
  })
  .strict();

/** The retrieval knobs every search-like call takes, per call. */
const retrieval = {
  limit: limit.optional(),
  mode: z.enum(['any', 'all', 'phrase']).optional(),
  legs: z.enum(['lexical', 'vector', 'both']).optional(),
  lexicalWeight: z.number().min(0).max(100).optional(),
  vectorWeight: z.number().min(0).max(100).optional(),
  feedbackWeight: z.number().min(0).max(10).optional(),
  rrfK: z.number().min(0).max(10_000).optional(),
  minSimilarity: z.number().min(-1).max(1).optional(),
  filter: SearchFilterSchema.optional(),
  select: SelectSchema.optional(),
};

export const SearchRequest = z.object({ query, ...retrieval }).strict();
export type SearchRequest = z.infer<typeof SearchRequest>;

export const ContextRequest = SearchRequest;

export const AskRequest = z
  .object({
    question: query,
    ...retrieval,
    generator: z.enum(['extractive', 'openai']).optional(),
    /** Stream Server-Sent Events instead of one JSON reply (also chosen by `Accept: text/event-stream`). */
    stream: z.boolean().optional(),
  })
  .strict();
export type AskRequest = z.infer<typeof AskRequest>;

const textDoc = z
  .object({
    text: z.string().min(1).max(10_000_000),
    source: z.string().min(1).max(1000).optional(),
    title: z.string().max(1000).optional(),
  })
  .strict();

/** `POST /v1/documents`: literal texts (write), or server-side paths under the roots (admin). */
export const AddRequest = z
  .object({
    text: z.string().min(1).max(10_000_000).optional(),
    source: z.string().min(1).max(1000).optional(),
    title: z.string().max(1000).optional(),
    texts: z.array(textDoc).min(1).max(1000).optional(),
    paths: z.array(z.string().min(1).max(4096)).min(1).max(100).optional(),
    include: z.array(z.string().min(1).max(200)).max(50).optional(),
    exclude: z.array(z.string().min(1).max(200)).max(50).optional(),
    sync: z.boolean().optional(),
    /** Run as a background job and answer 202 at once (always so for paths). */
    async: z.boolean().optional(),
  })
  .strict();
export type AddRequest = z.infer<typeof AddRequest>;

export const RateRequest = z
  .object({
    question: query,
    sectionId: z.string().min(1).max(300),
    signal: z.enum(['up', 'down', 'good', 'bad', 'read', 'cited', 'shown']),
    askId: z.string().min(1).max(100).optional(),
  })
  .strict();

export const MarkRequest = z
  .object({
    document: z.string().min(1).max(1000),
    /** true: junk; false: a keeper (leaves the suggestions). */
    noisy: z.boolean(),
    reason: z.string().max(1000).optional(),
  })
  .strict();

/** A switch: learning, the fitted noise blend, the ranker. */
export const SwitchRequest = z.object({ on: z.boolean() }).strict();
export const LearnRequest = SwitchRequest;

/** Fit the ranker or the noise blend; `save` stores it (switch it on apart). */
export const FitRequest = z.object({ save: z.boolean().optional() }).strict();

/** Mark the current noise suggestions as junk. */
export const AcceptNoiseRequest = z
  .object({
    k: z.number().int().min(1).max(500).optional(),
    minScore: z.number().min(0).max(100).optional(),
    reason: z.string().max(1000).optional(),
  })
  .strict();

export const UndoRequest = z.object({ batch: z.string().min(1).max(100).optional() }).strict();

export const JobRequest = z.object({ kind: z.enum(['reindex', 'refit', 'index', 'noise-fit']) }).strict();

export const TokenRequest = z
  .object({ role: z.enum(['read', 'write', 'admin']), label: z.string().max(200).optional() })
  .strict();
