// The PostgreSQL server the PostgreSQL benches use, and fresh databases on it.
import pg from 'pg';

/** QUIVER_BENCH_POSTGRES_URL, else QUIVER_TEST_POSTGRES_URL (`npm run postgres:dev` starts one), else null. */
export function benchPostgresUrl(): string | null {
  return process.env.QUIVER_BENCH_POSTGRES_URL ?? process.env.QUIVER_TEST_POSTGRES_URL ?? null;
}

/** A fresh, empty database `name` (only [a-z0-9_]) on the server at `serverUrl`; its URL. */
export async function freshDatabase(serverUrl: string, name: string): Promise<string> {
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`freshDatabase: bad name ${name}`);
  const c = new pg.Client({ connectionString: serverUrl });
  await c.connect();
  try {
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.query(`CREATE DATABASE ${name}`);
  } finally {
    await c.end();
  }
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  return u.toString();
}
