import type { DocKind, SearchOptions, SelectionOptions } from '../../index.js';
import { num, str, strs, type OptionSpec, type ParsedValues } from '../command.js';
import { configOption } from '../config-option.js';

const KINDS: readonly DocKind[] = ['md', 'html', 'pdf', 'txt', 'note', 'jsonl', 'code'];

/** Flags shared by search, sections, context and ask. */
export const RETRIEVAL_OPTIONS: Record<string, OptionSpec> = {
  limit: { type: 'integer', min: 1, short: 'k', help: 'number of results' },
  mode: configOption('search.mode', 'lexical query mode'),
  legs: { type: 'enum', choices: ['lexical', 'vector', 'both'], help: 'retrieval legs (default both)' },
  'vector-weight': configOption('search.vectorWeight', 'RRF weight of the vector leg'),
  'feedback-weight': configOption(
    'search.feedbackWeight',
    'weight of the lexical pseudo-relevance feedback pass (0 = off)',
  ),
  'lexical-weight': configOption('search.lexicalWeight', 'RRF weight of the lexical leg'),
  'min-similarity': configOption(
    'search.minSimilarity',
    'lowest cosine a vector-leg hit needs (the built-in embedder also needs a word in common)',
  ),
  select: configOption('select.method', 'selection of the evidence (default dartboard: covers the question)'),
  oversample: configOption('select.oversample', 'candidate pool = k × oversample'),
  sigma: configOption('select.sigma', 'Dartboard σ'),
  'diversity-weight': configOption('select.diversityWeight', 'Dartboard diversity weight'),
  'relevance-weight': configOption('select.relevanceWeight', 'Dartboard relevance weight'),
  relevance: configOption('select.relevance', 'Dartboard relevance source'),
  lambda: configOption('select.lambda', 'MMR λ'),
  kind: {
    type: 'list',
    choices: KINDS,
    multiple: true,
    help: 'only documents of these kinds (repeatable, or md,pdf)',
  },
  'source-prefix': { type: 'string', value: 'PREFIX', help: 'only documents whose source starts with this' },
  doc: { type: 'string', value: 'ID', multiple: true, help: 'only this document id (repeatable)' },
  'include-noisy': { type: 'boolean', help: 'include documents marked as noise' },
};

/** Flags of the ranked-list commands (search, sections): `--select` sets `search.select` (default topk). */
export const RANKED_LIST_OPTIONS: Record<string, OptionSpec> = {
  ...RETRIEVAL_OPTIONS,
  select: configOption('search.select', 'selection of the ranked list (default topk: the relevance order)'),
};

/** Per-call search options from the flags (config-backed flags are applied when the vault opens). */
export function searchOptionsFrom(values: ParsedValues): SearchOptions {
  const o: SearchOptions = {};
  const limit = num(values, 'limit');
  if (limit !== undefined) o.limit = limit;
  const legs = str(values, 'legs');
  if (legs !== undefined) o.legs = legs as NonNullable<SearchOptions['legs']>;
  const kinds = strs(values, 'kind') as DocKind[] | undefined;
  const prefix = str(values, 'source-prefix');
  const docs = strs(values, 'doc');
  if (kinds !== undefined || prefix !== undefined || docs !== undefined || values['include-noisy'] === true) {
    o.filter = {
      ...(kinds === undefined ? {} : { kinds }),
      ...(prefix === undefined ? {} : { sourcePrefix: prefix }),
      ...(docs === undefined ? {} : { docIds: docs }),
      ...(values['include-noisy'] === true ? { includeNoisy: true } : {}),
    };
  }
  return o;
}

export type { SelectionOptions };
