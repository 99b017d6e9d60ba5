// Test support (not part of the package): a PostgreSQL server for the tests that need one, named
// by $QUIVER_TEST_POSTGRES_URL (scripts/postgres.sh starts a throwaway one; CI sets it), and a
// fresh database with pgvector per test or suite, so tests never see each other's rows.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, it } from 'vitest';

/**
 * The server the PostgreSQL tests use: `QUIVER_TEST_POSTGRES_URL`, e.g.
 * `postgres://postgres@127.0.0.1:54329/postgres` (a role allowed to create databases). `null`
 * when it is unset or blank.
 */
export function postgresTestUrl(): string | null {
  const url = process.env.QUIVER_TEST_POSTGRES_URL?.trim();
  return url === undefined || url === '' ? null : url;
}

/**
 * `describe(name, …)` for tests that need PostgreSQL. With a server URL, `fn` gets it and registers
 * the tests as usual. Without one, `fn` is not called and a single test stands in for the suite:
 * skipped with the reason, unless `QUIVER_REQUIRE_POSTGRES=1` (CI), where it fails instead
 * (the same rule as `QUIVER_REQUIRE_DATA` for data sets in src/_data-set.ts).
 *
 * @example
 * describePostgres('PostgresStore', () => {
 *   let db: TestDatabase;
 *   beforeAll(async () => { db = await createTestDatabase(); });
 *   afterAll(() => db.drop());
 *   it('…', async () => { … db.url … });
 * });
 */
export function describePostgres(name: string, fn: (serverUrl: string) => void): void {
  const url = postgresTestUrl();
  if (url !== null) {
    describe(name, () => fn(url));
    return;
  }
  // The reason is in the test's name too: scripts/test.mjs lists skipped tests by name only.
  const reason = 'needs PostgreSQL: set QUIVER_TEST_POSTGRES_URL (npm run postgres:dev starts one)';
  describe(name, () => {
    it(reason, (ctx) => {
      if (process.env.QUIVER_REQUIRE_POSTGRES === '1')
        throw new Error(`${reason}; QUIVER_REQUIRE_POSTGRES=1 requires it`);
      ctx.skip(reason);
    });
  });
}

/** A database made for one test or suite by {@link createTestDatabase}. */
export interface TestDatabase {
  /** Its connection URL: the server URL with the database name swapped in (query kept). */
  url: string;
  /** `quiver_test_` and 16 hex digits; only `[a-z0-9_]`, so it never needs quoting. */
  name: string;
  /**
   * Drops it, ending any connection still open to it (a pool a failed test forgot to close).
   * Safe to call twice.
   */
  drop(): Promise<void>;
}

/**
 * Creates an empty database with the `vector` extension on the server at `serverUrl` (defaults to
 * {@link postgresTestUrl}; throws when there is none) and returns its URL. Call `drop()` when done,
 * typically in `afterAll`; a database left behind by a crashed run only costs space on a
 * throwaway server. `drop()` uses `DROP DATABASE … WITH (FORCE)`, so the server must be
 * PostgreSQL 13 or later.
 */
export async function createTestDatabase(serverUrl?: string): Promise<TestDatabase> {
  const server = serverUrl ?? postgresTestUrl();
  if (server === null) throw new Error('createTestDatabase: QUIVER_TEST_POSTGRES_URL is unset');
  // 8 random bytes: parallel test files (one process each) never pick the same name.
  const name = `quiver_test_${randomBytes(8).toString('hex')}`;
  const url = new URL(server);
  url.pathname = `/${name}`;
  const db: TestDatabase = {
    url: url.toString(),
    name,
    drop: () => withClient(server, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)),
  };
  await withClient(server, (c) => c.query(`CREATE DATABASE ${name}`));
  try {
    // The server's template1 may have it already (scripts/postgres.sh puts it there); then this
    // does nothing.
    await withClient(db.url, (c) => c.query('CREATE EXTENSION IF NOT EXISTS vector'));
  } catch (error) {
    await db.drop();
    throw new Error(
      `createTestDatabase: CREATE EXTENSION vector failed on ${server} (is pgvector installed? scripts/postgres.sh setup)`,
      { cause: error },
    );
  }
  return db;
}

/** Runs `fn` on a fresh connection to `url` and always closes it. */
async function withClient(url: string, fn: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await fn(client);
  } finally {
    await client.end();
  }
}
