// The lossless round trip issue 20 asks for: a vault with history exported from SQLite, imported into
// PostgreSQL, exported again and imported into a new SQLite file. Every step holds the same document
// versions, the same vectors bit for bit, the same batches and quality records, and answers every
// demo query with the same sections, in the same order, with the same scores (both backends rank
// by the same analyzer and BM25, and score the same half-precision vectors).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Vault, type Store } from '../src/index.js';
import {
  createTestDatabase,
  describePostgres,
  type TestDatabase,
} from '../src/store/postgres/_test-database.js';
import { tempDir } from './helpers.js';

const QUERIES = readFileSync('demo/queries.jsonl', 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => (JSON.parse(l) as { text: string }).text);

/** Every document version with its chunks (ids left out: each store numbers its own) and vector bits. */
async function contents(store: Store): Promise<unknown[]> {
  const out: unknown[] = [];
  for (let after = 0; ;) {
    const page = await store.scanDocumentVersions(after, 50);
    if (page.length === 0) return out;
    for (const v of page) {
      const ordOf = new Map(v.chunks.map((c) => [c.id, `${c.sectionId}/${c.ord}`]));
      out.push({
        supersededBy: v.supersededBy,
        document: v.document,
        sections: v.sections,
        chunks: v.chunks.map(({ id: _, ...c }) => c),
        vectors: v.vectors
          .map((r) => ({
            fingerprint: r.fingerprint,
            chunk: ordOf.get(r.chunkId),
            bits: Buffer.from(r.vector.buffer, r.vector.byteOffset, r.vector.byteLength).toString('base64'),
          }))
          .sort((a, b) => `${a.fingerprint}${a.chunk}`.localeCompare(`${b.fingerprint}${b.chunk}`)),
      });
    }
    after = page[page.length - 1]!.position;
  }
}

describePostgres('export → PostgreSQL → export → SQLite: a lossless round trip', () => {
  const tmp = tempDir('quiver-pg-transfer-');
  let db: TestDatabase;
  let vaults: Vault[] = [];
  beforeAll(async () => {
    db = await createTestDatabase();
    const first = await Vault.open({ overrides: { vault: join(tmp.dir, 'a.db') }, env: {} });
    await first.add(['demo/corpus']);
    await first.add([{ text: 'Green tea wants water at 80 °C.', source: 'tea' }]);
    await first.add([{ text: 'Green tea wants water at 75 °C, steeped two minutes.', source: 'tea' }]);
    const bikes = (await first.docs()).find((d) => d.source.includes('bikes'))!;
    await first.rm([bikes.id]);
    await first.store.setMark((await first.docs())[0]!.id, true, 'boilerplate');
    await first.export(join(tmp.dir, 'a.jsonl.gz'));
    const pg = await Vault.open({ overrides: { store: db.url }, env: {}, allowEmbedderMismatch: true });
    await pg.import(join(tmp.dir, 'a.jsonl.gz'));
    await pg.close();
    const pgAgain = await Vault.open({ overrides: { store: db.url }, env: {} });
    await pgAgain.export(join(tmp.dir, 'b.jsonl.gz'));
    const last = await Vault.open({
      overrides: { vault: join(tmp.dir, 'c.db') },
      env: {},
      allowEmbedderMismatch: true,
    });
    await last.import(join(tmp.dir, 'b.jsonl.gz'));
    await last.close();
    vaults = [first, pgAgain, await Vault.open({ overrides: { vault: join(tmp.dir, 'c.db') }, env: {} })];
  }, 180_000);
  afterAll(async () => {
    for (const v of vaults) await v.close();
    await db?.drop();
    tmp.cleanup();
  });

  it('holds the same document versions, chunks and vectors (bit for bit) at every step', async () => {
    const [a, b, c] = await Promise.all(vaults.map((v) => contents(v.store)));
    expect(b).toEqual(a);
    expect(c).toEqual(a);
    expect(vaults[1]!.store.kind).toBe('postgres');
  });

  it('keeps batches, marks and meta', async () => {
    const [a, b, c] = vaults.map((v) => v.store);
    for (const s of [b!, c!]) {
      expect(await s.listBatches(100)).toEqual(await a!.listBatches(100));
      expect(await s.listMarks()).toEqual(await a!.listMarks());
      expect(await s.listMeta()).toEqual(await a!.listMeta());
    }
  });

  it('answers every demo query with the same sections, ranks and scores on all three', async () => {
    for (const q of QUERIES) {
      const [a, b, c] = (await Promise.all(vaults.map((v) => v.search(q)))).map((r) =>
        r.hits.map((h) => [h.sectionId, h.retrievalRank, h.score.toFixed(9)]),
      );
      expect(b).toEqual(a);
      expect(c).toEqual(a);
    }
  });
});
