import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { QuiverError } from '../../errors.js';
import { migrate, SCHEMA_VERSION } from './schema.js';

/**
 * Open the vault file at `location` (an absolute path or `:memory:`): WAL and NORMAL sync when
 * writable, foreign keys on, a 5 s busy timeout and a 64 MiB page cache, then migrate it to
 * {@link SCHEMA_VERSION}. Read-only opens require the file to exist and never migrate, except to
 * refuse a file newer than this code. Throws STORE when the file cannot be opened or is not a vault
 * (and passes on `migrate`'s own QuiverErrors).
 */
export function openVaultDatabase(location: string, readonly: boolean): Database.Database {
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
    if (!readonly) {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
    }
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    db.pragma('cache_size = -65536');
    if (!readonly) migrate(db);
    else if ((db.pragma('user_version', { simple: true }) as number) > SCHEMA_VERSION) migrate(db);
  } catch (e) {
    db.close();
    if (e instanceof QuiverError) throw e;
    throw new QuiverError('STORE', `quiver: ${location} is not a quiver vault: ${(e as Error).message}`, {
      cause: e,
    });
  }
  return db;
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
