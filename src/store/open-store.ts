import { QuiverError } from '../errors.js';
import { parseStoreLocation, redactLocation } from './location.js';
import { SqliteStore, type SqliteStoreOptions } from './sqlite/sqlite-store.js';
import type { Store } from './store.js';

/** The SQLite backend's own knobs (`sqlite/sqlite-store.ts`). */
export type SqliteOpenOptions = Omit<SqliteStoreOptions, 'readonly' | 'onNotice'>;

/**
 * The PostgreSQL backend's own knobs (`quiver/postgres`, `PostgresStoreOptions`): its connection
 * pool, its HNSW index and a read replica. Declared here so the main entry's types never name the
 * driver's.
 */
export interface PostgresOpenOptions {
  /** Most connections the pool opens. */
  max?: number;
  /** How long to wait for a connection before failing with STORE, in ms. */
  connectTimeoutMs?: number;
  /** Longest one statement may run before the server cancels it (TIMEOUT), in ms. */
  statementTimeoutMs?: number;
  /** Close a connection idle this long, in ms. */
  idleTimeoutMs?: number;
  /** Live chunks of a fingerprint above which pgvector's HNSW answers, and its graph parameters. */
  ann?: { threshold?: number; m?: number; efConstruction?: number; efSearch?: number };
  /** A hot standby (`postgres://…`) for the reads of search and ask; empty: none. */
  replicaUrl?: string;
}

/** Options of {@link openStore}: the backend-neutral knobs, then one section per backend. */
export interface OpenStoreOptions {
  /**
   * Open for reading only: nothing is created, migrated or written (a missing SQLite file is
   * NOT_FOUND). Defaults to false.
   */
  readonly?: boolean;
  /** Told what a person should know that is not an error (a search taking a slower path). */
  onNotice?: (message: string) => void;
  /** Used when the location is a SQLite file. */
  sqlite?: SqliteOpenOptions;
  /** Used when the location is a PostgreSQL URL. */
  postgres?: PostgresOpenOptions;
}

/**
 * Open (creating or migrating unless read-only) the store at `location`: a file path, `:memory:`
 * or a `sqlite:` URL opens the SQLite store; `postgres://` or `postgresql://` opens the PostgreSQL
 * store, loaded only then (from `quiver/postgres`), so SQLite users never load its driver. A
 * missing driver is UNSUPPORTED and says to `npm install pg`; an unknown scheme is CONFIG. Every
 * message shows the location with its password redacted.
 *
 * @example const store = await openStore('postgres://quiver@db.internal/notes', { readonly: true });
 */
export async function openStore(location: string, options: OpenStoreOptions = {}): Promise<Store> {
  const target = parseStoreLocation(location);
  const neutral = {
    ...(options.readonly === undefined ? {} : { readonly: options.readonly }),
    ...(options.onNotice === undefined ? {} : { onNotice: options.onNotice }),
  };
  if (target.backend === 'sqlite') return SqliteStore.open(target.path, { ...options.sqlite, ...neutral });
  const { PostgresStore } = await loadPostgres(target.url);
  return PostgresStore.open(target.url, { ...options.postgres, ...neutral });
}

/** The PostgreSQL adapter, or UNSUPPORTED naming what to install when its driver is missing. */
async function loadPostgres(url: string): Promise<typeof import('./postgres/index.js')> {
  try {
    return await import('./postgres/index.js');
  } catch (e) {
    if (isMissingPackage(e, 'pg'))
      throw new QuiverError(
        'UNSUPPORTED',
        `quiver: store ${redactLocation(url)} needs the PostgreSQL driver, which is not installed; run \`npm install pg\` where quiver is installed`,
        { cause: e, details: { package: 'pg' } },
      );
    throw e;
  }
}

/** Whether `e` is Node's (or the test runner's) failure to find the package `name`. */
export function isMissingPackage(e: unknown, name: string): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  const message = e instanceof Error ? e.message : String(e);
  return (
    (code === 'ERR_MODULE_NOT_FOUND' ||
      code === 'MODULE_NOT_FOUND' ||
      /Cannot find (package|module)/.test(message)) &&
    new RegExp(`['"]${name}['"]`).test(message)
  );
}
