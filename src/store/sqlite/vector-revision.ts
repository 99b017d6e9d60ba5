import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';

/**
 * The vault's vector revision: what an ANN index file (`hnsw-index.ts`) records as its `stamp`, so
 * a store can tell whether the index reflects the current vectors and live chunks, and whether it
 * can be brought up to date incrementally (set difference of chunk ids) or must be rebuilt.
 *
 * A revision is `"<n>.<token>"`: `n` counts the write transactions that changed vectors or chunk
 * liveness, `token` is random per bump, so two different states never share a revision, even when
 * a vault file is replaced by an older copy (a backup) that then diverges. The last
 * {@link DEFAULT_VECTOR_REV_LOG} revisions are kept in `meta`: an index is reconcilable only when
 * its stamp is an ancestor of the current revision in this file's history and no change since then
 * rewrote vectors of its fingerprint in place (a "break", recorded per fingerprint).
 *
 * Reconciling by chunk-id set difference is sound because a chunk id's vector never changes under
 * one fingerprint except by a break, and chunk ids are never reused: {@link CHUNK_HWM_KEY} records
 * the highest chunk id a rollback deleted, and new chunks are numbered above it.
 */

/** meta key of the current revision. Absent in vaults never written since revisions exist. */
export const VECTOR_REV_KEY = 'vectors.rev';
/** meta key of the revision history (JSON array, oldest first, current excluded). */
export const VECTOR_REV_LOG_KEY = 'vectors.revlog';
/** meta key prefix: `vectors.break.<fingerprint>` = `n` of the last in-place vector rewrite. */
export const VECTOR_BREAK_PREFIX = 'vectors.break.';
/** meta key of the highest chunk id ever deleted (chunk ids are allocated above it). */
export const CHUNK_HWM_KEY = 'chunks.hwm';
/**
 * Revisions remembered. An index more than this many vector-changing transactions behind is rebuilt
 * rather than reconciled; ingest writes one transaction per group of documents, so 1024 covers
 * hundreds of thousands of new chunks. About 20 bytes each in one meta row.
 */
export const DEFAULT_VECTOR_REV_LOG = 1024;
/** The revision of a vault that has none recorded yet. */
export const INITIAL_VECTOR_REV = '0.initial';

export interface Revision {
  n: number;
  token: string;
}

/** `"<n>.<token>"` → parts, or null when malformed (n a non-negative integer, token non-empty). */
export function parseRevision(s: string): Revision | null {
  const m = /^(\d+)\.([0-9a-z]+)$/.exec(s);
  if (m === null) return null;
  const n = Number(m[1]);
  return Number.isSafeInteger(n) ? { n, token: m[2]! } : null;
}

/** The revision after `current` (null → {@link INITIAL_VECTOR_REV}) with a fresh `token`. */
export function nextRevision(current: string | null, token: string): string {
  const n = parseRevision(current ?? INITIAL_VECTOR_REV)?.n ?? 0;
  return `${n + 1}.${token}`;
}

/** `log` with `previous` appended, keeping the newest `cap` entries (cap ≤ 0 → []). */
export function appendRevisionLog(log: readonly string[], previous: string, cap: number): string[] {
  if (cap <= 0) return [];
  const out = [...log, previous];
  return out.length > cap ? out.slice(out.length - cap) : out;
}

/**
 * Can an index stamped `from` be brought to `current` by set difference? True when `from` equals
 * `current`, or is in `log` (an ancestor in this file's history) and `from`'s n ≥ `breakN` (it was
 * stamped at or after the fingerprint's last in-place rewrite). Malformed stamps → false.
 */
export function isReconcilable(
  from: string,
  current: string,
  log: readonly string[],
  breakN: number | null,
): boolean {
  const f = parseRevision(from);
  if (f === null) return false;
  if (breakN !== null && f.n < breakN) return false;
  if (from === current) return true;
  return log.includes(from);
}

type Db = Database.Database;

function getMeta(db: Db, key: string): string | null {
  const r = db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
  return r?.value ?? null;
}

function setMeta(db: Db, key: string, value: string): void {
  db.prepare(
    'INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
  ).run(key, value);
}

/** The current revision ({@link INITIAL_VECTOR_REV} when none is recorded). */
export function readVectorRevision(db: Db): string {
  return getMeta(db, VECTOR_REV_KEY) ?? INITIAL_VECTOR_REV;
}

/** The remembered history (oldest first); [] when absent or unreadable. */
export function readVectorRevisionLog(db: Db): string[] {
  const raw = getMeta(db, VECTOR_REV_LOG_KEY);
  if (raw === null) return [];
  try {
    const v = JSON.parse(raw) as unknown;
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

/** `n` of the fingerprint's last in-place rewrite, or null. */
export function readVectorBreak(db: Db, fingerprint: string): number | null {
  const v = getMeta(db, VECTOR_BREAK_PREFIX + fingerprint);
  return v === null ? null : Number(v);
}

/**
 * Record a vector-changing write. Call inside the writing transaction. `breakFingerprint` marks an
 * in-place rewrite of that fingerprint's vectors (indexes stamped earlier must be rebuilt).
 * Returns the new revision.
 */
export function bumpVectorRevision(db: Db, breakFingerprint?: string): string {
  const current = getMeta(db, VECTOR_REV_KEY);
  const next = nextRevision(current, randomBytes(6).toString('hex'));
  const log = appendRevisionLog(
    readVectorRevisionLog(db),
    current ?? INITIAL_VECTOR_REV,
    DEFAULT_VECTOR_REV_LOG,
  );
  setMeta(db, VECTOR_REV_LOG_KEY, JSON.stringify(log));
  setMeta(db, VECTOR_REV_KEY, next);
  if (breakFingerprint !== undefined)
    setMeta(db, VECTOR_BREAK_PREFIX + breakFingerprint, String(parseRevision(next)!.n));
  return next;
}

/** Raise the chunk-id high-water mark to `id` (inside the deleting transaction). */
export function raiseChunkHighWater(db: Db, id: number): void {
  const cur = Number(getMeta(db, CHUNK_HWM_KEY) ?? 0);
  if (id > cur) setMeta(db, CHUNK_HWM_KEY, String(id));
}

/**
 * The id the next chunk must get so that ids are never reused, or null when SQLite's own choice
 * (max(id) + 1) is already above the high-water mark.
 */
export function nextChunkIdFloor(db: Db): number | null {
  const hwm = Number(getMeta(db, CHUNK_HWM_KEY) ?? 0);
  if (hwm <= 0) return null;
  const max = (db.prepare('SELECT MAX(id) AS m FROM chunks').get() as { m: number | null }).m ?? 0;
  return max < hwm ? hwm + 1 : null;
}

/**
 * meta key counting rollbacks: the only writes that delete section rows (whose rids SQLite may then
 * hand out again) and revive superseded ones. A saved lexical index (`lexical-index-leg.ts`) can
 * be brought up to date from rows added since it was built only while this count is unchanged.
 */
export const REVERTS_KEY = 'sections.reverts';

/** Rollbacks recorded so far (0 when none). */
export function readReverts(db: Db): number {
  return Number(getMeta(db, REVERTS_KEY) ?? 0);
}

/** Count a rollback (inside its transaction). */
export function countRevert(db: Db): void {
  setMeta(db, REVERTS_KEY, String(readReverts(db) + 1));
}
