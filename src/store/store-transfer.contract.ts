import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isQuiverError } from '../errors.js';
import type { BatchRecord } from '../types.js';
import {
  FAKE_FINGERPRINT,
  fakeVector,
  makeDoc,
  writeFakeDocument,
  type StoreContractOptions,
} from './store.contract.js';
import type { FeedbackRecord, ScannedDocumentVersion, Store } from './store.js';

/**
 * The Store contract's transfer half (issue 20, `quiver export` / `quiver import`): listing meta,
 * blobs, verdicts and every document version, and writing them into an empty store as they were,
 * so that the copy answers, undoes and reads back vectors bit for bit as the original. Every
 * implementation runs it beside `runStoreContract`.
 */
export function runStoreTransferContract(name: string, options: StoreContractOptions): void {
  const skip = new Set(options.skip ?? []);
  const maybe = (label: string): typeof it | typeof it.skip => (skip.has(label) ? it.skip : it);
  describe(`Store transfer contract: ${name}`, () => {
    let store: Store;
    const others: Store[] = [];
    beforeEach(async () => {
      store = await options.make();
    });
    afterEach(async () => {
      await store.close();
      for (const o of others.splice(0)) await o.close();
    });
    const another = async (): Promise<Store> => {
      const s = await options.make();
      others.push(s);
      return s;
    };
    const W = { body: 1, title: 2, heading: 1 };

    const coffee = (extra = '') =>
      makeDoc('notes/coffee.md', [
        { title: 'Coffee', text: `Notes on brewing.${extra}` },
        { title: 'Espresso', text: 'An espresso shot should take about 25 to 30 seconds of extraction.' },
        { title: 'Grind', text: 'A finer grind slows the flow of water through the puck.' },
      ]);
    const bread = () =>
      makeDoc('notes/bread.md', [
        { title: 'Bread', text: 'Sourdough needs a lively starter.' },
        { title: 'Proof', text: 'Proof the dough overnight in the fridge.' },
      ]);

    /** Every document version of `s`, paged `size` at a time. */
    const scanAll = async (s: Store, size = 1): Promise<ScannedDocumentVersion[]> => {
      const out: ScannedDocumentVersion[] = [];
      for (let after = 0; ;) {
        const page = await s.scanDocumentVersions(after, size);
        if (page.length === 0) return out;
        expect(page.length).toBeLessThanOrEqual(size);
        for (const v of page) expect(v.position).toBeGreaterThan(after);
        out.push(...page);
        after = page[page.length - 1]!.position;
      }
    };

    /** A vault with history: coffee added, bread added, coffee updated, bread removed. */
    const history = async (): Promise<BatchRecord[]> => {
      await writeFakeDocument(store, coffee(), 'add coffee');
      await writeFakeDocument(store, bread(), 'add bread');
      await writeFakeDocument(store, coffee(' Updated.'), 'update coffee');
      const rm = await store.beginBatch('rm bread');
      await store.removeDocuments(rm.id, [bread().id]);
      rm.removed = 1;
      rm.status = 'done';
      await store.finishBatch(rm);
      return (await store.listBatches(100)).reverse();
    };

    /** Copy everything of `store` into `copy` the way an import does. */
    const copyInto = async (copy: Store): Promise<Map<number, number>> => {
      await copy.importBatches((await store.listBatches(100)).reverse());
      const versions = (await scanAll(store, 2)).map(({ position: _, ...v }) => v);
      const ids = await copy.importDocumentVersions(versions);
      await copy.importMarks(await store.listMarks());
      return ids;
    };

    it('lists the meta entries that are the vault’s state (no bookkeeping) and blob names, sorted', async () => {
      await store.setMeta('embedder', FAKE_FINGERPRINT);
      await store.setMeta('a.switch', '1');
      await history();
      await store.putBlob('model.z', new Uint8Array([1]));
      await store.putBlob('idf', new Uint8Array([2, 3]));
      expect(await store.listMeta()).toEqual({ 'a.switch': '1', embedder: FAKE_FINGERPRINT });
      expect(await store.listBlobNames()).toEqual(['idf', 'model.z']);
    });

    it('scans every document version in write order, live and superseded, with their vectors', async () => {
      const batches = await history();
      const versions = await scanAll(store);
      expect(versions.map((v) => [v.document.source, v.supersededBy])).toEqual([
        ['notes/coffee.md', batches[2]!.id],
        ['notes/bread.md', batches[3]!.id],
        ['notes/coffee.md', null],
      ]);
      const live = versions[2]!;
      expect(live.document).toEqual(await store.getDocument(coffee().id));
      expect(live.sections).toEqual(await store.listSections(coffee().id));
      expect(live.chunks).toEqual(await store.chunksOfSections(live.sections.map((s) => s.id)));
      for (const v of versions) {
        expect(v.vectors.map((r) => r.chunkId).sort((a, b) => a - b)).toEqual(v.chunks.map((c) => c.id));
        for (const r of v.vectors) expect(r.fingerprint).toBe(FAKE_FINGERPRINT);
      }
      expect(await scanAll(store, 100)).toEqual(versions);
    });

    it('a copy made by the import methods reads, searches and undoes as the original; vectors bit for bit', async () => {
      await history();
      await store.setMark(coffee().id, false, 'keeper');
      const copy = await another();
      const ids = await copyInto(copy);
      expect(await copy.listBatches(100)).toEqual(await store.listBatches(100));
      expect(await copy.listMarks()).toEqual(await store.listMarks());
      expect(await copy.listDocuments()).toEqual(await store.listDocuments());
      const id = coffee().id;
      expect(await copy.listSections(id)).toEqual(await store.listSections(id));
      const chunks = await store.scanChunks(0, 100);
      const copied = await copy.scanChunks(0, 100);
      expect(copied.map(({ id: _, ...c }) => c)).toEqual(chunks.map(({ id: _, ...c }) => c));
      expect(copied.map((c) => c.id)).toEqual(chunks.map((c) => ids.get(c.id)));
      const a = await store.chunkVectors(
        chunks.map((c) => c.id),
        FAKE_FINGERPRINT,
      );
      const b = await copy.chunkVectors(
        copied.map((c) => c.id),
        FAKE_FINGERPRINT,
      );
      for (const c of chunks) {
        const x = a.get(c.id)!;
        const y = b.get(ids.get(c.id)!)!;
        expect(new Uint32Array(y.buffer, y.byteOffset, y.length)).toEqual(
          new Uint32Array(x.buffer, x.byteOffset, x.length),
        );
      }
      const q = { terms: ['espresso', 'sourdough'], mode: 'any' as const, limit: 10, weights: W };
      // Same ranking; BM25 scores may differ by the index's history (SQLite's FTS5 keeps some
      // statistics of rows deleted since), so only the order is compared.
      expect((await copy.lexicalSearch(q)).map((h) => h.sectionId)).toEqual(
        (await store.lexicalSearch(q)).map((h) => h.sectionId),
      );
      const vq = { vector: fakeVector('espresso shot'), fingerprint: FAKE_FINGERPRINT, limit: 10 };
      expect((await copy.vectorSearch(vq)).map((h) => [h.sectionId, h.score])).toEqual(
        (await store.vectorSearch(vq)).map((h) => [h.sectionId, h.score]),
      );
      // Undo works on the copy as on the original: the removal, then the update.
      for (const s of [store, copy]) {
        const batches = await s.listBatches(100);
        expect(await s.rollbackBatch(batches[0]!.id)).toMatchObject({ removed: 0, restored: 1 });
        expect(await s.rollbackBatch(batches[1]!.id)).toMatchObject({ removed: 1, restored: 1 });
      }
      expect(await copy.listDocuments()).toEqual(await store.listDocuments());
      const sq = { terms: ['sourdough'], mode: 'any' as const, limit: 10, weights: W };
      expect((await copy.lexicalSearch(sq)).map((h) => h.sectionId)).toEqual(
        (await store.lexicalSearch(sq)).map((h) => h.sectionId),
      );
      expect((await copy.lexicalSearch(sq)).length).toBe(1);
    });

    // A backend that keeps vectors in half precision only (pgvector's halfvec) lists this as a gap.
    maybe('vectors beyond half precision')(
      'keeps imported vectors bit for bit, also values half precision cannot hold',
      async () => {
        await history();
        const v = (await scanAll(store))[2];
        const odd = new Float32Array(v!.vectors[0]!.vector.length).map((_, i) => 0.1 * (i + 1) - 1e-7);
        const copy = await another();
        const ids = await copy.importDocumentVersions([
          { ...v!, vectors: v!.vectors.map((r, i) => (i === 0 ? { ...r, vector: odd } : r)) },
        ]);
        const got = await copy.chunkVectors(
          v!.vectors.map((r) => ids.get(r.chunkId)!),
          FAKE_FINGERPRINT,
        );
        v!.vectors.forEach((r, i) => {
          const want = i === 0 ? odd : r.vector;
          const y = got.get(ids.get(r.chunkId)!)!;
          expect([...new Uint32Array(y.buffer, y.byteOffset, y.length)]).toEqual([
            ...new Uint32Array(want.buffer, want.byteOffset, want.length),
          ]);
        });
      },
    );

    it('refuses a batch id or a live document already there with CONFLICT, writing none of that call', async () => {
      const batches = await history();
      const copy = await another();
      await copyInto(copy);
      await expect(copy.importBatches([{ ...batches[0]!, id: 'fresh' }, batches[1]!])).rejects.toSatisfy(
        (e: unknown) => isQuiverError(e, 'CONFLICT'),
      );
      expect(await copy.getBatch('fresh')).toBeNull();
      const [live] = (await scanAll(store)).filter((v) => v.supersededBy === null);
      const fresh = makeDoc('notes/tea.md', [{ title: 'Tea', text: 'Green tea wants cooler water.' }]);
      const tea = {
        ...live!,
        document: { ...live!.document, id: fresh.id },
        sections: [],
        chunks: [],
        vectors: [],
      };
      await expect(copy.importDocumentVersions([tea, live!])).rejects.toSatisfy((e: unknown) =>
        isQuiverError(e, 'CONFLICT'),
      );
      expect(await copy.getDocument(fresh.id)).toBeNull();
    });

    it('imports marks with their times, pages verdicts by key and feedback by offset', async () => {
      const mark = { docId: 'd1', noisy: true, reason: 'spam', at: '2024-01-02T03:04:05.000Z' };
      await store.importMarks([
        mark,
        { docId: 'd2', noisy: false, reason: null, at: '2024-01-01T00:00:00.000Z' },
      ]);
      expect((await store.listMarks())[0]).toEqual(mark);
      expect(await store.listVerdicts(null, 10)).toEqual([]);
      for (const k of ['c', 'a', 'b']) await store.putVerdict(k, k !== 'b');
      expect(await store.listVerdicts(null, 2)).toEqual([
        { key: 'a', verdict: true },
        { key: 'b', verdict: false },
      ]);
      expect(await store.listVerdicts('b', 2)).toEqual([{ key: 'c', verdict: true }]);
      const row = (id: string): FeedbackRecord => ({
        id,
        at: '2024-05-01T10:00:00.000Z',
        q: 'q',
        askId: 'a',
        sectionId: null,
        docId: null,
        rank: null,
        score: null,
        signal: 'up',
        label: 1,
        weight: 1,
      });
      await store.addFeedback(['r1', 'r2', 'r3'].map(row));
      expect((await store.listFeedback({ order: 'oldest', limit: 2, offset: 1 })).map((r) => r.id)).toEqual([
        'r2',
        'r3',
      ]);
      expect((await store.listFeedback({ limit: 1, offset: 1 })).map((r) => r.id)).toEqual(['r2']);
    });
  });
}
