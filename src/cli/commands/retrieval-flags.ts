import type { DocKind, SearchOptions, SelectionOptions } from '../../index.js';
import { num, str, strs, type OptionSpec, type ParsedValues } from '../command.js';

const KINDS: readonly DocKind[] = ['md', 'html', 'pdf', 'txt', 'note', 'jsonl', 'code'];

/** Flags shared by search, sections, context and ask. */
export const RETRIEVAL_OPTIONS: Record<string, OptionSpec> = {
  limit: { type: 'integer', min: 1, short: 'k', help: 'number of results' },
  mode: {
    type: 'enum',
    choices: ['any', 'all', 'phrase'],
    help: 'lexical query mode',
    config: 'search.mode',
  },
  legs: { type: 'enum', choices: ['lexical', 'vector', 'both'], help: 'retrieval legs (default both)' },
  'vector-weight': {
    type: 'number',
    min: 0,
    help: 'RRF weight of the vector leg',
    config: 'search.vectorWeight',
  },
  'feedback-weight': {
    type: 'number',
    min: 0,
    help: 'weight of the lexical pseudo-relevance feedback pass (0 = off)',
    config: 'search.feedbackWeight',
  },
  'lexical-weight': {
    type: 'number',
    min: 0,
    help: 'RRF weight of the lexical leg',
    config: 'search.lexicalWeight',
  },
  select: {
    type: 'enum',
    choices: ['topk', 'mmr', 'dartboard'],
    help: 'selection method',
    config: 'select.method',
  },
  oversample: {
    type: 'number',
    min: 1,
    max: 50,
    help: 'candidate pool = k × oversample',
    config: 'select.oversample',
  },
  sigma: { type: 'number', min: 0, help: 'Dartboard σ', config: 'select.sigma' },
  'diversity-weight': {
    type: 'number',
    min: 0,
    help: 'Dartboard diversity weight',
    config: 'select.diversityWeight',
  },
  'relevance-weight': {
    type: 'number',
    min: 0,
    help: 'Dartboard relevance weight',
    config: 'select.relevanceWeight',
  },
  relevance: {
    type: 'enum',
    choices: ['scores', 'cosine'],
    help: 'Dartboard relevance source',
    config: 'select.relevance',
  },
  lambda: { type: 'number', min: 0, max: 1, help: 'MMR λ', config: 'select.lambda' },
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
