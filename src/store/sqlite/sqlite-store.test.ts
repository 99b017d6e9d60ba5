import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { isQuiverError } from '../../errors.js';
import {
  FAKE_FINGERPRINT,
  fakeVector,
  makeDoc,
  runStoreContract,
  writeFakeDocument,
} from '../store.contract.js';
import { runStoreWriterContract } from '../store-writer.contract.js';
import { MIGRATIONS, SCHEMA_VERSION } from './schema.js';
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

runStoreWriterContract('sqlite (real file)', {
  make: async () => SqliteStore.open(join(dir, `w${n++}.db`)),
});

// The same contract with the lexical leg's own index always on (lexical-index-leg.ts), so every
// lexical expectation (modes, filters, updates, rollback, reopening) also holds for it.
runStoreContract('sqlite (real file, own lexical index)', {
  make: async () => SqliteStore.open(join(dir, `v${n++}.db`), { lexical: { threshold: 0 } }),
  reopen: async (s) => {
    await s.close();
    return SqliteStore.open(s.location, { lexical: { threshold: 0 } });
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

  it('read-only opens bring an older vault to this schema once, then read it (batches, writer slot)', async () => {
    const path = join(dir, 'old.db');
    const db = new Database(path);
    for (const sql of MIGRATIONS.slice(0, 2)) db.exec(sql);
    db.pragma('user_version = 2');
    db.close();
    const ro = SqliteStore.open(path, { readonly: true });
    expect(await ro.currentWriter()).toBeNull();
    expect((await ro.stats()).schemaVersion).toBe(SCHEMA_VERSION);
    await ro.close();
  });

  it('refuses a file that is not a vault with a SCHEMA error (exit 5), leaving it unchanged', () => {
    const path = join(dir, 'junk.db');
    writeFileSync(path, 'this is not sqlite at all, just text '.repeat(100));
    try {
      SqliteStore.open(path);
      expect.unreachable();
    } catch (e) {
      expect(isQuiverError(e, 'SCHEMA')).toBe(true);
    }
  });
});

describe('SqliteStore.chunkVectors', () => {
  it('reads the same vectors from the loaded scan matrix as from the table, and follows writes', async () => {
    const s = SqliteStore.open(join(dir, 'cv.db'));
    const write = (source: string, text: string) =>
      writeFakeDocument(s, makeDoc(source, [{ title: source, text }]), 't');
    await write('a.md', 'Alpha kilns fire clay.');
    await write('b.md', 'Beta wheels throw pots.');
    const ids = (await s.scanChunks(0, 100)).map((c) => c.id);
    const fromTable = await s.chunkVectors(ids, FAKE_FINGERPRINT);
    // A vector search loads the exact-scan matrix; chunkVectors then answers from it.
    await s.vectorSearch({ vector: fakeVector('alpha'), fingerprint: FAKE_FINGERPRINT, limit: 5 });
    const fromMatrix = await s.chunkVectors([...ids, 999_999], FAKE_FINGERPRINT);
    expect(fromMatrix).toEqual(fromTable);
    await write('a.md', 'Gamma glazes melt.');
    const live = (await s.scanChunks(0, 100)).map((c) => c.id);
    const after = await s.chunkVectors(live, FAKE_FINGERPRINT);
    expect([...after.keys()].sort()).toEqual([...live].sort());
    expect(after.get(live[live.length - 1]!)).toEqual(fakeVector('Gamma glazes melt.'));
    await s.close();
  });
});
