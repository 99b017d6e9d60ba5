import type { SelectionOptions } from '../retrieve/sections.js';
import type { SearchFilter } from '../types.js';
import type { SearchOptions } from '../vault.js';
import type { AskRequest, SearchRequest } from './requests.js';

/** `{a: 1, b: undefined}` → `{a: 1}`: a checked request's absent fields dropped (exact optional types). */
function defined<T extends object>(o: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}

/** The library's options for a checked search, context or ask request (every retrieval knob per call). */
export function searchOptionsOf(r: SearchRequest | AskRequest, signal?: AbortSignal): SearchOptions {
  const { filter, select, ...rest } = r;
  const knobs = defined({
    limit: rest.limit,
    mode: rest.mode,
    legs: rest.legs,
    lexicalWeight: rest.lexicalWeight,
    vectorWeight: rest.vectorWeight,
    feedbackWeight: rest.feedbackWeight,
    rrfK: rest.rrfK,
    minSimilarity: rest.minSimilarity,
  });
  return {
    ...knobs,
    ...(filter === undefined ? {} : { filter: defined(filter) as SearchFilter }),
    ...(select === undefined ? {} : { select: defined(select) as Partial<SelectionOptions> }),
    ...(signal === undefined ? {} : { signal }),
  };
}
