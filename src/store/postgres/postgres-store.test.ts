import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runJobQueueContract } from '../job-queue.contract.js';
import type { Store } from '../store.js';
import {
  FAKE_FINGERPRINT,
  fakeVector,
  makeDoc,
  runStoreContract,
  writeFakeDocument,
} from '../store.contract.js';
import { runStoreTransferContract } from '../store-transfer.contract.js';
import { runStoreWriterContract } from '../store-writer.contract.js';
import { createTestDatabase, describePostgres, type TestDatabase } from './_test-database.js';
import { isQuiverError } from '../../errors.js';
import { PostgresStore } from './postgres-store.js';
import { SCHEMA_VERSION } from './schema.js';

/**
 * Every Store contract against a real PostgreSQL server with pgvector: one database for this file,
 * a fresh schema (on its own `search_path`) for each store the contracts make.
 */
describePostgres('PostgresStore', () => {
  let db: TestDatabase;
  let n = 0;
  const urls = new WeakMap<Store, string>();
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });

  async function make(options: { ann?: { threshold: number } } = {}): Promise<Store> {
    const schema = `s${n++}`;
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.end();
    const url = new URL(db.url);
    url.searchParams.set('options', `-c search_path=${schema},public`);
    const store = await PostgresStore.open(url.toString(), options);
    urls.set(store, url.toString());
    return store;
  }
  async function reopen(s: Store): Promise<Store> {
    const url = urls.get(s)!;
    await s.close();
    const again = await PostgresStore.open(url);
    urls.set(again, url);
    return again;
  }

  runStoreContract('postgres', { make: () => make(), reopen });
  /**
   * A store whose vector leg is always HNSW: threshold 0, and the index upkeep a bulk load ends
   * with (`indexes.prepare`, which `add`, `import` and `reindex` call) run after every write, so
   * the contract's searches go through the index once there are vectors.
   */
  async function makeIndexed(): Promise<Store> {
    const s = await make({ ann: { threshold: 0 } });
    const prepare = async (): Promise<void> => {
      await s.indexes!.prepare({ vector: { fingerprint: FAKE_FINGERPRINT } });
    };
    const after =
      <A extends unknown[], R>(f: (...a: A) => Promise<R>) =>
      async (...a: A): Promise<R> => {
        const r = await f.apply(s, a);
        await prepare();
        return r;
      };
    return Object.assign(s, {
      writeDocuments: after(s.writeDocuments),
      putVectors: after(s.putVectors),
      importDocumentVersions: after(s.importDocumentVersions),
    });
  }

  runStoreContract('postgres (HNSW vector index)', { make: makeIndexed, reopen });
  runStoreWriterContract('postgres', { make: () => make() });
  // Vectors are halfvec here: a float32 vector from a vault written before SQLite kept half precision
  // (schema 4) is rounded on import, so that one case is a listed gap.
  runStoreTransferContract('postgres', { make: () => make(), skip: ['vectors beyond half precision'] });
  runJobQueueContract('postgres', { make: () => make(), reopen });

  describe('PostgresStore specifics', () => {
    it('builds the HNSW index once a bulk load ends above the threshold, not during it', async () => {
      const s = await make({ ann: { threshold: 2 } });
      await writeFakeDocument(
        s,
        makeDoc('a.md', [
          { title: 'A', text: 'aaaa aaaa' },
          { title: 'B', text: 'bbbb bbbb' },
          { title: 'C', text: 'cccc cccc' },
        ]),
      );
      expect((await s.indexes!.inspect(FAKE_FINGERPRINT)).vector).toMatchObject({
        mode: 'hnsw',
        index: 'missing',
      });
      const status = await s.indexes!.prepare({ vector: { fingerprint: FAKE_FINGERPRINT } });
      expect(status.vector).toMatchObject({ mode: 'hnsw', chunks: 3, source: 'built' });
      expect((await s.indexes!.inspect(FAKE_FINGERPRINT)).vector?.index).toBe('current');
      expect(
        (await s.indexes!.prepare({ vector: { fingerprint: FAKE_FINGERPRINT } })).vector?.source,
      ).toBeNull();
      const hits = await s.vectorSearch({
        vector: fakeVector('aaaa'),
        fingerprint: FAKE_FINGERPRINT,
        limit: 3,
      });
      expect(hits[0]?.sectionId.endsWith('#0')).toBe(true);
      await s.close();
    });

    it('a read-only open migrates an older vault once, as SQLite does, and refuses a newer one', async () => {
      const s = await make();
      const url = urls.get(s)!;
      await s.close();
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        // Back to the first schema: the tables of migration 2 gone, the version 1.
        await admin.query('DROP TABLE rate_buckets');
        await admin.query('UPDATE quiver_schema SET version = 1');
        const ro = await PostgresStore.open(url, { readonly: true });
        expect((await ro.stats()).schemaVersion).toBe(SCHEMA_VERSION);
        expect((await admin.query('SELECT version FROM quiver_schema')).rows[0]).toEqual({
          version: SCHEMA_VERSION,
        });
        await expect(ro.setMeta('x', 'y')).rejects.toThrow(/read-only/);
        await ro.close();
        await admin.query('UPDATE quiver_schema SET version = $1', [SCHEMA_VERSION + 1]);
        await expect(PostgresStore.open(url, { readonly: true })).rejects.toSatisfy((e: unknown) =>
          isQuiverError(e, 'SCHEMA'),
        );
      } finally {
        await admin.end();
      }
    });

    it('redacts the password in its location', async () => {
      const s = await make();
      expect(s.location).not.toMatch(/:[^/@:]+@/);
      expect(s.kind).toBe('postgres');
      await s.close();
    });
  });
});
