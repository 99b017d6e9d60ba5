import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { isQuiverError } from '../../errors.js';
import { fakeVector, makeDoc, runStoreContract } from '../store.contract.js';
import { SCHEMA_VERSION } from './schema.js';
import { SqliteStore } from './sqlite-store.js';

const dir = mkdtempSync(join(tmpdir(), 'quiver-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

runStoreContract('sqlite (real file)', {
  make: async () => SqliteStore.open(join(dir, `v${n++}.db`)),
  reopen: async (s) => {
    await s.close();
    return SqliteStore.open(s.location);
  },
});

describe('SqliteStore specifics', () => {
  it('uses WAL and records the schema version', async () => {
    const path = join(dir, 'wal.db');
    const s = SqliteStore.open(path);
    expect((await s.stats()).schemaVersion).toBe(SCHEMA_VERSION);
    await s.close();
    const db = new Database(path);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
  });

  it('refuses a vault from a newer quiver with a SCHEMA error', async () => {
    const path = join(dir, 'future.db');
    const db = new Database(path);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    expect(() => SqliteStore.open(path)).toThrow(expect.objectContaining({ code: 'SCHEMA' }));
  });

  it('refuses a file that is not a vault with a STORE error', () => {
    const path = join(dir, 'junk.db');
    writeFileSync(path, 'this is not sqlite at all, just text '.repeat(100));
    try {
      SqliteStore.open(path);
      expect.unreachable();
    } catch (e) {
      expect(isQuiverError(e, 'STORE')).toBe(true);
    }
  });
});

describe('SqliteStore.chunkVectors', () => {
  it('reads the same vectors from the loaded scan matrix as from the table, and follows writes', async () => {
    const s = SqliteStore.open(join(dir, 'cv.db'));
    const write = async (source: string, text: string) => {
      const doc = makeDoc(source, [{ title: source, text }]);
      const b = await s.beginBatch('t');
      await s.writeDocument({
        batchId: b.id,
        document: doc,
        vectors: doc.chunks.map((c) => fakeVector(c.text)),
        fingerprint: 'fake:1:8:v1',
      });
      b.status = 'done';
      await s.finishBatch(b);
      return doc;
    };
    await write('a.md', 'Alpha kilns fire clay.');
    await write('b.md', 'Beta wheels throw pots.');
    const ids = (await s.scanChunks(0, 100)).map((c) => c.id);
    const fromTable = await s.chunkVectors(ids, 'fake:1:8:v1');
    // A vector search loads the exact-scan matrix; chunkVectors then answers from it.
    await s.vectorSearch({ vector: fakeVector('alpha'), fingerprint: 'fake:1:8:v1', limit: 5 });
    const fromMatrix = await s.chunkVectors([...ids, 999_999], 'fake:1:8:v1');
    expect(fromMatrix).toEqual(fromTable);
    await write('a.md', 'Gamma glazes melt.');
    const live = (await s.scanChunks(0, 100)).map((c) => c.id);
    const after = await s.chunkVectors(live, 'fake:1:8:v1');
    expect([...after.keys()].sort()).toEqual([...live].sort());
    expect(after.get(live[live.length - 1]!)).toEqual(fakeVector('Gamma glazes melt.'));
    await s.close();
  });
});
