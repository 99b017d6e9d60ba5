import { z } from 'zod';

/**
 * The `outputSchema` of each tool: the JSON shapes of `src/wire/` (what `--json` and the HTTP API
 * send), described for a client that checks `structuredContent`. The fields an agent follows
 * (ids, breadcrumbs, sources, pages, scores, citations) are typed; the rest of each shape may
 * grow (loose objects), as the wire format does without breaking its readers.
 */

const pages = z.tuple([z.number(), z.number().nullable()]).nullable();
const legRanks = z.object({ lexical: z.number().nullable(), vector: z.number().nullable() });

/** One search hit (`wire/hits.ts` `hitJson`). */
const Hit = z.looseObject({
  doc_id: z.string(),
  section_id: z.string(),
  source: z.string(),
  title: z.string(),
  doc_title: z.string(),
  breadcrumb: z.string(),
  kind: z.string(),
  pages,
  score: z.number(),
  retrieval_rank: z.number(),
  selection_rank: z.number(),
  step_score: z.number().nullable(),
  leg_ranks: legRanks,
  snippets: z.array(z.string()),
  snippet: z.string(),
});

export const SearchOutput = z.looseObject({
  query: z.string(),
  pool: z.number(),
  results: z.array(Hit),
  timings_ms: z.record(z.string(), z.number()),
});

export const ContextOutput = z.looseObject({
  query: z.string(),
  sections: z.array(Hit.extend({ n: z.number().int(), text: z.string() })),
  timings_ms: z.record(z.string(), z.number()),
});

/** A cited or context section of an answer (`wire/answers.ts`). */
const SectionRef = z.looseObject({
  n: z.number().int(),
  section_id: z.string(),
  doc_id: z.string(),
  breadcrumb: z.string(),
  source: z.string(),
  pages,
});

const Measurement = z.looseObject({
  num: z.number(),
  den: z.number(),
  value: z.number().nullable(),
  undefined_reason: z.string().optional(),
});

/** An answer with its grounding (`groundedAskJson`). */
export const AskOutput = z.looseObject({
  question: z.string(),
  answer: z.string(),
  claims: z.array(z.looseObject({ text: z.string(), citations: z.array(z.number().int()) })),
  cited: z.array(SectionRef),
  invalid_citations: z.array(z.number().int()),
  abstained: z
    .looseObject({ coverage: z.number(), threshold: z.number(), missing: z.array(z.string()) })
    .nullable(),
  conflicts: z.array(z.looseObject({ kind: z.string() })),
  context: z.array(SectionRef.extend({ title: z.string(), score: z.number(), text: z.string() })),
  generator: z.string(),
  usage: z.object({ prompt_tokens: z.number(), completion_tokens: z.number() }),
  timings_ms: z.record(z.string(), z.number()),
  transcript_id: z.string().nullable(),
  grounding: z.looseObject({
    judge: z.object({ id: z.string(), proxy: z.boolean() }),
    context_relevance: Measurement,
    faithfulness: Measurement,
    citation_support: Measurement,
    citation_precision: Measurement,
    completeness: Measurement,
    claims: z.array(
      z.looseObject({
        text: z.string(),
        supported: z.boolean().nullable(),
        validly_cited: z.boolean().nullable(),
        supported_by: z.array(z.number().int()),
        citations: z.array(
          z.object({ n: z.number().int(), section_id: z.string().nullable(), valid: z.boolean() }),
        ),
      }),
    ),
  }),
});

/** A section read with its subtree (`readJson`). */
const ReadSection = z.looseObject({
  id: z.string(),
  doc_id: z.string(),
  source: z.string(),
  title: z.string(),
  breadcrumb: z.string(),
  pages,
  children: z.array(z.string()),
  text: z.string(),
});

/** A document's outline (`outlineJson`). */
const Outline = z.looseObject({
  document: z.looseObject({ id: z.string(), source: z.string(), title: z.string(), kind: z.string() }),
  sections: z.array(
    z.looseObject({
      id: z.string(),
      parent_id: z.string().nullable(),
      level: z.number(),
      title: z.string(),
      breadcrumb: z.string(),
      pages,
      chars: z.number(),
    }),
  ),
});

/** `read`: the section; for a document id also its outline. */
export const ReadOutput = z.object({ section: ReadSection, outline: Outline.optional() });

/** A job (`wire/jobs.ts`): an ingest job's `result` is the add report of `quiver add --json`. */
export const AddOutput = z.object({
  job: z.looseObject({
    id: z.string(),
    kind: z.string(),
    state: z.string(),
    attempts: z.number(),
    progress: z.record(z.string(), z.unknown()).nullable(),
    result: z.record(z.string(), z.unknown()).nullable(),
    lastError: z.string().nullable(),
  }),
});

export const RateOutput = z.looseObject({
  id: z.string(),
  question: z.string(),
  section_id: z.string(),
  doc_id: z.string(),
  signal: z.string(),
});

const Mark = z.looseObject({
  doc_id: z.string(),
  title: z.string(),
  source: z.string(),
  noisy: z.boolean(),
  reason: z.string().nullable(),
});

export const NoiseSuggestOutput = z.object({
  suggestions: z.array(
    z.looseObject({
      doc_id: z.string(),
      title: z.string(),
      source: z.string(),
      score: z.number(),
      features: z.record(z.string(), z.unknown()),
    }),
  ),
});

export const NoiseMarkOutput = Mark;

export const UndoOutput = z.object({ batchId: z.string(), removed: z.number(), restored: z.number() });
