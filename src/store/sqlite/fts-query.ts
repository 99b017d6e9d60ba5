import type { QueryMode } from '../../types.js';

/** Options for {@link compileFtsQuery}. */
export interface FtsQueryOptions {
  /** Make the last term a prefix query (`"term"*`), for search-as-you-type. Defaults to false. */
  prefixLast?: boolean;
}

/**
 * Quotes one term as an FTS5 string: `"` + term with every `"` doubled + `"`. Inside a string FTS5
 * gives no character a special meaning, so `*`, `-`, `^`, `:`, parentheses, `NEAR`, `AND`, `OR`,
 * `NOT` and column names stay plain text; the tokenizer then splits the string into a phrase.
 * A NUL character would end the query text early in FTS5's parser ("unterminated string"), so it
 * becomes a space (a separator either way).
 */
export function quoteFtsTerm(term: string): string {
  return `"${term.replace(/\0/g, ' ').replace(/"/g, '""')}"`;
}

/**
 * Builds an FTS5 `MATCH` expression that can neither fail to parse nor mean anything but the
 * terms: each term is quoted ({@link quoteFtsTerm}); `any` joins them with ` OR `, `all` with
 * ` AND `, and `phrase` makes one quoted phrase of all terms in order. Empty strings are skipped;
 * no terms left → null (the caller returns no hits rather than running a query).
 *
 * A term with no token characters (such as `"*"`) becomes an empty phrase, which matches nothing:
 * under `all` it makes the whole query match nothing, as an absent term should.
 *
 * @example
 * compileFtsQuery(['title:foo', 'a*'], 'any'); // '"title:foo" OR "a*"'
 */
export function compileFtsQuery(
  terms: readonly string[],
  mode: QueryMode,
  options: FtsQueryOptions = {},
): string | null {
  const kept = terms.filter((t) => typeof t === 'string' && t.length > 0);
  if (kept.length === 0) return null;
  const star = options.prefixLast === true ? '*' : '';
  if (mode === 'phrase') return quoteFtsTerm(kept.join(' ')) + star;
  return kept.map(quoteFtsTerm).join(mode === 'all' ? ' AND ' : ' OR ') + star;
}
