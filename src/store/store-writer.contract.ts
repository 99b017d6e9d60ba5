import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isQuiverError } from '../errors.js';
import {
  FAKE_FINGERPRINT,
  fakeVector,
  makeDoc,
  writeFakeDocument,
  type StoreContractOptions,
} from './store.contract.js';
import type { Store, WriterClaim } from './store.js';

/**
 * The Store contract's concurrency and repair half (issue 13): the writer slot, batches that record
 * their process and are told apart from crashed ones, removal as an undoable batch, atomic embedder
 * switches and the health facts `doctor` reports. Every implementation runs it beside
 * `runStoreContract`.
 */
export function runStoreWriterContract(name: string, options: StoreContractOptions): void {
  describe(`Store writer contract: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await options.make();
    });
    afterEach(async () => {
      await store.close();
    });

    const claim = (pid: number, command = 'add x'): WriterClaim => ({
      pid,
      host: 'h',
      procStart: '1',
      command,
    });
    const doc = (source: string, text: string) => makeDoc(source, [{ title: source, text }]);

    it('gives the writer slot to one claimant at a time; a dead holder is taken over; release frees it', async () => {
      expect(await store.claimWriter(claim(1), () => true)).toBeNull();
      expect(await store.claimWriter(claim(1), () => true)).toBeNull(); // already ours
      const holder = await store.claimWriter(claim(2), () => true);
      expect(holder).toMatchObject({ pid: 1, host: 'h', command: 'add x', batchId: null });
      await store.touchWriter(claim(1), 'b1');
      expect((await store.currentWriter())?.batchId).toBe('b1');
      expect(await store.claimWriter(claim(2, 'undo'), () => false)).toBeNull(); // holder judged gone
      expect((await store.currentWriter())?.pid).toBe(2);
      await store.releaseWriter(claim(1)); // not the holder: no effect
      expect((await store.currentWriter())?.pid).toBe(2);
      await store.releaseWriter(claim(2));
      expect(await store.currentWriter()).toBeNull();
    });

    it('records who runs a batch; interruptRunningBatches marks only running ones, with what they wrote', async () => {
      const running = await store.beginBatch('crashed', { pid: 77, host: 'h' });
      expect(running.owner).toEqual({ pid: 77, host: 'h' });
      const d = doc('a.md', 'alpha text here');
      await store.writeDocument({
        batchId: running.id,
        document: d,
        vectors: d.chunks.map((c) => fakeVector(c.text)),
        fingerprint: FAKE_FINGERPRINT,
      });
      expect((await store.getBatch(running.id))?.added).toBe(1); // counted while running
      await writeFakeDocument(store, doc('b.md', 'beta text'));
      const changed = await store.interruptRunningBatches();
      expect(changed.map((b) => [b.id, b.status, b.added])).toEqual([[running.id, 'interrupted', 1]]);
      expect(await store.interruptRunningBatches()).toEqual([]);
    });

    it('a batch that changed nothing leaves no record', async () => {
      const d = doc('c.md', 'gamma');
      await writeFakeDocument(store, d);
      const before = (await store.listBatches()).length;
      const { status } = await writeFakeDocument(store, d);
      expect(status).toBe('unchanged');
      expect((await store.listBatches()).length).toBe(before);
    });

    it('undo refuses a running batch and a rolled-back one (saying when), inside its own transaction', async () => {
      const b = await store.beginBatch('live', { pid: 5, host: 'h' });
      await expect(store.rollbackBatch(b.id)).rejects.toSatisfy((e) => isQuiverError(e, 'CONFLICT'));
      b.status = 'done';
      b.added = 0;
      const { batch } = await writeFakeDocument(store, doc('d.md', 'delta'));
      await store.rollbackBatch(batch.id);
      await expect(store.rollbackBatch(batch.id)).rejects.toThrow(/already rolled back \(at /);
      await expect(store.rollbackBatch('nope')).rejects.toSatisfy((e) => isQuiverError(e, 'NOT_FOUND'));
    });

    it('removeDocuments takes live documents out in a batch that undo brings back', async () => {
      const a = doc('e.md', 'epsilon words');
      const f = doc('f.md', 'phi words');
      await writeFakeDocument(store, a);
      await writeFakeDocument(store, f);
      const b = await store.beginBatch('rm');
      expect(await store.removeDocuments(b.id, [a.id, 'missing'])).toBe(1);
      b.removed = 1;
      b.status = 'done';
      await store.finishBatch(b);
      expect(await store.getDocument(a.id)).toBeNull();
      expect((await store.listDocumentHashes()).map((d) => d.source)).toEqual(['f.md']);
      expect((await store.stats()).chunks).toBe(f.chunks.length);
      expect(await store.rollbackBatch(b.id)).toMatchObject({ removed: 0, restored: 1 });
      expect((await store.getDocument(a.id))?.source).toBe('e.md');
    });

    it('switchEmbedder moves meta, blobs and vectors in one step; health counts what is missing or stale', async () => {
      const d = doc('g.md', 'gamma ray text');
      await writeFakeDocument(store, d);
      await store.setMeta('embedder', FAKE_FINGERPRINT);
      expect(await store.health(FAKE_FINGERPRINT)).toMatchObject({
        chunksWithoutVector: 0,
        otherFingerprints: {},
      });
      const chunk = (await store.scanChunks(0, 10))[0]!;
      await store.putVectors('new:fp', [{ chunkId: chunk.id, vector: fakeVector('x') }]);
      await store.putBlob('pending', new Uint8Array([1]));
      expect((await store.health('new:fp')).chunksWithoutVector).toBe(d.chunks.length - 1);
      await store.switchEmbedder({
        to: 'new:fp',
        meta: { extra: 'yes' },
        blobs: { fitted: new Uint8Array([2]), pending: null },
        deleteFingerprint: FAKE_FINGERPRINT,
      });
      expect(await store.getMeta('embedder')).toBe('new:fp');
      expect(await store.getMeta('extra')).toBe('yes');
      expect(await store.getBlob('pending')).toBeNull();
      expect([...(await store.getBlob('fitted'))!]).toEqual([2]);
      expect((await store.stats()).vectors).toEqual({ 'new:fp': 1 });
      expect((await store.health('new:fp')).otherFingerprints).toEqual({});
    });
  });
}
