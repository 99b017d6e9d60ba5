import type { NoiseMark } from '../store.js';
import type { PgRow } from './connection.js';

/**
 * Row → record converters of the PostgreSQL store: those whose columns are the SQLite store's too
 * come from src/store/records.ts; here, what PostgreSQL gives differently (a boolean column).
 */
export { now, toBatch, toFeedback, toHolder, toJob } from '../records.js';

/** An int8 (or int4) column's value as a number. */
export function num(v: unknown): number {
  return typeof v === 'number' ? v : Number(v);
}

/** A `marks` row → its record (only set marks are records: `noisy` is not null). */
export function toMark(r: PgRow): NoiseMark {
  return {
    docId: r.doc_id as string,
    noisy: r.noisy === true,
    reason: (r.reason as string | null) ?? null,
    at: r.at as string,
  };
}
