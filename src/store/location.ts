import { QuiverError } from '../errors.js';

/**
 * Where a store's data lives, as `openStore` reads it: a SQLite file (a path, `:memory:`, or a
 * `sqlite:` URL) or a PostgreSQL database (`postgres://` or `postgresql://`).
 */
export type StoreLocation = { backend: 'sqlite'; path: string } | { backend: 'postgres'; url: string };

/** URL schemes `openStore` knows, for messages. */
export const STORE_SCHEMES = ['sqlite:', 'postgres://', 'postgresql://'] as const;

/**
 * Read a store location. A plain path (no scheme, or a Windows drive letter) and `sqlite:PATH`
 * or `sqlite://PATH` (`sqlite:///abs/vault.db`, `sqlite:notes.db`, `sqlite::memory:`) are SQLite;
 * `postgres://…` and `postgresql://…` are PostgreSQL. Any other `scheme://` is CONFIG, with the
 * location's password redacted; so is an empty location or `sqlite:` with no path.
 *
 * @example parseStoreLocation('sqlite:///srv/vault.db') // { backend: 'sqlite', path: '/srv/vault.db' }
 */
export function parseStoreLocation(location: string): StoreLocation {
  if (location.trim() === '') throw new QuiverError('CONFIG', 'quiver: the store location is empty');
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(location)?.[1]?.toLowerCase();
  if (scheme === 'sqlite') {
    const rest = location.slice('sqlite:'.length);
    const path = rest.startsWith('//') ? rest.slice(2) : rest;
    if (path === '')
      throw new QuiverError('CONFIG', `quiver: store "${location}" names no file (write sqlite:PATH)`);
    return { backend: 'sqlite', path };
  }
  if (scheme === 'postgres' || scheme === 'postgresql') {
    if (!location.slice(scheme.length + 1).startsWith('//'))
      throw new QuiverError(
        'CONFIG',
        `quiver: store "${redactLocation(location)}" is not a URL (write postgres://user@host/database)`,
      );
    return { backend: 'postgres', url: location };
  }
  // A path: no scheme, a drive letter (C:\vault.db), or a colon in a file name (notes:2024.db).
  if (scheme === undefined || scheme.length === 1 || !/^[a-z][a-z0-9+.-]*:\/\//i.test(location))
    return { backend: 'sqlite', path: location };
  throw new QuiverError(
    'CONFIG',
    `quiver: store "${redactLocation(location)}" has an unknown scheme "${scheme}:"; use a file path, ${STORE_SCHEMES.map((s) => `${s}…`).join(', ')}`,
    { details: { scheme } },
  );
}

/**
 * A location as it may be shown (messages, `Store.location`, `quiver doctor`): the password of a
 * URL (`user:password@`, up to the last `@` so a password with an unescaped `@` or `/` does not
 * leak, or a `password=` query parameter) replaced by `***`; anything else as is.
 *
 * @example redactLocation('postgres://quiver:s3cret@db/vault') // 'postgres://quiver:***@db/vault'
 */
export function redactLocation(location: string): string {
  return location
    .replace(/^([a-z][a-z0-9+.-]*:\/\/[^/?#@:]*):.*@/i, '$1:***@')
    .replace(/([?&]password=)[^&#]*/gi, '$1***');
}
