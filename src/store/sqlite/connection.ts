import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { QuiverError } from '../../errors.js';
import { migrate, SCHEMA_VERSION } from './schema.js';

/** How much of a vault file SQLite reads through a memory map (SQLite caps it near 2 GiB). */
const MMAP_BYTES = 2 ** 31 - 2 ** 16;

/** How long a statement waits for another connection's write lock before SQLITE_BUSY. */
export const DEFAULT_BUSY_TIMEOUT_MS = 5000;

/** Tables every quiver vault has from its first migration; a file with other tables and none of these is someone else's. */
const VAULT_TABLES = ['meta', 'batches', 'documents'];

/**
 * Refuse a file that is not a quiver vault: a SQLite database with tables of its own but not
 * quiver's (another program's database), or a file SQLite cannot read at all. An empty database
 * (a new file) is fine. Reads only.
 */
function checkIsVault(db: Database.Database, location: string): void {
  let names: string[];
  try {
    names = (
      db.prepare(`SELECT name FROM sqlite_schema WHERE type = 'table'`).all() as { name: string }[]
    ).map((r) => r.name);
  } catch (e) {
    if (isBusy(e)) throw lockedByOther(location, e);
    throw new QuiverError('SCHEMA', `quiver: ${location} is not a quiver vault (${(e as Error).message})`, {
      cause: e,
      details: { path: location },
    });
  }
  if (names.length > 0 && !VAULT_TABLES.every((t) => names.includes(t))) {
    throw new QuiverError(
      'SCHEMA',
      `quiver: ${location} is not a quiver vault (a SQLite database with other tables: ${names.slice(0, 5).join(', ')}${names.length > 5 ? ', …' : ''}); it was left unchanged`,
      { details: { path: location } },
    );
  }
}

/**
 * Open the vault file at `location` (an absolute path or `:memory:`): WAL and NORMAL sync when
 * writable, foreign keys on, a busy timeout (default {@link DEFAULT_BUSY_TIMEOUT_MS}) and a 64 MiB
 * page cache, then migrate it to {@link SCHEMA_VERSION}.
 *
 * Read-only opens create nothing: a missing file is NOT_FOUND (with the path); they migrate only
 * an older quiver vault (once, through a writable connection), and refuse a file newer than this
 * code. Any open refuses a file
 * that is not a quiver vault with SCHEMA before writing to it (another program's SQLite database
 * stays byte for byte as it was). Throws STORE when the file cannot be opened.
 */
export function openVaultDatabase(
  location: string,
  readonly: boolean,
  busyTimeoutMs = DEFAULT_BUSY_TIMEOUT_MS,
): Database.Database {
  if (readonly && location !== ':memory:' && !existsSync(location)) {
    throw new QuiverError(
      'NOT_FOUND',
      `quiver: no vault at ${location} (create one with \`quiver init\` or \`quiver add\`)`,
      { details: { path: location } },
    );
  }
  let db: Database.Database;
  try {
    if (location !== ':memory:' && !readonly) mkdirSync(dirname(location), { recursive: true });
    db = new Database(location, { readonly, fileMustExist: readonly });
  } catch (e) {
    throw new QuiverError('STORE', `quiver: cannot open vault ${location}: ${(e as Error).message}`, {
      cause: e,
    });
  }
  try {
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
    checkIsVault(db, location);
    if (!readonly) {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
    }
    db.pragma('foreign_keys = ON');
    db.pragma('cache_size = -65536');
    // Read the file through a memory map (up to 2 GiB of it): pages come straight from the OS
    // cache instead of a read() copy each. Loading SciFact's 18,760 vectors for the exact scan took
    // 150 ms with reads and 38 ms mapped; writes still go through the WAL as before.
    db.pragma(`mmap_size = ${MMAP_BYTES}`);
    if (!readonly) migrate(db);
    else {
      const version = db.pragma('user_version', { simple: true }) as number;
      if (version > SCHEMA_VERSION) migrate(db);
      if (version > 0 && version < SCHEMA_VERSION) {
        // An older quiver vault: bring it to this schema once (a real vault, so writing is safe),
        // then go on read-only.
        db.close();
        openVaultDatabase(location, false, busyTimeoutMs).close();
        return openVaultDatabase(location, true, busyTimeoutMs);
      }
    }
  } catch (e) {
    db.close();
    if (e instanceof QuiverError) throw e;
    // A file another program holds locked is a quiver vault as far as anyone knows: say it is busy.
    if (isBusy(e)) throw lockedByOther(location, e);
    if (isDiskFull(e)) throw noSpace(e);
    throw new QuiverError('SCHEMA', `quiver: ${location} is not a quiver vault: ${(e as Error).message}`, {
      cause: e,
    });
  }
  return db;
}

/**
 * Run a write; SQLITE_BUSY (another connection held the write lock past the busy timeout) becomes
 * CONFLICT and SQLITE_FULL (the disk or quota is full) NO_SPACE, so a caller can stop cleanly
 * instead of failing documents one by one. SQLite rolls the statement's transaction back itself.
 */
export function busyAsConflict<T>(write: () => T): T {
  try {
    return write();
  } catch (e) {
    if (isBusy(e))
      throw new QuiverError(
        'CONFLICT',
        'quiver: the vault file is locked by another connection (not a quiver writer) for longer than the busy timeout (store.busyTimeoutMs); try again when it lets go',
        { cause: e },
      );
    if (isDiskFull(e)) throw noSpace(e);
    throw e;
  }
}

/** The vault file is held by another connection past the busy timeout: CONFLICT, try again. */
function lockedByOther(location: string, e: unknown): QuiverError {
  return new QuiverError(
    'CONFLICT',
    `quiver: ${location} is locked by another program for longer than the busy timeout (store.busyTimeoutMs); try again when it lets go`,
    { cause: e },
  );
}

/** SQLITE_BUSY (and its variants) or SQLITE_LOCKED: another connection holds the lock. */
function isBusy(e: unknown): boolean {
  const code = (e as { code?: unknown }).code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

/** SQLITE_FULL from SQLite, ENOSPC or EDQUOT from the file system. */
export function isDiskFull(e: unknown): boolean {
  const code = (e as { code?: unknown }).code;
  return code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT';
}

/** The one message for a full disk, whatever wrote. */
export function noSpace(e: unknown, what = 'the vault'): QuiverError {
  return new QuiverError(
    'NO_SPACE',
    `quiver: the disk is full writing ${what}: the write was rolled back and nothing was half-written; free some space and run the command again`,
    { cause: e },
  );
}

/**
 * One connection and its prepared statements, cached by SQL text. Statements whose SQL varies with
 * their parameter count (IN lists, optional filters) are prepared afresh with `db.prepare` instead,
 * so the cache stays bounded.
 */
export class StatementCache {
  private readonly statements = new Map<string, Database.Statement>();

  constructor(readonly db: Database.Database) {}

  /** A prepared statement, cached by its SQL (statements used with `.raw()` keep that mode). */
  get(sql: string): Database.Statement {
    let st = this.statements.get(sql);
    if (st === undefined) this.statements.set(sql, (st = this.db.prepare(sql)));
    return st;
  }
}
