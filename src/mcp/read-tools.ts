import { z } from 'zod';
import { isQuiverError, QuiverError } from '../errors.js';
import { groundedAskJson } from '../wire/answers.js';
import { contextJson, searchJson } from '../wire/hits.js';
import { outlineJson, readJson } from '../wire/ingest.js';
import { noiseJson } from '../wire/quality.js';
import { AskRequest, SearchRequest } from '../wire/requests.js';
import { searchOptionsOf } from '../wire/search-options.js';
import { documentLink, sectionLink } from './links.js';
import { AskOutput, ContextOutput, NoiseSuggestOutput, ReadOutput, SearchOutput } from './output-schemas.js';
import { tool, type ToolSpec } from './tool.js';

/** The tools a `read` session has: search, context, ask, read, and the noise suggestions. */

const q = SearchRequest.shape;
/** The retrieval arguments, described for a model (the same schema the HTTP API checks). */
const retrieval = {
  limit: q.limit.describe('How many sections to return (1 to 100; the vault has a default).'),
  filter: q.filter.describe(
    'Only some documents: kinds (md, txt, html, pdf, jsonl), docIds, sourcePrefix, addedAfter/addedBefore (ISO-8601), includeNoisy.',
  ),
  select: q.select.describe(
    'How sections are chosen from the candidates: method topk (plain ranking), mmr or dartboard (covers the question instead of repeating it).',
  ),
};

const SearchInput = SearchRequest.extend({
  query: q.query.describe('What to look for: the words a passage about it would use, or a question.'),
  ...retrieval,
});

const AskInput = AskRequest.omit({ stream: true }).extend({
  question: AskRequest.shape.question.describe('The question to answer from the vault.'),
  ...retrieval,
});

const ReadInput = z
  .object({
    id: z
      .string()
      .min(1)
      .max(1000)
      .describe(
        'A section id from a search hit or citation (`<doc>#<n>`), or a document id for its outline.',
      ),
  })
  .strict();

const NoiseSuggestInput = z
  .object({
    k: z.number().int().min(1).max(500).optional().describe('At most this many documents (default 20).'),
    minScore: z
      .number()
      .optional()
      .describe('Only documents scoring at least this (default 1.0; lower shows more).'),
  })
  .strict();

type Row = Record<string, unknown>;
const rows = (v: unknown): Row[] => (Array.isArray(v) ? (v as Row[]) : []);
const pagesOf = (p: unknown): string =>
  Array.isArray(p) ? `, p. ${p[0]}${p[1] !== p[0] ? `–${p[1]}` : ''}` : '';

export const READ_TOOLS: readonly ToolSpec[] = [
  tool({
    name: 'search',
    title: 'Search the vault',
    description:
      "Find the sections of the vault's documents that best match a query (lexical and vector retrieval, fused). Each hit has its section id, breadcrumb (Doc › Heading › Subheading), source, pages, score and snippets, and comes with a link to read the section in full. Use it to find where something is written; use `context` to get passages to quote and `ask` for an answer with citations.",
    role: 'read',
    input: SearchInput,
    output: SearchOutput,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    run: async (args, { deps, signal }) => {
      const json = searchJson(
        args.query,
        await deps.reader.search(args.query, searchOptionsOf(args, signal)),
      );
      const hits = rows(json.results);
      const text =
        hits.length === 0
          ? `No section matches "${args.query}".`
          : hits
              .map(
                (h, i) =>
                  `${i + 1}. ${String(h.breadcrumb)} (${String(h.source)}${pagesOf(h.pages)}; score ${Number(h.score).toFixed(4)})\n   id: ${String(h.section_id)}\n   ${String(h.snippet)}`,
              )
              .join('\n');
      return { structured: json, text, links: hits.map(sectionLink) };
    },
  }),
  tool({
    name: 'context',
    title: 'Numbered passages for a prompt',
    description:
      'The sections chosen to cover a query (diverse, repeats skipped), numbered [1], [2], … with their full text, for you to answer from. When you use a passage, cite its number as [n]; each number maps to a section id and a link in the result.',
    role: 'read',
    input: SearchInput,
    output: ContextOutput,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    run: async (args, { deps, signal }) => {
      const json = contextJson(
        args.query,
        await deps.reader.context(args.query, searchOptionsOf(args, signal)),
      );
      const sections = rows(json.sections);
      const text =
        sections.length === 0
          ? `No section matches "${args.query}".`
          : sections
              .map(
                (s) =>
                  `[${String(s.n)}] ${String(s.breadcrumb)} (${String(s.source)}${pagesOf(s.pages)}; id ${String(s.section_id)})\n${String(s.text).trim()}`,
              )
              .join('\n\n');
      return { structured: json, text, links: sections.map(sectionLink) };
    },
  }),
  tool({
    name: 'ask',
    title: 'Answer with citations',
    description:
      'Answer a question from the vault. The answer cites its sources as [n]; the result lists each claim with its citations resolved to section ids (and links to read them), citations that point nowhere (invalid_citations), whether it abstained for lack of evidence, disagreements between sources, and grounding measurements (faithfulness, citation support, … judged by a lexical proxy). Prefer quoting what it cites over adding to it.',
    role: 'read',
    input: AskInput,
    output: AskOutput,
    annotations: { readOnlyHint: true, idempotentHint: false, openWorldHint: false },
    run: async (args, { deps, signal, progress }) => {
      const { question, generator, ...rest } = args;
      if (generator !== undefined) {
        try {
          deps.reader.generator(generator);
        } catch (e) {
          if (isQuiverError(e, 'CONFIG'))
            throw new QuiverError('BAD_INPUT', `quiver: "generator": ${e.message.replace(/^quiver: /, '')}`);
          throw e;
        }
      }
      const steps = { context: 1, claims: 2, measured: 3 } as const;
      const r = await deps.reader.ask(question, {
        ...searchOptionsOf({ question, ...rest }, signal),
        ...(generator === undefined ? {} : { generator }),
        ...(deps.account === undefined ? {} : { account: deps.account }),
        onEvent: (e) => {
          if (e.type in steps)
            progress(steps[e.type as keyof typeof steps], 4, e.type).catch(() => undefined);
        },
      });
      const json = await groundedAskJson(r, signal);
      await progress(4, 4, 'done');
      const cited = rows(json.cited);
      const invalid =
        r.invalidCitations.length === 0
          ? ''
          : `\n\nInvalid citations (no such section): ${r.invalidCitations.map((n) => `[${n}]`).join(' ')}`;
      const sources = cited.map(
        (c) => `[${String(c.n)}] ${String(c.breadcrumb)} (${String(c.source)}; id ${String(c.section_id)})`,
      );
      const text = `${r.answer}${sources.length === 0 ? '' : `\n\nSources:\n${sources.join('\n')}`}${invalid}`;
      return { structured: json, text, links: cited.map(sectionLink) };
    },
  }),
  tool({
    name: 'read',
    title: 'Read a section or a document',
    description:
      'Read a section in full (its own text and its subsections), by the id a search hit or citation gave. Given a document id instead, read its first section and its outline (every section id, level and title), to go on with `read` on any of them.',
    role: 'read',
    input: ReadInput,
    output: ReadOutput,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    run: async ({ id }, { deps }) => {
      const isSection = id.includes('#');
      const r = await deps.reader.read(isSection ? id : `${id}#0`);
      const section = readJson(r);
      const head = `${r.section.breadcrumb}\n(${r.document.source}; ${r.section.id})\n\n${r.text.trim()}`;
      if (isSection)
        return {
          structured: { section },
          text: head,
          links: [
            sectionLink({
              section_id: r.section.id,
              breadcrumb: r.section.breadcrumb,
              source: r.document.source,
            }),
          ],
        };
      const o = await deps.reader.outline(r.document.id);
      const outline = outlineJson(o);
      const lines = o.sections.map((s) => `${'  '.repeat(Math.max(0, s.level - 1))}${s.id}  ${s.title}`);
      return {
        structured: { section, outline },
        text: `${head}\n\nOutline:\n${lines.join('\n')}`,
        links: [documentLink({ doc_id: r.document.id, title: r.document.title, source: r.document.source })],
      };
    },
  }),
  tool({
    name: 'noise_suggest',
    title: 'Documents that look like junk',
    description:
      'Documents the unsupervised noise score suspects of being junk (boilerplate, near-empty, garbled, duplicated), noisiest first, with the features behind each score. Only a suggestion: read a suspect before marking it with `noise_mark`.',
    role: 'read',
    input: NoiseSuggestInput,
    output: NoiseSuggestOutput,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    run: async (args, { deps }) => {
      const list = await deps.reader.quality.suggestNoisy({
        k: args.k ?? 20,
        ...(args.minScore === undefined ? {} : { minScore: args.minScore }),
      });
      const suggestions = list.map(noiseJson);
      const text =
        suggestions.length === 0
          ? 'No document scores as junk at this threshold (try a lower minScore).'
          : list
              .map((s, i) => `${i + 1}. ${s.title} (${s.source}; id ${s.docId}; score ${s.score.toFixed(2)})`)
              .join('\n');
      return { structured: { suggestions }, text, links: suggestions.map(documentLink) };
    },
  }),
];
