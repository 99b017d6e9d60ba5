import type { SearchFilter } from '../../types.js';

/**
 * A SQL condition over the live `documents` alias `d`, and its parameters, numbered from `$first`
 * (the PostgreSQL twin of sqlite/doc-filter.ts, with the same meaning): empty `sql` when nothing
 * restricts; an empty `kinds` list does not restrict; an empty `docIds` list matches nothing;
 * documents marked noisy are left out unless `includeNoisy` (only when `hasNoisyMarks`, so the
 * common case adds no subquery). Every value travels as a parameter.
 */
export function docFilterSql(
  filter: SearchFilter | undefined,
  hasNoisyMarks: boolean,
  first: number,
): { sql: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  const p = (v: unknown): string => {
    params.push(v);
    return `$${first + params.length - 1}`;
  };
  if (filter?.kinds !== undefined && filter.kinds.length > 0)
    parts.push(`d.kind = ANY(${p(filter.kinds)}::text[])`);
  if (filter?.docIds !== undefined) parts.push(`d.id = ANY(${p(filter.docIds)}::text[])`);
  if (filter?.sourcePrefix !== undefined)
    parts.push(`left(d.source, ${p(filter.sourcePrefix.length)}::int) = ${p(filter.sourcePrefix)}::text`);
  if (filter?.addedAfter !== undefined) parts.push(`d.added_at >= ${p(filter.addedAfter)}::text`);
  if (filter?.addedBefore !== undefined) parts.push(`d.added_at <= ${p(filter.addedBefore)}::text`);
  if (hasNoisyMarks && filter?.includeNoisy !== true)
    parts.push('NOT EXISTS (SELECT 1 FROM marks m WHERE m.doc_id = d.id AND m.noisy)');
  return { sql: parts.join(' AND '), params };
}
