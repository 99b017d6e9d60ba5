import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { LexicalQuery } from '../store.js';
import { makeDoc, writeFakeDocument } from '../store.contract.js';
import { describePostgres } from './_test-database.js';
import { PostgresStore, type PostgresStoreOptions } from './postgres-store.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SCRIPT = join(ROOT, 'scripts/postgres.sh');
const PG_BIN = '/usr/lib/postgresql/15/bin';

/** `scripts/postgres.sh <args>`: its last line of output (the URL for start and replica). */
async function postgresSh(...args: string[]): Promise<string> {
  const { stdout } = await run('bash', [SCRIPT, ...args], { cwd: ROOT, timeout: 60_000 });
  return stdout.trim().split('\n').at(-1) ?? '';
}

/** Wait until `check` holds, polling every 50 ms for up to 20 s. */
async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const search = (word: string): LexicalQuery => ({
  terms: [word],
  mode: 'any',
  limit: 5,
  weights: { body: 1, title: 2, heading: 1 },
});

/**
 * Issue 20, "Several servers and replicas": a real hot standby. The test makes a throwaway primary
 * (scripts/postgres.sh start) and a standby of it (scripts/postgres.sh replica: pg_basebackup -R),
 * pauses the standby's replay to make its lag observable, and checks read-your-writes, reads
 * going to the standby, the lag reported, and the fallback when the standby goes away. The
 * server named by QUIVER_TEST_POSTGRES_URL is not used: only this test's own clusters.
 */
describePostgres('PostgresStore with a read replica (a hot standby)', () => {
  if (!existsSync(join(PG_BIN, 'pg_basebackup'))) {
    it.skip(`needs PostgreSQL 15's binaries in ${PG_BIN} to make its own clusters`);
    return;
  }
  let dir: string;
  let primaryUrl: string;
  let replicaUrl: string;
  let standby: pg.Client | undefined;
  const stores: PostgresStore[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'quiver-replica-'));
    await chmod(dir, 0o755); // the server's user (postgres, under root) must reach the clusters
    primaryUrl = await postgresSh('start', join(dir, 'primary'));
    replicaUrl = await postgresSh('replica', join(dir, 'primary'), join(dir, 'standby'));
    standby = new pg.Client({ connectionString: replicaUrl });
    await standby.connect();
  });

  afterAll(async () => {
    for (const s of stores) await s.close().catch(() => undefined);
    await standby?.end().catch(() => undefined);
    for (const cluster of ['standby', 'primary'])
      if (existsSync(join(dir, cluster))) await postgresSh('stop', join(dir, cluster));
    await rm(dir, { recursive: true, force: true });
  });

  const open = async (url: string, options: PostgresStoreOptions = {}): Promise<PostgresStore> => {
    const s = await PostgresStore.open(url, options);
    stores.push(s);
    return s;
  };
  const sources = async (store: PostgresStore, word: string): Promise<string[]> => {
    const hits = await store.lexicalSearch(search(word));
    return (await store.getDocuments(hits.map((h) => h.docId))).map((d) => d.source).sort();
  };

  it('reads its own writes from the primary while the standby lags, and from the standby otherwise', async () => {
    const notices: string[] = [];
    const store = await open(primaryUrl, { replicaUrl, onNotice: (m: string) => notices.push(m) });
    const other = await open(primaryUrl); // another server on the same primary, without a replica
    // The standby has the schema once it has replayed the migration.
    await until('the standby to replay the schema', async () => (await store.replicaLag())?.bytes === 0);
    const onStandby = await open(replicaUrl, { readonly: true });

    await standby!.query('SELECT pg_wal_replay_pause()');
    await writeFakeDocument(other, makeDoc('notes/glaze.md', [{ title: 'Glaze', text: 'A celadon glaze.' }]));
    // Another process's write: this store has written nothing, so it reads the (paused) standby.
    expect(await sources(other, 'celadon')).toEqual(['notes/glaze.md']);
    expect(await sources(store, 'celadon')).toEqual([]);

    await writeFakeDocument(
      store,
      makeDoc('notes/kiln.md', [{ title: 'Kiln', text: 'The kiln fires stoneware at 1240 degrees.' }]),
    );
    // Read-your-writes: the standby has not replayed it, so the read went to the primary (which
    // also has the other server's document by now).
    expect(await sources(onStandby, 'stoneware')).toEqual([]);
    expect(await sources(store, 'stoneware')).toEqual(['notes/kiln.md']);
    expect(await sources(store, 'celadon')).toEqual(['notes/glaze.md']);
    const behind = await store.replicaLag();
    expect(behind).toMatchObject({ bytes: expect.any(Number), error: null });
    expect(behind!.bytes).toBeGreaterThan(0);
    expect(behind!.seconds).toBeGreaterThanOrEqual(0);
    expect(behind!.location).toBe(new URL(replicaUrl).toString());
    expect((await store.stats()).replica?.bytes).toBeGreaterThan(0);

    await standby!.query('SELECT pg_wal_replay_resume()');
    await until(
      'the standby to replay the writes',
      async () => (await sources(onStandby, 'stoneware')).length > 0,
    );
    expect(await sources(onStandby, 'celadon')).toEqual(['notes/glaze.md']);
    await until('the lag to reach 0', async () => (await store.replicaLag())?.bytes === 0);
    expect(await store.replicaLag()).toMatchObject({ bytes: 0, seconds: 0, error: null });
    expect((await store.stats()).replica).toMatchObject({ bytes: 0, error: null });

    // Caught up: this store reads the standby again (a write on the primary it cannot see yet).
    await standby!.query('SELECT pg_wal_replay_pause()');
    await writeFakeDocument(other, makeDoc('notes/clay.md', [{ title: 'Clay', text: 'Porcelain clay.' }]));
    expect(await sources(store, 'porcelain')).toEqual([]);
    expect(await sources(other, 'porcelain')).toEqual(['notes/clay.md']);
    await standby!.query('SELECT pg_wal_replay_resume()');
    await until('the standby to replay the clay', async () => (await sources(store, 'porcelain')).length > 0);
    expect(notices).toEqual([]);
  });

  it('falls back to the primary when the standby goes away, and says so once', async () => {
    const notices: string[] = [];
    const store = await open(primaryUrl, { replicaUrl, onNotice: (m: string) => notices.push(m) });
    expect(await sources(store, 'stoneware')).toEqual(['notes/kiln.md']); // from the standby
    await standby!.end();
    standby = undefined;
    await postgresSh('stop', join(dir, 'standby'));
    expect(await sources(store, 'stoneware')).toEqual(['notes/kiln.md']);
    expect(await sources(store, 'celadon')).toEqual(['notes/glaze.md']);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/read replica .* is unavailable.*reading from the primary/);
    const lag = await store.replicaLag();
    expect(lag).toMatchObject({ bytes: null, seconds: null });
    expect(lag!.error).toMatch(/./);
    expect((await store.stats()).replica?.error).toMatch(/./);
  });
});
