import pg from 'pg';
import { QuiverError } from '../../errors.js';

/** A pool or one checked-out client: anything that runs a parameterised statement. */
export type Queryable = pg.Pool | pg.PoolClient;

/** A row as `pg` returns it: column name → value. */
export type PgRow = Record<string, unknown>;

export interface PoolOptions {
  /** Most connections the pool opens. Defaults to 10. */
  max?: number;
  /** How long to wait for a connection before failing with STORE. Defaults to 10 s. */
  connectTimeoutMs?: number;
  /** Longest one statement may run before the server cancels it (TIMEOUT). Defaults to 60 s. */
  statementTimeoutMs?: number;
  /** Close a connection idle this long. Defaults to 30 s. */
  idleTimeoutMs?: number;
}

/**
 * Type parsers for this pool only (never the driver's global ones, which the host application may
 * rely on): bigint (int8) columns become numbers, since every bigint quiver stores (row ids,
 * epoch milliseconds, counts) stays below 2^53.
 */
const TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) => {
    if (oid === 20) return (v: string) => Number(v);
    return pg.types.getTypeParser(oid, format as 'text');
  }) as pg.CustomTypesConfig['getTypeParser'],
};

/** A connection pool with timeouts for `url`. */
export function createPool(url: string, options: PoolOptions = {}): pg.Pool {
  const pool = new pg.Pool({
    // No JIT: quiver's statements are short, and PostgreSQL's JIT compiled a 30 ms BM25 query for
    // 800 ms whenever the planner's row estimate crossed jit_above_cost. A startup option, so it
    // holds from the connection's first statement.
    connectionString: withOption(url, 'jit=off'),
    max: options.max ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    idleTimeoutMillis: options.idleTimeoutMs ?? 30_000,
    statement_timeout: options.statementTimeoutMs ?? 60_000,
    application_name: 'quiver',
    types: TYPES,
  });
  // An idle client's error (the server restarted) must not crash the process; the next query fails.
  pool.on('error', () => undefined);
  return pool;
}

/** `url` with a server setting added to its startup options (`options=-c name=value`), keeping any it had. */
export function withOption(url: string, setting: string): string {
  const u = new URL(url);
  const had = u.searchParams.get('options');
  u.searchParams.set('options', `${had === null ? '' : `${had} `}-c ${setting}`);
  return u.toString();
}

/** The URL with any password replaced by `***`, for messages and `Store.location`. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    return u.toString();
  } catch {
    return url.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:***@');
  }
}

/**
 * A driver or server error as a QuiverError: a unique violation is CONFLICT, a cancelled statement
 * TIMEOUT (statement_timeout) or ABORTED (the caller's signal), anything else STORE. A QuiverError
 * passes through unchanged.
 */
export function pgError(e: unknown, what: string): QuiverError {
  if (e instanceof QuiverError) return e;
  const code = (e as { code?: unknown }).code;
  const message = (e as Error).message ?? String(e);
  if (code === '23505') return new QuiverError('CONFLICT', `quiver: ${what}: ${message}`, { cause: e });
  if (code === '57014')
    return new QuiverError(
      /statement timeout/i.test(message) ? 'TIMEOUT' : 'ABORTED',
      `quiver: ${what}: ${message}`,
      { cause: e },
    );
  return new QuiverError('STORE', `quiver: ${what} failed: ${message}`, { cause: e });
}

/**
 * Run `fn` in one transaction on a client of its own (BEGIN … COMMIT, ROLLBACK on any error, the
 * error rethrown as {@link pgError}). `isolation` defaults to READ COMMITTED.
 */
export async function transaction<T>(
  pool: pg.Pool,
  what: string,
  fn: (client: pg.PoolClient) => Promise<T>,
  isolation: 'READ COMMITTED' | 'REPEATABLE READ' | 'SERIALIZABLE' = 'READ COMMITTED',
): Promise<T> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (e) {
    throw pgError(e, what);
  }
  try {
    await client.query(`BEGIN ISOLATION LEVEL ${isolation}`);
    const out = await fn(client);
    await client.query('COMMIT');
    return out;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw pgError(e, what);
  } finally {
    client.release();
  }
}

/** One statement's rows, errors as {@link pgError}. */
export async function rows<R extends PgRow = PgRow>(
  db: Queryable,
  what: string,
  sql: string,
  params: readonly unknown[] = [],
): Promise<R[]> {
  try {
    return (await db.query<R>(sql, params as unknown[])).rows;
  } catch (e) {
    throw pgError(e, what);
  }
}

/** One statement's changed-row count. */
export async function run(
  db: Queryable,
  what: string,
  sql: string,
  params: readonly unknown[] = [],
): Promise<number> {
  try {
    return (await db.query(sql, params as unknown[])).rowCount ?? 0;
  } catch (e) {
    throw pgError(e, what);
  }
}
