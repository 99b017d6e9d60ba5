import type Database from 'better-sqlite3';
import type { SearchFilter } from '../../types.js';

/**
 * A SQL `WHERE` fragment over the live `documents` alias `d`, and its parameters, joined by `AND`.
 * Empty `sql` when nothing restricts (no filter, and no noisy marks or `includeNoisy`). An empty
 * `kinds` list does not restrict; an empty `docIds` list matches nothing (`d.id IN (NULL)`).
 * `hasNoisyMarks` says whether any document is marked noisy: only then is the marks subquery added.
 */
export function docFilterSql(
  filter: SearchFilter | undefined,
  hasNoisyMarks: boolean,
): { sql: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  if (filter?.kinds !== undefined && filter.kinds.length > 0) {
    parts.push(`d.kind IN (${filter.kinds.map(() => '?').join(',')})`);
    params.push(...filter.kinds);
  }
  if (filter?.docIds !== undefined) {
    parts.push(`d.id IN (${filter.docIds.map(() => '?').join(',') || 'NULL'})`);
    params.push(...filter.docIds);
  }
  if (filter?.sourcePrefix !== undefined) {
    parts.push(`substr(d.source, 1, ?) = ?`);
    params.push(filter.sourcePrefix.length, filter.sourcePrefix);
  }
  if (filter?.addedAfter !== undefined) {
    parts.push('d.added_at >= ?');
    params.push(filter.addedAfter);
  }
  if (filter?.addedBefore !== undefined) {
    parts.push('d.added_at <= ?');
    params.push(filter.addedBefore);
  }
  if (hasNoisyMarks && filter?.includeNoisy !== true) {
    parts.push('d.id NOT IN (SELECT doc_id FROM marks WHERE noisy = 1)');
  }
  return { sql: parts.join(' AND '), params };
}

/**
 * The ids of the live documents a filter allows, or undefined when it restricts nothing (see
 * {@link docFilterSql}). For filtering inside a vector search, which scans chunks, not SQL rows.
 */
export function allowedDocIds(
  db: Database.Database,
  filter: SearchFilter | undefined,
  hasNoisyMarks: boolean,
): Set<string> | undefined {
  const f = docFilterSql(filter, hasNoisyMarks);
  if (!f.sql) return undefined;
  const rows = db
    .prepare(`SELECT d.id FROM documents d WHERE d.superseded_by IS NULL AND ${f.sql}`)
    .raw()
    .all(...f.params) as [string][];
  return new Set(rows.map((r) => r[0]));
}
