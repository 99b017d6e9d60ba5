import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { isQuiverError } from '../../errors.js';
import {
  FAKE_FINGERPRINT,
  expectStoredVector,
  fakeVector,
  makeDoc,
  runStoreContract,
  writeFakeDocument,
} from '../store.contract.js';
import { runJobQueueContract } from '../job-queue.contract.js';
import { runStoreWriterContract } from '../store-writer.contract.js';
import { runStoreTransferContract } from '../store-transfer.contract.js';
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

runStoreTransferContract('sqlite (real file)', {
  make: async () => SqliteStore.open(join(dir, `x${n++}.db`)),
});

runJobQueueContract('sqlite (real file)', {
  make: async () => SqliteStore.open(join(dir, `j${n++}.db`)),
  reopen: async (s) => {
    await s.close();
    return SqliteStore.open(s.location);
  },
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

  it('migrates a v3 vault written by the previous release: float32 vectors kept exactly, new ones half precision, no overflow pages', async () => {
    const path = join(dir, 'release3.db');
    const old = SqliteStore.open(join(dir, 'release3-src.db'));
    await writeFakeDocument(old, makeDoc('a.md', [{ title: 'A', text: 'Alpha kilns fire clay.' }]), 't');
    await old.close();
    // Rebuild the same content as the previous release stored it: schema 3, float32 rows in the
    // WITHOUT ROWID table.
    const src = new Database(join(dir, 'release3-src.db'), { readonly: true });
    const db = new Database(path);
    for (const sql of MIGRATIONS.slice(0, 3)) db.exec(sql);
    db.pragma('user_version = 3');
    db.pragma('foreign_keys = OFF');
    for (const t of ['documents', 'sections', 'chunks', 'meta', 'batches']) {
      const rows = src.prepare(`SELECT * FROM ${t}`).all() as Record<string, unknown>[];
      const known = new Set((db.pragma(`table_info(${t})`) as { name: string }[]).map((c) => c.name));
      for (const r of rows) {
        const cols = Object.keys(r).filter((c) => known.has(c));
        db.prepare(`INSERT INTO ${t}(${cols.join(',')}) VALUES (${cols.map(() => '?').join(',')})`).run(
          ...cols.map((c) => r[c]),
        );
      }
    }
    const chunkIds = src.prepare('SELECT id, text FROM chunks').all() as { id: number; text: string }[];
    for (const c of chunkIds) {
      const v = fakeVector(c.text);
      db.prepare('INSERT INTO vectors(fingerprint, chunk_id, vector) VALUES (?, ?, ?)').run(
        FAKE_FINGERPRINT,
        c.id,
        Buffer.from(v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength)),
      );
    }
    src.close();
    db.close();
    const s = SqliteStore.open(path);
    expect((await s.stats()).schemaVersion).toBe(SCHEMA_VERSION);
    // Schema 5 records languages; rows of the earlier release have none until `reanalyse`.
    expect((await s.health(null)).unanalysedSections).toBe((await s.stats()).sections);
    expect(await s.languages()).toEqual([]);
    const got = await s.chunkVectors(
      chunkIds.map((c) => c.id),
      FAKE_FINGERPRINT,
    );
    for (const c of chunkIds) expect(got.get(c.id)).toEqual(fakeVector(c.text));
    await s.close();
    const check = new Database(path, { readonly: true });
    const sql = (
      check.prepare("SELECT sql FROM sqlite_schema WHERE name = 'vectors'").get() as { sql: string }
    ).sql;
    expect(sql).not.toMatch(/WITHOUT ROWID/);
    check.close();
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
    expectStoredVector(after.get(live[live.length - 1]!), fakeVector('Gamma glazes melt.'));
    await s.close();
  });
});

describe('SqliteStore record reads', () => {
  it('answer again from memory, yet follow this connection’s writes and other connections’ commits', async () => {
    const path = join(dir, 'records.db');
    const a = SqliteStore.open(path);
    const b = SqliteStore.open(path);
    const write = (s: SqliteStore, text: string) =>
      writeFakeDocument(s, makeDoc('a.md', [{ title: 'Kilns', text }]), 't');
    await write(a, 'Alpha kilns fire clay.');
    const [doc] = await a.listDocuments();
    const read = async (s: SqliteStore) => {
      const sections = await s.getSections((await s.listSections(doc!.id)).map((x) => x.id));
      const chunks = await s.chunksOfSections(sections.map((x) => x.id));
      const [d] = await s.getDocuments([doc!.id]);
      return { text: sections[0]?.text, chunk: chunks[0]?.text, hash: d?.contentHash };
    };
    const first = await read(a);
    expect(first.text).toContain('Alpha kilns');
    expect(await read(a)).toEqual(first);
    // Another connection commits a new version of the document: the next read sees it.
    await write(b, 'Beta kilns fire stoneware.');
    const second = await read(a);
    expect(second.text).toContain('Beta kilns');
    expect(second.chunk).toContain('Beta kilns');
    expect(second.hash).not.toBe(first.hash);
    // This connection's own write too.
    await write(a, 'Gamma kilns fire porcelain.');
    expect((await read(a)).text).toContain('Gamma kilns');
    // What one caller was handed cannot be changed under the next one.
    const [s1] = await a.getSections([(await a.listSections(doc!.id))[0]!.id]);
    expect(() => {
      (s1 as { text: string }).text = 'changed';
    }).toThrow(TypeError);
    expect((await a.getSections([s1!.id]))[0]?.text).toContain('Gamma kilns');
    // An id that is not live reads as absent.
    expect(await a.getSections(['nope#0'])).toEqual([]);
    await a.close();
    await b.close();
  });
});
