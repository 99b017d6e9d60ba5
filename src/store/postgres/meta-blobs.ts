import { type Queryable, rows, run } from './connection.js';
import { now } from './rows.js';

/**
 * The `meta` (key → text) and `blobs` (name → bytes) tables: the vault's small state (embedder
 * fingerprint, tokens, a reindex's progress) and its larger binary state (fitted embedders,
 * uploads). One statement each; {@link applyMetaAndBlobs} writes several in one round trip per
 * table on a client that is already in a transaction (`switchEmbedder`).
 */

const UPSERT_META =
  'INSERT INTO meta(key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value';
const UPSERT_BLOB =
  'INSERT INTO blobs(name, data, updated_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at';

/** The bytes as a Buffer over the same memory (what `pg` sends as bytea), without a copy. */
const bytea = (data: Uint8Array): Buffer => Buffer.from(data.buffer, data.byteOffset, data.byteLength);

/** A meta value, or null when the key is not set. */
export async function getMeta(db: Queryable, key: string): Promise<string | null> {
  const r = await rows<{ value: string }>(db, 'read meta', 'SELECT value FROM meta WHERE key = $1', [key]);
  return r[0]?.value ?? null;
}

/** Set (or replace) a meta value. */
export async function setMeta(db: Queryable, key: string, value: string): Promise<void> {
  await run(db, 'write meta', UPSERT_META, [key, value]);
}

/** A blob's bytes (a Buffer, which is a Uint8Array), or null when there is none. */
export async function getBlob(db: Queryable, name: string): Promise<Uint8Array | null> {
  const r = await rows<{ data: Buffer }>(db, 'read blob', 'SELECT data FROM blobs WHERE name = $1', [name]);
  return r[0]?.data ?? null;
}

/** Write (or replace) a blob, stamping `updated_at`. */
export async function putBlob(db: Queryable, name: string, data: Uint8Array): Promise<void> {
  await run(db, 'write blob', UPSERT_BLOB, [name, bytea(data), now()]);
}

/** Remove a blob; false when there was none. */
export async function deleteBlob(db: Queryable, name: string): Promise<boolean> {
  return (await run(db, 'delete blob', 'DELETE FROM blobs WHERE name = $1', [name])) > 0;
}

/**
 * Set every meta key of `meta` and write every blob of `blobs` (a null blob is deleted), on `db`:
 * pass the client of a transaction (`transaction` in connection.ts) to make it part of a larger
 * atomic change, as `switchEmbedder` does. At most three statements, whatever the sizes.
 *
 * @example
 * await transaction(pool, 'switch embedder', async (client) => {
 *   await applyMetaAndBlobs(client, { extra: 'yes' }, { fitted: bytes, pending: null });
 *   await setMeta(client, 'embedder', to);
 * });
 */
export async function applyMetaAndBlobs(
  db: Queryable,
  meta: Readonly<Record<string, string>>,
  blobs: Readonly<Record<string, Uint8Array | null>>,
): Promise<void> {
  const keys = Object.keys(meta);
  if (keys.length > 0)
    await run(
      db,
      'write meta',
      `INSERT INTO meta(key, value) SELECT * FROM unnest($1::text[], $2::text[])
       ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
      [keys, keys.map((k) => meta[k])],
    );
  const put = Object.entries(blobs).filter((e): e is [string, Uint8Array] => e[1] !== null);
  const gone = Object.entries(blobs)
    .filter(([, data]) => data === null)
    .map(([name]) => name);
  if (put.length > 0)
    await run(
      db,
      'write blobs',
      `INSERT INTO blobs(name, data, updated_at) SELECT n, d, $3 FROM unnest($1::text[], $2::bytea[]) AS u(n, d)
       ON CONFLICT (name) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at`,
      [put.map(([name]) => name), put.map(([, data]) => bytea(data)), now()],
    );
  if (gone.length > 0)
    await run(db, 'delete blobs', 'DELETE FROM blobs WHERE name = ANY($1::text[])', [gone]);
}

/**
 * Every meta entry, for `quiver export`. `bookkeeping` leaves out keys that are the backend's own
 * (none by default).
 */
export async function listMeta(
  db: Queryable,
  bookkeeping: (key: string) => boolean = () => false,
): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const all = await rows<{ key: string; value: string }>(
    db,
    'list meta',
    'SELECT key, value FROM meta ORDER BY key COLLATE "C"',
  );
  for (const { key, value } of all) if (!bookkeeping(key)) out[key] = value;
  return out;
}

/** Every blob's name, sorted by code point (as SQLite's BINARY collation sorts them). */
export async function listBlobNames(db: Queryable): Promise<string[]> {
  const all = await rows<{ name: string }>(
    db,
    'list blobs',
    'SELECT name FROM blobs ORDER BY name COLLATE "C"',
  );
  return all.map((r) => r.name);
}
