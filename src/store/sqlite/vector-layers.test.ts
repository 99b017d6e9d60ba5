// A reader that keeps its vectors across another connection's commits (`vector-layers.ts`) must
// answer exactly as a reader opened afresh: same chunks, sections, scores and order, filters
// included, after adds, updates (superseded chunks), removals, rollbacks, vectors written later for
// chunks that had none, and an embedder's vectors deleted and written again (a break).
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../math/mulberry32.js';
import { normalize } from '../../math/vector.js';
import { makeDoc } from '../store.contract.js';
import type { Store, VectorQuery } from '../store.js';
import { SqliteStore } from './sqlite-store.js';
import { VectorLayers, refreshVectorLayers, loadVectorLayers } from './vector-layers.js';

const dir = mkdtempSync(join(tmpdir(), 'quiver-layers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const dbPath = (): string => join(dir, `v${n++}.db`);

const FP = 'test:rand:16:v1';
const DIMS = 16;
/** The exact scan always (these vaults are small; the ANN leg has its own tests). */
const EXACT = { ann: { threshold: 1e9 } };

function vec(text: string): Float32Array {
  let a = 2166136261;
  for (const ch of text) a = Math.imul(a ^ ch.codePointAt(0)!, 16777619) >>> 0;
  const r = mulberry32(a);
  const v = new Float32Array(DIMS);
  for (let i = 0; i < DIMS; i++) v[i] = r() - 0.5;
  return normalize(v);
}

const doc = (i: number, version: number) =>
  makeDoc(
    `docs/d${i}.md`,
    [0, 1].map((s) => ({ title: `D${i} s${s}`, text: `document ${i} section ${s} version ${version}` })),
    'md',
  );

async function write(store: Store, docs: ReturnType<typeof doc>[], withVectors = true): Promise<string> {
  const batch = await store.beginBatch('t');
  await store.writeDocuments(
    docs.map((d) => ({
      batchId: batch.id,
      document: d,
      vectors: d.chunks.map((c) => vec(c.text)),
      // Without vectors of FP: under another embedder's fingerprint only.
      fingerprint: withVectors ? FP : 'other:rand:16:v1',
    })),
  );
  batch.status = 'done';
  await store.finishBatch(batch);
  return batch.id;
}

const QUERIES = ['document 1 section 0 version 0', 'alpha', 'document 7 section 1 version 2', 'zeta 9'];
const q = (text: string, filter?: VectorQuery['filter']): VectorQuery => ({
  vector: vec(text),
  fingerprint: FP,
  limit: 6,
  ...(filter === undefined ? {} : { filter }),
});

/** What the long-lived reader says, next to a reader opened now. */
async function expectSameAsFresh(path: string, reader: SqliteStore): Promise<void> {
  const fresh = SqliteStore.open(path, { ...EXACT, readonly: true });
  try {
    for (const text of QUERIES)
      for (const filter of [undefined, { sourcePrefix: 'docs/d1' }]) {
        const a = await reader.vectorSearch(q(text, filter));
        const b = await fresh.vectorSearch(q(text, filter));
        expect(a).toEqual(b);
      }
    const ids = (await fresh.vectorSearch(q('alpha'))).map((h) => h.chunkId);
    expect(await reader.chunkVectors(ids, FP)).toEqual(await fresh.chunkVectors(ids, FP));
  } finally {
    await fresh.close();
  }
}

type Op =
  | { kind: 'add'; docs: number[] }
  | { kind: 'update'; doc: number }
  | { kind: 'remove'; doc: number }
  | { kind: 'rollback' }
  | { kind: 'late-vectors'; doc: number }
  | { kind: 'rewrite-all' };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('add' as const),
      docs: fc.array(fc.nat(30), { minLength: 1, maxLength: 4 }),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('update' as const), doc: fc.nat(30) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('remove' as const), doc: fc.nat(30) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'rollback' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('late-vectors' as const), doc: fc.nat(30) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'rewrite-all' as const }) },
);

describe('a reader keeping its vectors across another connection’s commits', () => {
  it('answers as a freshly opened reader after any sequence of writes (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 8 }), async (ops) => {
        const path = dbPath();
        const writer = SqliteStore.open(path, EXACT);
        const versions = new Map<number, number>();
        // Written before the reader loads, first and without vectors of FP: its vectors come later,
        // below chunk ids the reader already holds.
        const late = doc(200, 0);
        await write(writer, [late], false);
        versions.set(200, 0);
        await write(
          writer,
          Array.from({ length: 12 }, (_, i) => doc(i, 0)),
        );
        for (let i = 0; i < 12; i++) versions.set(i, 0);
        let lateDone = false;
        const reader = SqliteStore.open(path, { ...EXACT, readonly: true });
        try {
          await reader.vectorSearch(q('alpha')); // loads the matrix
          for (const o of ops) {
            if (o.kind === 'add') {
              const fresh = [...new Set(o.docs)].filter((i) => !versions.has(i));
              if (fresh.length === 0) continue;
              await write(
                writer,
                fresh.map((i) => doc(i, 0)),
              );
              for (const i of fresh) versions.set(i, 0);
            } else if (o.kind === 'update') {
              const v = versions.get(o.doc);
              if (v === undefined) continue;
              await write(writer, [doc(o.doc, v + 1)]);
              versions.set(o.doc, v + 1);
            } else if (o.kind === 'remove') {
              if (!versions.has(o.doc)) continue;
              const id = doc(o.doc, 0).id;
              const batch = await writer.beginBatch('rm');
              await writer.removeDocuments(batch.id, [id]);
              batch.status = 'done';
              await writer.finishBatch(batch);
              versions.delete(o.doc);
            } else if (o.kind === 'rollback') {
              const last = (await writer.listBatches(1))[0];
              if (last === undefined || last.status === 'rolled_back') continue;
              await writer.rollbackBatch(last.id);
              // Which documents remain is the store's business: read it back.
              versions.clear();
              for (const d of await writer.listDocuments()) {
                const m = /d(\d+)\.md$/.exec(d.source);
                const vm = /version (\d+)/.exec((await writer.listSections(d.id))[0]?.text ?? '');
                if (m !== null) versions.set(Number(m[1]), Number(vm?.[1] ?? 0));
              }
            } else if (o.kind === 'late-vectors' && !lateDone && versions.has(200)) {
              const chunks = await writer.chunksOfSections(late.sections.map((x) => `${late.id}#${x.seq}`));
              expect(chunks.length).toBe(2);
              await writer.putVectors(
                FP,
                chunks.map((c) => ({ chunkId: c.id, vector: vec(c.text) })),
              );
              lateDone = true;
            } else if (o.kind === 'late-vectors') {
              // A document written without vectors, whose vectors come in a later transaction (a
              // resumed reindex): chunk ids below ones the reader already holds.
              if (versions.has(o.doc + 100)) continue;
              const d = doc(o.doc + 100, 0);
              await write(writer, [d], false);
              versions.set(o.doc + 100, 0);
              const chunks = await writer.chunksOfSections(d.sections.map((s) => `${d.id}#${s.seq}`));
              expect(chunks.length).toBe(2);
              await writer.putVectors(
                FP,
                chunks.map((c) => ({ chunkId: c.id, vector: vec(c.text) })),
              );
            } else {
              // Every vector rewritten in place (a break): the reader must load them all again.
              const chunks = await writer.scanChunks(0, 10_000);
              await writer.deleteVectors(FP);
              await writer.putVectors(
                FP,
                chunks.map((c) => ({ chunkId: c.id, vector: vec(`${c.text} again`) })),
              );
            }
            await expectSameAsFresh(path, reader);
          }
        } finally {
          await reader.close();
          await writer.close();
        }
      }),
      { numRuns: 25 },
    );
  }, 120_000);
});

describe('refreshVectorLayers', () => {
  it('keeps the loaded base and reads only the new rows after a small add; reloads past a quarter', async () => {
    const path = dbPath();
    const writer = SqliteStore.open(path, EXACT);
    await write(
      writer,
      Array.from({ length: 40 }, (_, i) => doc(i, 0)),
    );
    const reader = SqliteStore.open(path, { ...EXACT, readonly: true });
    const statements = (reader as unknown as { statements: Parameters<typeof loadVectorLayers>[0] })
      .statements;
    try {
      const first = loadVectorLayers(statements, FP);
      expect(first.count).toBe(80);
      expect(refreshVectorLayers(statements, FP, first)).toBe(first); // nothing changed
      await write(writer, [doc(50, 0)]);
      await write(writer, [doc(3, 1)]); // supersedes two rows of the base
      const second = refreshVectorLayers(statements, FP, first);
      expect(second).toBeInstanceOf(VectorLayers);
      expect(second.base).toBe(first.base);
      expect(second.added?.count).toBe(4);
      expect(second.dead.size).toBe(2);
      expect(second.count).toBe(82);
      // Far past a quarter of the base (and past the 1,024-row floor): one full load.
      await write(
        writer,
        Array.from({ length: 600 }, (_, i) => doc(1000 + i, 0)),
      );
      const third = refreshVectorLayers(statements, FP, second);
      expect(third.base).not.toBe(first.base);
      expect(third.added).toBeNull();
      expect(third.count).toBe(82 + 1200);
    } finally {
      await reader.close();
      await writer.close();
    }
  });
});
