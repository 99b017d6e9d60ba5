import type { DocKind, SearchOptions, SelectionOptions } from '../../index.js';
import { QuiverError } from '../../index.js';
import { str, strs, type OptionSpec, type ParsedValues } from '../command.js';

/** Flags shared by search, sections, context and ask. */
export const RETRIEVAL_OPTIONS: Record<string, OptionSpec> = {
  limit: { type: 'string', short: 'k', help: 'number of results' },
  mode: { type: 'string', help: 'lexical query mode: any | all | phrase', config: 'search.mode' },
  legs: { type: 'string', help: 'retrieval legs: lexical | vector | both (default both)' },
  'vector-weight': { type: 'string', help: 'RRF weight of the vector leg', config: 'search.vectorWeight' },
  'feedback-weight': {
    type: 'string',
    help: 'weight of the lexical pseudo-relevance feedback pass (0 = off)',
    config: 'search.feedbackWeight',
  },
  'lexical-weight': { type: 'string', help: 'RRF weight of the lexical leg', config: 'search.lexicalWeight' },
  select: { type: 'string', help: 'selection: topk | mmr | dartboard', config: 'select.method' },
  oversample: { type: 'string', help: 'candidate pool = k × oversample', config: 'select.oversample' },
  sigma: { type: 'string', help: 'Dartboard σ', config: 'select.sigma' },
  'diversity-weight': {
    type: 'string',
    help: 'Dartboard diversity weight',
    config: 'select.diversityWeight',
  },
  'relevance-weight': {
    type: 'string',
    help: 'Dartboard relevance weight',
    config: 'select.relevanceWeight',
  },
  relevance: {
    type: 'string',
    help: 'Dartboard relevance source: scores | cosine',
    config: 'select.relevance',
  },
  lambda: { type: 'string', help: 'MMR λ', config: 'select.lambda' },
  kind: {
    type: 'string',
    multiple: true,
    help: 'only documents of this kind (md, html, pdf, txt, note, jsonl)',
  },
  'source-prefix': { type: 'string', help: 'only documents whose source starts with this' },
  doc: { type: 'string', multiple: true, help: 'only this document id' },
  'include-noisy': { type: 'boolean', help: 'include documents marked as noise' },
};

const KINDS: readonly DocKind[] = ['md', 'html', 'pdf', 'txt', 'note', 'jsonl', 'code'];

/** Per-call search options from the flags (config-backed flags are applied when the vault opens). */
export function searchOptionsFrom(values: ParsedValues): SearchOptions {
  const o: SearchOptions = {};
  const limit = str(values, 'limit');
  if (limit !== undefined) {
    const n = Number(limit);
    if (!Number.isInteger(n) || n < 1)
      throw new QuiverError(
        'BAD_INPUT',
        `quiver: --limit must be a positive integer, got ${JSON.stringify(limit)}`,
      );
    o.limit = n;
  }
  const legs = str(values, 'legs');
  if (legs !== undefined) {
    if (legs !== 'lexical' && legs !== 'vector' && legs !== 'both')
      throw new QuiverError(
        'BAD_INPUT',
        `quiver: --legs must be lexical, vector or both, got ${JSON.stringify(legs)}`,
      );
    o.legs = legs;
  }
  const kinds = strs(values, 'kind');
  const prefix = str(values, 'source-prefix');
  const docs = strs(values, 'doc');
  if (kinds !== undefined || prefix !== undefined || docs !== undefined || values['include-noisy'] === true) {
    for (const k of kinds ?? [])
      if (!KINDS.includes(k as DocKind))
        throw new QuiverError(
          'BAD_INPUT',
          `quiver: --kind must be one of ${KINDS.join(', ')}, got ${JSON.stringify(k)}`,
        );
    o.filter = {
      ...(kinds === undefined ? {} : { kinds: kinds as DocKind[] }),
      ...(prefix === undefined ? {} : { sourcePrefix: prefix }),
      ...(docs === undefined ? {} : { docIds: docs }),
      ...(values['include-noisy'] === true ? { includeNoisy: true } : {}),
    };
  }
  return o;
}

export type { SelectionOptions };
