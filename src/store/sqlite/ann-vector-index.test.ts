import { existsSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { normalize } from '../../math/vector.js';
import { makeDoc, runStoreContract } from '../store.contract.js';
import type { Store, VectorQuery } from '../store.js';
import type { AnnOptions } from './ann-vector-index.js';
import { hnswIndexPath, hnswSidecarPath } from './hnsw-index.js';
import { SqliteStore } from './sqlite-store.js';
import { mulberry32 } from '../../math/mulberry32.js';

const dir = mkdtempSync(join(tmpdir(), 'quiver-ann-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const dbPath = (): string => join(dir, `v${n++}.db`);

const FP = 'test:rand:32:v1';
const DIMS = 32;
const ANN: AnnOptions = { threshold: 50, m: 8, efConstruction: 32 };
/** Same file, exact scan only (the reference). */
const EXACT: AnnOptions = { threshold: 1e9 };

/** A deterministic unit vector per text (seeded from the text's code points). */
function vec(text: string): Float32Array {
  let a = 2166136261;
  for (const ch of text) a = Math.imul(a ^ ch.codePointAt(0)!, 16777619) >>> 0;
  const r = mulberry32(a);
  const v = new Float32Array(DIMS);
  for (let i = 0; i < DIMS; i++) v[i] = r() - 0.5;
  return normalize(v);
}

function doc(i: number, version = 0, kind: 'md' | 'txt' = 'md') {
  return makeDoc(
    `docs/d${i}.${kind}`,
    [0, 1, 2].map((s) => ({ title: `D${i} s${s}`, text: `document ${i} section ${s} version ${version}` })),
    kind,
  );
}

/** Write documents as one batch; returns the batch id. */
async function write(store: Store, docs: ReturnType<typeof doc>[]): Promise<string> {
  const batch = await store.beginBatch('t');
  await store.writeDocuments(
    docs.map((d) => ({
      batchId: batch.id,
      document: d,
      vectors: d.chunks.map((c) => vec(c.text)),
      fingerprint: FP,
    })),
  );
  batch.status = 'done';
  await store.finishBatch(batch);
  return batch.id;
}

async function seeded(path: string, docs: number, ann: AnnOptions = ANN): Promise<SqliteStore> {
  const s = SqliteStore.open(path, { ann });
  await write(
    s,
    Array.from({ length: docs }, (_, i) => doc(i)),
  );
  return s;
}

/** A seeded vault whose index was built and saved, closed. */
async function saved(path: string, docs: number): Promise<void> {
  const s = await seeded(path, docs);
  expect((await s.prepareVectorIndex(FP)).source).toBe('built');
  await s.close();
}

const q = (text: string, limit = 10, filter?: VectorQuery['filter']): VectorQuery => ({
  vector: vec(text),
  fingerprint: FP,
  limit,
  ...(filter === undefined ? {} : { filter }),
});

/** Top hit's chunk text for a query equal to some chunk's own text. */
async function topText(store: Store, text: string, filter?: VectorQuery['filter']): Promise<string | null> {
  const hits = await store.vectorSearch(q(text, 5, filter));
  if (hits.length === 0) return null;
  return (await store.getChunks([hits[0]!.chunkId]))[0]?.text ?? null;
}

describe('HNSW vector leg above the threshold', () => {
  it('agrees with the exact scan, and persists the index beside the database', async () => {
    const path = dbPath();
    const s = await seeded(path, 30); // 90 chunks > 50
    const exact = SqliteStore.open(path, { ann: EXACT });
    for (const text of ['alpha', 'document 3 section 1 version 0', 'zeta', 'omega 42']) {
      const a = await s.vectorSearch(q(text, 10));
      const b = await exact.vectorSearch(q(text, 10));
      expect(a.map((h) => h.chunkId)).toEqual(b.map((h) => h.chunkId));
      expect(a.map((h) => h.sectionId)).toEqual(b.map((h) => h.sectionId));
      a.forEach((h, i) => expect(h.score).toBeCloseTo(b[i]!.score, 5));
    }
    const st = await s.prepareVectorIndex(FP);
    expect(st).toMatchObject({ mode: 'hnsw', chunks: 90, source: 'built', loadFailure: 'missing' });
    expect(st.file).toBe(hnswIndexPath(path, FP));
    expect(existsSync(hnswIndexPath(path, FP))).toBe(true);
    expect(existsSync(hnswSidecarPath(hnswIndexPath(path, FP)))).toBe(true);
    expect((await exact.prepareVectorIndex(FP)).mode).toBe('exact');
    await exact.close();
    await s.close();
  });

  it('stays on the exact scan at or below the threshold and writes no index', async () => {
    const path = dbPath();
    const s = await seeded(path, 10); // 30 chunks
    expect(await topText(s, 'document 4 section 2 version 0')).toBe('document 4 section 2 version 0');
    expect((await s.prepareVectorIndex(FP)).mode).toBe('exact');
    await s.close();
    expect(existsSync(hnswIndexPath(path, FP))).toBe(false);
  });

  it('inspects the saved index without loading it: current, stale, rebuild, missing, exact', async () => {
    const path = dbPath();
    const s = await seeded(path, 20);
    expect(s.inspectVectorIndex(FP)).toMatchObject({ mode: 'hnsw', chunks: 60, index: 'missing' });
    await s.prepareVectorIndex(FP);
    expect(s.inspectVectorIndex(FP)).toMatchObject({ index: 'current', file: hnswIndexPath(path, FP) });
    await write(s, [doc(77)]);
    expect(s.inspectVectorIndex(FP).index).toBe('stale');
    const c = (await s.scanChunks(0, 1))[0]!;
    await s.putVectors(FP, [{ chunkId: c.id, vector: vec('other') }]);
    expect(s.inspectVectorIndex(FP).index).toBe('rebuild');
    writeFileSync(hnswSidecarPath(hnswIndexPath(path, FP)), 'garbage');
    expect(s.inspectVectorIndex(FP).index).toBe('unreadable');
    expect(s.inspectVectorIndex('other:fp')).toMatchObject({ mode: 'exact', chunks: 0, index: 'none' });
    // The install compiled the accelerated hnswlib and the parallel builder for this machine.
    expect(s.inspectVectorIndex(FP).native).toEqual({
      search: 'accelerated',
      parallelBuild: true,
      note: null,
    });
    await s.close();
  });

  it('with ann.native off, builds and reads the same files on the stock hnswlib binding', async () => {
    const path = dbPath();
    const s = await seeded(path, 20);
    await s.prepareVectorIndex(FP);
    const want = await topText(s, 'document 7 section 1 version 0');
    await s.close();
    const stock = SqliteStore.open(path, { ann: { ...ANN, native: false } });
    expect(stock.inspectVectorIndex(FP)).toMatchObject({ index: 'current', native: { search: 'stock' } });
    expect(await topText(stock, 'document 7 section 1 version 0')).toBe(want);
    await stock.close();
  });

  it('reuses a saved index that is current, without a rebuild', async () => {
    const path = dbPath();
    await saved(path, 20);
    const b = SqliteStore.open(path, { ann: ANN });
    expect(await topText(b, 'document 7 section 0 version 0')).toBe('document 7 section 0 version 0');
    expect(await b.prepareVectorIndex(FP)).toMatchObject({ source: 'loaded', loadFailure: null });
    await b.close();
  });

  it('detects a missing index file and rebuilds it', async () => {
    const path = dbPath();
    await saved(path, 20);
    const file = hnswIndexPath(path, FP);
    rmSync(file);
    const s = SqliteStore.open(path, { ann: ANN });
    expect(await topText(s, 'document 5 section 1 version 0')).toBe('document 5 section 1 version 0');
    expect(await s.prepareVectorIndex(FP)).toMatchObject({ source: 'built', loadFailure: 'missing' });
    expect(existsSync(file)).toBe(true);
    await s.close();
  });

  it('detects a truncated and a garbled index file (corrupt) and rebuilds', async () => {
    const path = dbPath();
    await saved(path, 20);
    const file = hnswIndexPath(path, FP);
    truncateSync(file, 200);
    let s = SqliteStore.open(path, { ann: ANN });
    expect(await topText(s, 'document 9 section 2 version 0')).toBe('document 9 section 2 version 0');
    expect(await s.prepareVectorIndex(FP)).toMatchObject({ source: 'built', loadFailure: 'corrupt' });
    await s.close();
    const bytes = readFileSync(file);
    for (let i = 500; i < 700; i++) bytes[i] = bytes[i]! ^ 0xff;
    writeFileSync(file, bytes);
    s = SqliteStore.open(path, { ann: ANN });
    expect(await topText(s, 'document 2 section 0 version 0')).toBe('document 2 section 0 version 0');
    expect(await s.prepareVectorIndex(FP)).toMatchObject({ source: 'built', loadFailure: 'corrupt' });
    await s.close();
    writeFileSync(hnswSidecarPath(file), '{not json');
    s = SqliteStore.open(path, { ann: ANN });
    expect(await s.prepareVectorIndex(FP)).toMatchObject({ source: 'built', loadFailure: 'corrupt' });
    await s.close();
  });

  it('sees vectors another connection wrote (stale in memory and on disk) and reconciles', async () => {
    const path = dbPath();
    const a = await seeded(path, 20);
    expect(await topText(a, 'document 1 section 1 version 0')).toBe('document 1 section 1 version 0');
    const b = SqliteStore.open(path, { ann: ANN });
    await write(b, [doc(100), doc(101)]);
    await b.close();
    // In memory: a's index predates b's write.
    expect(await topText(a, 'document 100 section 2 version 0')).toBe('document 100 section 2 version 0');
    expect(await a.prepareVectorIndex(FP)).toMatchObject({ source: 'reconciled', chunks: 66 });
    // On disk: the file was saved before b wrote; a third store finds it stale and reconciles.
    rmSync(path + '.tmp', { force: true });
    const c = SqliteStore.open(path, { ann: ANN });
    const file = hnswIndexPath(path, FP);
    const stampBefore = (JSON.parse(readFileSync(hnswSidecarPath(file), 'utf8')) as { stamp: string }).stamp;
    expect(await topText(c, 'document 101 section 0 version 0')).toBe('document 101 section 0 version 0');
    expect(await c.prepareVectorIndex(FP)).toMatchObject({ source: 'reconciled', loadFailure: 'stale' });
    await c.close();
    const stampAfter = (JSON.parse(readFileSync(hnswSidecarPath(file), 'utf8')) as { stamp: string }).stamp;
    expect(stampAfter).not.toBe(stampBefore);
    await a.close();
  });

  it('keeps in step with add, update and rollback; chunk ids are never reused', async () => {
    const path = dbPath();
    const s = await seeded(path, 20);
    const old = 'document 500 section 1 version 0';
    const neu = 'document 500 section 1 version 1';
    const added = await write(s, [doc(500)]);
    expect(await topText(s, old)).toBe(old);
    const updated = await write(s, [doc(500, 1)]);
    const afterUpdate = await s.vectorSearch(q(old, 100));
    const texts = (await s.getChunks(afterUpdate.map((h) => h.chunkId))).map((c) => c.text);
    expect(texts).not.toContain(old);
    expect(await topText(s, neu)).toBe(neu);
    await s.rollbackBatch(updated);
    expect(await topText(s, old)).toBe(old);
    const back = await s.vectorSearch(q(neu, 100));
    expect((await s.getChunks(back.map((h) => h.chunkId))).map((c) => c.text)).not.toContain(neu);
    const maxBefore = Math.max(...(await s.vectorSearch(q(old, 1))).map((h) => h.chunkId));
    await s.rollbackBatch(added);
    // No search between the rollback and the next write: the new chunks must not take the old ids.
    await write(s, [doc(600)]);
    const hits = await s.vectorSearch(q('document 600 section 0 version 0', 3));
    expect(hits[0]!.chunkId).toBeGreaterThan(maxBefore);
    // Stored in half precision: a vector's cosine with itself is 1 within about 2^-11.
    expect(hits[0]!.score).toBeCloseTo(1, 3);
    expect((await s.getChunks([hits[0]!.chunkId]))[0]?.text).toBe('document 600 section 0 version 0');
    const gone = await s.vectorSearch(q(old, 100));
    expect(gone.every((h) => h.docId !== doc(500).id)).toBe(true);
    await s.close();
    // A fresh process agrees (the saved index reflects the final state).
    const t = SqliteStore.open(path, { ann: ANN });
    const exact = SqliteStore.open(path, { ann: EXACT });
    for (const text of [old, neu, 'document 600 section 2 version 0']) {
      expect((await t.vectorSearch(q(text))).map((h) => h.chunkId)).toEqual(
        (await exact.vectorSearch(q(text))).map((h) => h.chunkId),
      );
    }
    await exact.close();
    await t.close();
  });

  it('rebuilds instead of reconciling when most of the index would be tombstones', async () => {
    const path = dbPath();
    const s = await seeded(path, 20);
    const big = await write(
      s,
      Array.from({ length: 20 }, (_, i) => doc(1000 + i)),
    );
    expect((await s.prepareVectorIndex(FP)).chunks).toBe(120);
    await s.rollbackBatch(big);
    expect(await s.prepareVectorIndex(FP)).toMatchObject({ source: 'built', chunks: 60, deleted: 0 });
    await s.close();
  });

  it('respects noisy marks and filters above the threshold', async () => {
    const path = dbPath();
    const s = SqliteStore.open(path, { ann: ANN });
    await write(s, [
      ...Array.from({ length: 15 }, (_, i) => doc(i)),
      ...Array.from({ length: 15 }, (_, i) => doc(100 + i, 0, 'txt')),
    ]);
    const text = 'document 3 section 1 version 0';
    const noisy = doc(3).id;
    expect(await topText(s, text)).toBe(text);
    await s.setMark(noisy, true, 'test');
    const hits = await s.vectorSearch(q(text, 200));
    expect(hits.length).toBe(87);
    expect(hits.some((h) => h.docId === noisy)).toBe(false);
    expect(await topText(s, text, { includeNoisy: true })).toBe(text);
    // A broad filter walks the graph with it; a narrow one scans the allowed chunks exactly.
    const txt = await s.vectorSearch(q(text, 200, { kinds: ['txt'] }));
    expect(txt).toHaveLength(45);
    const txtIds = new Set(Array.from({ length: 15 }, (_, i) => doc(100 + i, 0, 'txt').id));
    expect(txt.every((h) => txtIds.has(h.docId))).toBe(true);
    const one = await s.vectorSearch(q(text, 10, { docIds: [doc(104, 0, 'txt').id] }));
    expect(one).toHaveLength(3);
    const exact = SqliteStore.open(path, { ann: EXACT });
    expect(one).toEqual(await exact.vectorSearch(q(text, 10, { docIds: [doc(104, 0, 'txt').id] })));
    expect(await s.vectorSearch(q(text, 10, { docIds: [noisy] }))).toEqual([]);
    expect(await s.vectorSearch(q(text, 10, { docIds: [] }))).toEqual([]);
    await exact.close();
    await s.close();
  });

  it('searches from a read-only store, with or without a saved index, and writes nothing', async () => {
    const path = dbPath();
    await saved(path, 20);
    const file = hnswIndexPath(path, FP);
    let r = SqliteStore.open(path, { readonly: true, ann: ANN });
    expect(await topText(r, 'document 11 section 2 version 0')).toBe('document 11 section 2 version 0');
    expect(await r.prepareVectorIndex(FP)).toMatchObject({ source: 'loaded' });
    await r.close();
    rmSync(file);
    r = SqliteStore.open(path, { readonly: true, ann: ANN });
    expect(await topText(r, 'document 12 section 0 version 0')).toBe('document 12 section 0 version 0');
    expect(await r.prepareVectorIndex(FP)).toMatchObject({ source: 'built', loadFailure: 'missing' });
    await r.close();
    expect(existsSync(file)).toBe(false);
  });

  it('keeps the index of an in-memory store in memory', async () => {
    const s = await seeded(':memory:', 20);
    expect(await topText(s, 'document 13 section 1 version 0')).toBe('document 13 section 1 version 0');
    expect(await s.prepareVectorIndex(FP)).toMatchObject({ mode: 'hnsw', file: null, source: 'built' });
    await s.close();
  });

  it('deletes the index files with the fingerprint’s vectors, and rebuilds after rewritten vectors', async () => {
    const path = dbPath();
    const s = await seeded(path, 20);
    await s.prepareVectorIndex(FP);
    const file = hnswIndexPath(path, FP);
    expect(existsSync(file)).toBe(true);
    // Overwrite every vector in place (same chunk ids): reconciling by id would miss this.
    const rows = await s.scanChunks(0, 1000);
    await s.putVectors(
      FP,
      rows.map((c) => ({ chunkId: c.id, vector: vec(`rewritten ${c.text}`) })),
    );
    expect(await topText(s, 'rewritten document 4 section 0 version 0')).toBe(
      'document 4 section 0 version 0',
    );
    expect((await s.prepareVectorIndex(FP)).source).toBe('built');
    expect(await s.deleteVectors(FP)).toBe(60);
    expect(existsSync(file)).toBe(false);
    expect(await s.vectorSearch(q('anything'))).toEqual([]);
    await s.close();
  });
});

runStoreContract('sqlite with HNSW at threshold 0', {
  make: async () => SqliteStore.open(dbPath(), { ann: { threshold: 0, m: 8, efConstruction: 32 } }),
  reopen: async (s) => {
    await s.close();
    return SqliteStore.open(s.location, { ann: { threshold: 0, m: 8, efConstruction: 32 } });
  },
});
