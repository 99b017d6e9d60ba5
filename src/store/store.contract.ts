import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isQuiverError } from '../errors.js';
import { buildDocument } from '../ingest/build.js';
import type { BuiltDocument, ParsedDocument } from '../ingest/parsed.js';
import { normalize } from '../math/vector.js';
import type { DocKind } from '../types.js';
import type { Store } from './store.js';

/**
 * The Store contract: every implementation (SQLite now, PostgreSQL later) runs this suite.
 * `make()` returns a fresh, empty store; `reopen(store)` closes and opens the same data again
 * (omit it for stores that cannot persist).
 */
export interface StoreContractOptions {
  make: () => Promise<Store>;
  reopen?: (store: Store) => Promise<Store>;
  /** Behaviours this implementation does not have yet, each named (listed gaps, never silent). */
  skip?: string[];
}

const FP = 'test:fake:8:v1';
const W = { body: 1, title: 2, heading: 1 };

/** A tiny deterministic bag-of-letters vector, enough to order cosine results in tests. */
export function fakeVector(text: string, dims = 8): Float32Array {
  const v = new Float32Array(dims);
  for (const ch of text.toLowerCase()) {
    const c = ch.codePointAt(0) ?? 0;
    if (c >= 97 && c <= 122) v[c % dims]! += 1;
  }
  return normalize(v);
}

export function makeDoc(source: string, sections: { title: string; text: string; level?: number }[], kind: DocKind = 'md'): BuiltDocument {
  const parsed: ParsedDocument = {
    source,
    title: sections[0]?.title ?? source,
    kind,
    meta: {},
    pages: null,
    sections: sections.map((s, i) => ({ level: s.level ?? (i === 0 ? 0 : 1), title: s.title, segments: [{ page: null, text: s.text }] })),
  };
  return buildDocument(parsed);
}

export function runStoreContract(name: string, options: StoreContractOptions): void {
  const skip = new Set(options.skip ?? []);
  const maybe = (label: string): typeof it | typeof it.skip => (skip.has(label) ? it.skip : it);

  describe(`Store contract: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await options.make();
    });
    afterEach(async () => {
      await store.close();
    });

    async function write(doc: BuiltDocument, batchLabel = 'b') {
      const batch = await store.beginBatch(batchLabel);
      const status = await store.writeDocument({ batchId: batch.id, document: doc, vectors: doc.chunks.map((c) => fakeVector(c.text)), fingerprint: FP });
      batch.status = 'done';
      if (status === 'added') batch.added++;
      await store.finishBatch(batch);
      return { status, batch };
    }

    const coffee = () =>
      makeDoc('notes/coffee.md', [
        { title: 'Coffee', text: 'Notes on brewing.' },
        { title: 'Espresso', text: 'An espresso shot should take about 25 to 30 seconds of extraction.' },
        { title: 'Grind', text: 'A finer grind slows the flow of water through the puck.' },
      ]);

    it('writes a document once: added, then unchanged; a change is an update with the same id', async () => {
      const doc = coffee();
      expect((await write(doc)).status).toBe('added');
      expect((await write(doc)).status).toBe('unchanged');
      const changed = makeDoc('notes/coffee.md', [
        { title: 'Coffee', text: 'Notes on brewing.' },
        { title: 'Espresso', text: 'Pull the espresso shot for 28 seconds.' },
      ]);
      expect(changed.id).toBe(doc.id);
      expect((await write(changed)).status).toBe('updated');
      const d = await store.getDocument(doc.id);
      expect(d?.contentHash).toBe(changed.contentHash);
      expect((await store.listSections(doc.id)).map((s) => s.title)).toEqual(['Coffee', 'Espresso']);
      const s = await store.stats();
      expect(s.documents).toBe(1);
      expect(s.sections).toBe(2);
    });

    it('stores sections with ids doc#seq, parents and breadcrumbs, and chunks with their section', async () => {
      const doc = coffee();
      await write(doc);
      const sections = await store.listSections(doc.id);
      expect(sections.map((s) => s.id)).toEqual([`${doc.id}#0`, `${doc.id}#1`, `${doc.id}#2`]);
      expect(sections[1]?.parentId).toBe(`${doc.id}#0`);
      expect(sections[1]?.breadcrumb).toBe('Coffee › Espresso');
      const chunks = await store.chunksOfSections([`${doc.id}#1`]);
      expect(chunks).toHaveLength(1);
      expect(chunks[0]?.text).toContain('25 to 30 seconds');
    });

    it('lexical search finds stemmed terms, weights the title, and returns nothing for no terms', async () => {
      await write(coffee());
      await write(makeDoc('notes/bees.md', [{ title: 'Bees', text: 'Honey bees swarm in spring when the colony grows.' }]));
      const hits = await store.lexicalSearch({ terms: ['extracting'], mode: 'any', limit: 10, weights: W });
      expect(hits.map((h) => h.sectionId.split('#')[1])).toEqual(['1']);
      expect(hits[0]!.score).toBeGreaterThan(0);
      expect(await store.lexicalSearch({ terms: [], mode: 'any', limit: 10, weights: W })).toEqual([]);
      const all = await store.lexicalSearch({ terms: ['espresso', 'honey'], mode: 'all', limit: 10, weights: W });
      expect(all).toEqual([]);
      const any = await store.lexicalSearch({ terms: ['espresso', 'honey'], mode: 'any', limit: 10, weights: W });
      expect(new Set(any.map((h) => h.docId)).size).toBe(2);
      const phrase = await store.lexicalSearch({ terms: ['finer', 'grind'], mode: 'phrase', limit: 10, weights: W });
      expect(phrase).toHaveLength(1);
      expect(await store.lexicalSearch({ terms: ['grind', 'finer'], mode: 'phrase', limit: 10, weights: W })).toEqual([]);
    });

    it('applies filters inside both legs (kind, source prefix, doc ids)', async () => {
      const md = coffee();
      const txt = makeDoc('web/coffee.txt', [{ title: 'Coffee page', text: 'Espresso extraction takes seconds.' }], 'txt');
      await write(md);
      await write(txt);
      const lex = await store.lexicalSearch({ terms: ['espresso'], mode: 'any', limit: 10, weights: W, filter: { kinds: ['txt'] } });
      expect(lex.map((h) => h.docId)).toEqual([txt.id]);
      const vec = await store.vectorSearch({ vector: fakeVector('espresso extraction'), fingerprint: FP, limit: 10, filter: { sourcePrefix: 'notes/' } });
      expect(new Set(vec.map((h) => h.docId))).toEqual(new Set([md.id]));
      const byId = await store.vectorSearch({ vector: fakeVector('espresso'), fingerprint: FP, limit: 10, filter: { docIds: [txt.id] } });
      expect(new Set(byId.map((h) => h.docId))).toEqual(new Set([txt.id]));
    });

    it('vector search orders by cosine, keeps fingerprints apart and never returns zero vectors', async () => {
      const doc = makeDoc('a.md', [
        { title: 'A', text: 'aaaa aaaa' },
        { title: 'B', text: 'bbbb bbbb' },
        { title: 'Z', text: '1234 5678 ----' },
      ]);
      await write(doc);
      const hits = await store.vectorSearch({ vector: fakeVector('aaaa'), fingerprint: FP, limit: 10 });
      expect(hits[0]?.sectionId).toBe(`${doc.id}#0`);
      expect(hits.every((h) => h.sectionId !== `${doc.id}#2`)).toBe(true);
      expect(await store.vectorSearch({ vector: fakeVector('aaaa'), fingerprint: 'other:1:8:v1', limit: 10 })).toEqual([]);
    });

    it('a noise mark removes a document from both legs at once; includeNoisy brings it back', async () => {
      const doc = coffee();
      await write(doc);
      await store.setMark(doc.id, true, 'test');
      expect(await store.lexicalSearch({ terms: ['espresso'], mode: 'any', limit: 10, weights: W })).toEqual([]);
      expect(await store.vectorSearch({ vector: fakeVector('espresso'), fingerprint: FP, limit: 10 })).toEqual([]);
      const inc = await store.lexicalSearch({ terms: ['espresso'], mode: 'any', limit: 10, weights: W, filter: { includeNoisy: true } });
      expect(inc.length).toBeGreaterThan(0);
      await store.setMark(doc.id, false, null);
      expect((await store.lexicalSearch({ terms: ['espresso'], mode: 'any', limit: 10, weights: W })).length).toBeGreaterThan(0);
      expect((await store.listMarks()).map((m) => [m.docId, m.noisy])).toEqual([[doc.id, false]]);
    });

    it('rolls back an update exactly: the previous version comes back in both legs', async () => {
      const v1 = coffee();
      await write(v1, 'first');
      const v2 = makeDoc('notes/coffee.md', [{ title: 'Coffee', text: 'Cold brew steeps for twelve hours.' }]);
      const { batch } = await write(v2, 'second');
      expect((await store.lexicalSearch({ terms: ['espresso'], mode: 'any', limit: 10, weights: W })).length).toBe(0);
      const r = await store.rollbackBatch(batch.id);
      expect(r).toEqual({ batchId: batch.id, removed: 1, restored: 1 });
      expect((await store.getDocument(v1.id))?.contentHash).toBe(v1.contentHash);
      expect((await store.lexicalSearch({ terms: ['espresso'], mode: 'any', limit: 10, weights: W })).length).toBe(1);
      expect(await store.lexicalSearch({ terms: ['cold', 'brew'], mode: 'all', limit: 10, weights: W })).toEqual([]);
      const vec = await store.vectorSearch({ vector: fakeVector('espresso shot'), fingerprint: FP, limit: 10 });
      expect(new Set(vec.map((h) => h.sectionId))).toEqual(new Set([`${v1.id}#0`, `${v1.id}#1`, `${v1.id}#2`]));
      expect((await store.getBatch(batch.id))?.status).toBe('rolled_back');
    });

    it('rolls back an add completely, and refuses to roll back a batch that is not the newest', async () => {
      const first = await write(coffee(), 'first');
      await write(makeDoc('b.md', [{ title: 'B', text: 'Bees make honey.' }]), 'second');
      await expect(store.rollbackBatch(first.batch.id)).rejects.toSatisfy((e: unknown) => isQuiverError(e, 'CONFLICT'));
      const batches = await store.listBatches();
      await store.rollbackBatch(batches[0]!.id);
      await store.rollbackBatch(first.batch.id);
      const s = await store.stats();
      expect([s.documents, s.sections, s.chunks]).toEqual([0, 0, 0]);
      expect(await store.lexicalSearch({ terms: ['espresso', 'honey'], mode: 'any', limit: 10, weights: W })).toEqual([]);
      await expect(store.rollbackBatch(first.batch.id)).rejects.toSatisfy((e: unknown) => isQuiverError(e, 'CONFLICT'));
      await expect(store.rollbackBatch('nope')).rejects.toSatisfy((e: unknown) => isQuiverError(e, 'NOT_FOUND'));
    });

    it('keeps meta, blobs and vectors per fingerprint', async () => {
      await store.setMeta('k', 'v1');
      await store.setMeta('k', 'v2');
      expect(await store.getMeta('k')).toBe('v2');
      expect(await store.getMeta('missing')).toBeNull();
      await store.putBlob('model', new Uint8Array([1, 2, 3]));
      expect([...((await store.getBlob('model')) ?? [])]).toEqual([1, 2, 3]);
      const doc = coffee();
      await write(doc);
      const chunks = await store.scanChunks(0, 100);
      expect(chunks).toHaveLength(3);
      await store.putVectors('other:1:8:v1', chunks.map((c) => ({ chunkId: c.id, vector: fakeVector('zzz') })));
      expect((await store.stats()).vectors).toEqual({ [FP]: 3, 'other:1:8:v1': 3 });
      const got = await store.chunkVectors([chunks[0]!.id], FP);
      expect([...(got.get(chunks[0]!.id) ?? [])]).toEqual([...fakeVector(chunks[0]!.text)]);
    });

    it('finds documents by id, source or title fragment', async () => {
      const doc = coffee();
      await write(doc);
      expect((await store.findDocuments(doc.id)).map((d) => d.id)).toEqual([doc.id]);
      expect((await store.findDocuments('notes/coffee.md')).map((d) => d.id)).toEqual([doc.id]);
      expect((await store.findDocuments('offe')).map((d) => d.id)).toEqual([doc.id]);
      expect(await store.findDocuments('100%_')).toEqual([]);
    });

    maybe('persists across reopen')('persists across reopen', async () => {
      if (options.reopen === undefined) return;
      const doc = coffee();
      await write(doc);
      store = await options.reopen(store);
      expect((await store.getDocument(doc.id))?.title).toBe('Coffee');
      expect((await store.lexicalSearch({ terms: ['espresso'], mode: 'any', limit: 10, weights: W })).length).toBe(1);
    });
  });
}
