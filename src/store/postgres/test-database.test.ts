// The PostgreSQL test harness itself: a database it creates has pgvector, and drop() removes it
// even while a connection to it is still open.
import pg from 'pg';
import { expect, it } from 'vitest';
import { createTestDatabase, describePostgres } from './_test-database.js';

/** Whether a database called `name` exists on the server at `serverUrl`. */
async function databaseExists(serverUrl: string, name: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    return rows.length > 0;
  } finally {
    await client.end();
  }
}

describePostgres('createTestDatabase', (serverUrl) => {
  it('creates a database with pgvector, and drop() removes it', async () => {
    const db = await createTestDatabase();
    try {
      expect(db.name).toMatch(/^quiver_test_[a-z0-9_]+$/);
      expect(new URL(db.url).pathname).toBe(`/${db.name}`);
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      try {
        const { rows } = await client.query<{ d: number }>(
          "SELECT '[1,2,3]'::vector <=> '[1,2,4]'::vector AS d",
        );
        // Cosine distance: 1 − a·b / (|a| |b|) = 1 − 17 / (√14 · √21) ≈ 0.00854; pgvector stores
        // float32 components, so it agrees to about 7 digits, not to double precision.
        expect(rows[0]?.d).toBeCloseTo(1 - 17 / Math.sqrt(14 * 21), 6);
      } finally {
        await client.end();
      }
      expect(await databaseExists(serverUrl, db.name)).toBe(true);
    } finally {
      await db.drop();
    }
    expect(await databaseExists(serverUrl, db.name)).toBe(false);
    // A second drop() is a no-op, so afterAll can call it after a test already did.
    await db.drop();
  });

  it('drop() ends connections still open to the database', async () => {
    const db = await createTestDatabase();
    const client = new pg.Client({ connectionString: db.url });
    // The server terminates this connection; without a listener pg would throw it as uncaught.
    client.on('error', () => {});
    await client.connect();
    await db.drop();
    expect(await databaseExists(serverUrl, db.name)).toBe(false);
    await expect(client.query('SELECT 1')).rejects.toThrow();
    await client.end().catch(() => {});
  });

  it('gives each database its own name', async () => {
    const [a, b] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    try {
      expect(a.name).not.toBe(b.name);
    } finally {
      await Promise.all([a.drop(), b.drop()]);
    }
  });
});
