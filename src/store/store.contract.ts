import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isQuiverError } from '../errors.js';
import { buildDocument } from '../ingest/build.js';
import type { BuiltDocument, ParsedDocument } from '../ingest/parsed.js';
import { bm25Idf, bm25Term } from '../math/bm25.js';
import { normalize } from '../math/vector.js';
import { analyzeField } from '../text/analyzer.js';
import type { BatchRecord, DocKind } from '../types.js';
import type { FeedbackRecord, Store, TranscriptRecord, WriteStatus } from './store.js';

/**
 * A vector a store returns equals the one written within half precision: each value within
 * 2^-11 of its magnitude (plus 2^-24 for values near zero). Stores may keep vectors compactly
 * (the SQLite store writes binary16); search scores move by less than that.
 */
export function expectStoredVector(got: Float32Array | undefined, want: Float32Array): void {
  expect(got).toBeDefined();
  expect(got!.length).toBe(want.length);
  for (let i = 0; i < want.length; i++)
    expect(Math.abs(got![i]! - want[i]!)).toBeLessThanOrEqual(Math.abs(want[i]!) * 2 ** -11 + 2 ** -24);
}

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

/** The fingerprint the contract's fake vectors are stored under. */
export const FAKE_FINGERPRINT = 'test:fake:8:v1';
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

export function makeDoc(
  source: string,
  sections: { title: string; text: string; level?: number }[],
  kind: DocKind = 'md',
): BuiltDocument {
  const parsed: ParsedDocument = {
    source,
    title: sections[0]?.title ?? source,
    kind,
    meta: {},
    pages: null,
    sections: sections.map((s, i) => ({
      level: s.level ?? (i === 0 ? 0 : 1),
      title: s.title,
      segments: [{ page: null, text: s.text }],
    })),
  };
  return buildDocument(parsed);
}

/** Write `doc` in a batch of its own with `fakeVector` vectors under the contract's fingerprint. */
export async function writeFakeDocument(
  store: Store,
  doc: BuiltDocument,
  batchLabel = 'b',
): Promise<{ status: WriteStatus; batch: BatchRecord }> {
  const batch = await store.beginBatch(batchLabel);
  const status = await store.writeDocument({
    batchId: batch.id,
    document: doc,
    vectors: doc.chunks.map((c) => fakeVector(c.text)),
    fingerprint: FAKE_FINGERPRINT,
  });
  batch.status = 'done';
  if (status === 'added') batch.added++;
  await store.finishBatch(batch);
  return { status, batch };
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

    const write = (doc: BuiltDocument, batchLabel = 'b') => writeFakeDocument(store, doc, batchLabel);

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

    it('records each section’s language and lists the languages of the live sections', async () => {
      expect(await store.languages()).toEqual([]);
      const uk = makeDoc('notes/bees.md', [
        { title: 'Бджоли', text: 'Бджоли збирають нектар з квітів липи, а пасічник оглядає вулики щотижня.' },
      ]);
      await write(coffee());
      await write(uk);
      expect((await store.getDocument(uk.id))?.lang).toBe('uk');
      expect((await store.listSections(uk.id)).map((s) => s.lang)).toEqual(['uk']);
      expect(await store.languages()).toEqual(['en', 'uk']);
    });

    it('reads several documents in one call, in the order asked, skipping unknown ids and repeats', async () => {
      const a = coffee();
      const b = makeDoc('notes/tea.md', [{ title: 'Tea', text: 'Steep green tea at 80 degrees.' }]);
      await write(a);
      await write(b);
      const got = await store.getDocuments([b.id, 'nope', a.id, b.id]);
      expect(got.map((d) => d.id)).toEqual([b.id, a.id]);
      expect(got[1]?.title).toBe((await store.getDocument(a.id))?.title);
      expect(await store.getDocuments([])).toEqual([]);
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

    it('scores BM25 exactly as store.ts defines it: field weights, idf, length normalisation, phrases', async () => {
      // Three documents whose analysed terms (src/text/analyzer.ts) are known; every expected score
      // is computed here from the formula (src/math/bm25.ts), so each backend is checked by number.
      const docs = [
        makeDoc('s/one.md', [
          { title: 'Grinding coffee', text: "Grind the coffee finer; the barista's grind." },
        ]),
        makeDoc('s/two.md', [{ title: 'Tea', text: 'Steep green tea. Coffee is another drink entirely.' }]),
        makeDoc('s/three.md', [{ title: 'Bees', text: 'Honey bees swarm in spring.' }]),
      ];
      for (const d of docs) await write(d);
      const weights = { body: 1, title: 3, heading: 0.5 };
      const fields = docs.map((d) => [d.sections[0]!.text, d.title, ''].map((t) => analyzeField(t, null)));
      const rowsN = fields.length;
      const lengths = fields.map((f) => f.flat().length);
      const avg = lengths.reduce((a, b) => a + b, 0) / rowsN;
      const count = (f: string[][], phrase: string[]): number[] =>
        f.map((terms) => terms.filter((_, i) => phrase.every((p, j) => terms[i + j] === p)).length);
      const expected = (phrases: string[][], mode: 'any' | 'all'): { id: string; score: number }[] => {
        const out: { id: string; score: number }[] = [];
        const perPhrase = phrases.map((p) => fields.map((f) => count(f, p)));
        const hits = perPhrase.map((rows) => rows.filter((c) => c.some((x) => x > 0)).length);
        fields.forEach((_, r) => {
          let score = 0;
          let matched = 0;
          phrases.forEach((_, i) => {
            const [b, t, h] = perPhrase[i]![r]!;
            if (b! + t! + h! === 0) return;
            matched++;
            const f = weights.body * b! + weights.title * t! + weights.heading * h!;
            score += bm25Term(bm25Idf(rowsN, hits[i]!), f, lengths[r]!, avg);
          });
          if (matched > 0 && (mode === 'any' || matched === phrases.length))
            out.push({ id: `${docs[r]!.id}#0`, score });
        });
        return out.sort((a, b) => b.score - a.score);
      };
      const check = async (terms: string[], mode: 'any' | 'all', phrases: string[][]): Promise<void> => {
        const got = await store.lexicalSearch({ terms, mode, limit: 10, weights });
        const want = expected(phrases, mode);
        expect(got.map((h) => h.sectionId)).toEqual(want.map((w) => w.id));
        got.forEach((h, i) => expect(h.score).toBeCloseTo(want[i]!.score, 9));
      };
      await check(['coffee'], 'any', [['coffe']]);
      await check(['grinding', 'honey'], 'any', [['grind'], ['honei']]);
      await check(['coffee', 'tea'], 'all', [['coffe'], ['tea']]);
      await check(["barista's", 'coffee'], 'any', [['barista', 's'], ['coffe']]);
    });

    it('lexical search finds stemmed terms, weights the title, and returns nothing for no terms', async () => {
      await write(coffee());
      await write(
        makeDoc('notes/bees.md', [
          { title: 'Bees', text: 'Honey bees swarm in spring when the colony grows.' },
        ]),
      );
      const hits = await store.lexicalSearch({ terms: ['extracting'], mode: 'any', limit: 10, weights: W });
      expect(hits.map((h) => h.sectionId.split('#')[1])).toEqual(['1']);
      expect(hits[0]!.score).toBeGreaterThan(0);
      expect(await store.lexicalSearch({ terms: [], mode: 'any', limit: 10, weights: W })).toEqual([]);
      const all = await store.lexicalSearch({
        terms: ['espresso', 'honey'],
        mode: 'all',
        limit: 10,
        weights: W,
      });
      expect(all).toEqual([]);
      const any = await store.lexicalSearch({
        terms: ['espresso', 'honey'],
        mode: 'any',
        limit: 10,
        weights: W,
      });
      expect(new Set(any.map((h) => h.docId)).size).toBe(2);
      const phrase = await store.lexicalSearch({
        terms: ['finer', 'grind'],
        mode: 'phrase',
        limit: 10,
        weights: W,
      });
      expect(phrase).toHaveLength(1);
      expect(
        await store.lexicalSearch({ terms: ['grind', 'finer'], mode: 'phrase', limit: 10, weights: W }),
      ).toEqual([]);
    });

    it('applies filters inside both legs (kind, source prefix, doc ids)', async () => {
      const md = coffee();
      const txt = makeDoc(
        'web/coffee.txt',
        [{ title: 'Coffee page', text: 'Espresso extraction takes seconds.' }],
        'txt',
      );
      await write(md);
      await write(txt);
      const lex = await store.lexicalSearch({
        terms: ['espresso'],
        mode: 'any',
        limit: 10,
        weights: W,
        filter: { kinds: ['txt'] },
      });
      expect(lex.map((h) => h.docId)).toEqual([txt.id]);
      const vec = await store.vectorSearch({
        vector: fakeVector('espresso extraction'),
        fingerprint: FAKE_FINGERPRINT,
        limit: 10,
        filter: { sourcePrefix: 'notes/' },
      });
      expect(new Set(vec.map((h) => h.docId))).toEqual(new Set([md.id]));
      const byId = await store.vectorSearch({
        vector: fakeVector('espresso'),
        fingerprint: FAKE_FINGERPRINT,
        limit: 10,
        filter: { docIds: [txt.id] },
      });
      expect(new Set(byId.map((h) => h.docId))).toEqual(new Set([txt.id]));
    });

    it('termStats counts live sections and the sections holding each stem, following updates', async () => {
      const a = makeDoc('stats/a.md', [
        { title: 'Kilns', text: 'Firing kilns heat clay.' },
        { title: 'Glazes', text: 'Glazes melt in kilns.' },
      ]);
      await write(a);
      await write(makeDoc('stats/b.md', [{ title: 'Wheels', text: 'Throwing on the wheel.' }]));
      const s = await store.termStats(['kiln', 'glaze', 'wheel', 'zzzunknown', 'kiln']);
      expect(s.docs).toBe(3);
      expect(s.df.get('kiln')).toBe(2);
      expect(s.df.get('glaze')).toBe(1);
      expect(s.df.get('wheel')).toBe(1);
      expect(s.df.has('zzzunknown')).toBe(false);
      // An update replaces the old version's sections: they no longer count.
      await write(makeDoc('stats/a.md', [{ title: 'Kilns', text: 'Electric kilns only.' }]));
      const t = await store.termStats(['kiln', 'glaze']);
      expect(t.docs).toBe(2);
      expect(t.df.get('kiln')).toBe(1);
      expect(t.df.has('glaze')).toBe(false);
    });

    it('a filtered lexical ranking is the unfiltered ranking restricted to the filter, at any selectivity', async () => {
      // 90 documents whose BM25 order is known (more repetitions of "kiln" rank higher); the
      // filters keep most of them (the over-fetched top rows suffice) or only the weakest few
      // (fewer than the limit survive the over-fetch, so the exact path must run).
      for (let i = 0; i < 90; i++) {
        const rare = i < 3;
        await write(
          makeDoc(`${rare ? 'rare' : 'common'}/kiln-${String(i).padStart(2, '0')}.md`, [
            {
              title: `Note ${i}`,
              text: `${'kiln '.repeat(rare ? 1 : 2 + (i % 6))} pottery glaze number ${i}.`,
            },
          ]),
        );
      }
      const all = await store.lexicalSearch({ terms: ['kiln'], mode: 'any', limit: 100, weights: W });
      expect(all).toHaveLength(90);
      const sourceOf = new Map((await store.listDocuments()).map((d) => [d.id, d.source] as const));
      for (const prefix of ['common/', 'rare/']) {
        const expected = all.filter((h) => sourceOf.get(h.docId)!.startsWith(prefix)).slice(0, 5);
        const got = await store.lexicalSearch({
          terms: ['kiln'],
          mode: 'any',
          limit: 5,
          weights: W,
          filter: { sourcePrefix: prefix },
        });
        expect(got).toEqual(expected);
      }
    });

    it('vector search orders by cosine, keeps fingerprints apart and never returns zero vectors', async () => {
      const doc = makeDoc('a.md', [
        { title: 'A', text: 'aaaa aaaa' },
        { title: 'B', text: 'bbbb bbbb' },
        { title: 'Z', text: '1234 5678 ----' },
      ]);
      await write(doc);
      const hits = await store.vectorSearch({
        vector: fakeVector('aaaa'),
        fingerprint: FAKE_FINGERPRINT,
        limit: 10,
      });
      expect(hits[0]?.sectionId).toBe(`${doc.id}#0`);
      expect(hits.every((h) => h.sectionId !== `${doc.id}#2`)).toBe(true);
      expect(
        await store.vectorSearch({ vector: fakeVector('aaaa'), fingerprint: 'other:1:8:v1', limit: 10 }),
      ).toEqual([]);
    });

    it('a noise mark removes a document from both legs at once; includeNoisy brings it back', async () => {
      const doc = coffee();
      await write(doc);
      await store.setMark(doc.id, true, 'test');
      expect(await store.lexicalSearch({ terms: ['espresso'], mode: 'any', limit: 10, weights: W })).toEqual(
        [],
      );
      expect(
        await store.vectorSearch({
          vector: fakeVector('espresso'),
          fingerprint: FAKE_FINGERPRINT,
          limit: 10,
        }),
      ).toEqual([]);
      const inc = await store.lexicalSearch({
        terms: ['espresso'],
        mode: 'any',
        limit: 10,
        weights: W,
        filter: { includeNoisy: true },
      });
      expect(inc.length).toBeGreaterThan(0);
      await store.setMark(doc.id, false, null);
      expect(
        (await store.lexicalSearch({ terms: ['espresso'], mode: 'any', limit: 10, weights: W })).length,
      ).toBeGreaterThan(0);
      expect((await store.listMarks()).map((m) => [m.docId, m.noisy])).toEqual([[doc.id, false]]);
    });

    it('rolls back an update exactly: the previous version comes back in both legs', async () => {
      const v1 = coffee();
      await write(v1, 'first');
      const v2 = makeDoc('notes/coffee.md', [
        { title: 'Coffee', text: 'Cold brew steeps for twelve hours.' },
      ]);
      const { batch } = await write(v2, 'second');
      expect(
        (await store.lexicalSearch({ terms: ['espresso'], mode: 'any', limit: 10, weights: W })).length,
      ).toBe(0);
      const r = await store.rollbackBatch(batch.id);
      expect(r).toEqual({ batchId: batch.id, removed: 1, restored: 1 });
      expect((await store.getDocument(v1.id))?.contentHash).toBe(v1.contentHash);
      expect(
        (await store.lexicalSearch({ terms: ['espresso'], mode: 'any', limit: 10, weights: W })).length,
      ).toBe(1);
      expect(
        await store.lexicalSearch({ terms: ['cold', 'brew'], mode: 'all', limit: 10, weights: W }),
      ).toEqual([]);
      const vec = await store.vectorSearch({
        vector: fakeVector('espresso shot'),
        fingerprint: FAKE_FINGERPRINT,
        limit: 10,
      });
      expect(new Set(vec.map((h) => h.sectionId))).toEqual(
        new Set([`${v1.id}#0`, `${v1.id}#1`, `${v1.id}#2`]),
      );
      expect((await store.getBatch(batch.id))?.status).toBe('rolled_back');
    });

    it('rolls back an add completely, and refuses to roll back a batch that is not the newest', async () => {
      const first = await write(coffee(), 'first');
      await write(makeDoc('b.md', [{ title: 'B', text: 'Bees make honey.' }]), 'second');
      await expect(store.rollbackBatch(first.batch.id)).rejects.toSatisfy((e: unknown) =>
        isQuiverError(e, 'CONFLICT'),
      );
      const batches = await store.listBatches();
      await store.rollbackBatch(batches[0]!.id);
      await store.rollbackBatch(first.batch.id);
      const s = await store.stats();
      expect([s.documents, s.sections, s.chunks]).toEqual([0, 0, 0]);
      expect(
        await store.lexicalSearch({ terms: ['espresso', 'honey'], mode: 'any', limit: 10, weights: W }),
      ).toEqual([]);
      await expect(store.rollbackBatch(first.batch.id)).rejects.toSatisfy((e: unknown) =>
        isQuiverError(e, 'CONFLICT'),
      );
      await expect(store.rollbackBatch('nope')).rejects.toSatisfy((e: unknown) =>
        isQuiverError(e, 'NOT_FOUND'),
      );
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
      await store.putVectors(
        'other:1:8:v1',
        chunks.map((c) => ({ chunkId: c.id, vector: fakeVector('zzz') })),
      );
      expect((await store.stats()).vectors).toEqual({ [FAKE_FINGERPRINT]: 3, 'other:1:8:v1': 3 });
      const got = await store.chunkVectors([chunks[0]!.id], FAKE_FINGERPRINT);
      expectStoredVector(got.get(chunks[0]!.id), fakeVector(chunks[0]!.text));
    });

    // Backup is a capability: only a store that declares it (and persists to a file) runs this.
    maybe('backup')('writes a backup that opens as a store with the same documents', async () => {
      if (store.backup === undefined || options.reopen === undefined || store.location === ':memory:') return;
      const doc = coffee();
      await write(doc);
      const dest = `${store.location}.backup-${Date.now()}`;
      await store.backup(dest);
      const other = await options.reopen({ ...store, location: dest, close: async () => undefined } as Store);
      expect((await other.getDocument(doc.id))?.contentHash).toBe(doc.contentHash);
      await other.close();
    });

    it('finds documents by id, source or title fragment', async () => {
      const doc = coffee();
      await write(doc);
      expect((await store.findDocuments(doc.id)).map((d) => d.id)).toEqual([doc.id]);
      expect((await store.findDocuments('notes/coffee.md')).map((d) => d.id)).toEqual([doc.id]);
      expect((await store.findDocuments('offe')).map((d) => d.id)).toEqual([doc.id]);
      expect(await store.findDocuments('100%_')).toEqual([]);
    });

    // ---- quality loop: marks, feedback, transcripts, verdicts (migration 2) ----

    it('a mark survives re-ingest of its document (unchanged and updated)', async () => {
      const doc = coffee();
      await write(doc);
      await store.setMark(doc.id, true, 'footer');
      await write(doc);
      const changed = makeDoc('notes/coffee.md', [
        { title: 'Coffee', text: 'Espresso, revised: pull for 28 seconds.' },
      ]);
      expect((await write(changed)).status).toBe('updated');
      expect((await store.listMarks()).map((m) => [m.docId, m.noisy, m.reason])).toEqual([
        [doc.id, true, 'footer'],
      ]);
      expect(await store.lexicalSearch({ terms: ['espresso'], mode: 'any', limit: 10, weights: W })).toEqual(
        [],
      );
    });

    it('a mark survives undo of another batch, and undo of the batch that updated its document', async () => {
      const doc = coffee();
      await write(doc, 'first');
      await store.setMark(doc.id, true, null);
      const other = await write(
        makeDoc('b.md', [{ title: 'Bees', text: 'Espresso-coloured bees make honey.' }]),
        'second',
      );
      await store.rollbackBatch(other.batch.id);
      const upd = await write(
        makeDoc('notes/coffee.md', [{ title: 'Coffee', text: 'Espresso again.' }]),
        'third',
      );
      await store.rollbackBatch(upd.batch.id);
      expect((await store.listMarks()).map((m) => [m.docId, m.noisy])).toEqual([[doc.id, true]]);
      expect(await store.lexicalSearch({ terms: ['espresso'], mode: 'any', limit: 10, weights: W })).toEqual(
        [],
      );
      const vec = await store.vectorSearch({
        vector: fakeVector('espresso'),
        fingerprint: FAKE_FINGERPRINT,
        limit: 10,
      });
      expect(vec.filter((h) => h.docId === doc.id)).toEqual([]);
    });

    const fb = (id: string, at: string, over: Partial<FeedbackRecord> = {}): FeedbackRecord => ({
      id,
      at,
      q: 'how long is an espresso shot',
      askId: 'ask1',
      sectionId: 'd1#1',
      docId: 'd1',
      rank: 1,
      score: 0.5,
      signal: 'cited',
      label: 1,
      weight: 1,
      ...over,
    });

    it('appends feedback and lists it newest or oldest first, by document, with a limit', async () => {
      expect(await store.listFeedback()).toEqual([]);
      const t = '2024-05-01T10:00:00.000Z';
      const rows = [
        fb('a', t),
        fb('b', t, {
          sectionId: 'd2#0',
          docId: 'd2',
          rank: 2,
          score: null,
          signal: 'shown',
          label: 0,
          weight: 0.35,
        }),
        fb('c', '2024-05-02T10:00:00.000Z', {
          askId: 'ask2',
          q: '',
          sectionId: null,
          docId: null,
          rank: null,
        }),
      ];
      await store.addFeedback(rows);
      expect(await store.listFeedback({ order: 'oldest' })).toEqual(rows);
      // Same timestamp: insertion order breaks the tie, reversed for newest-first.
      expect((await store.listFeedback()).map((r) => r.id)).toEqual(['c', 'b', 'a']);
      expect((await store.listFeedback({ docId: 'd2' })).map((r) => r.id)).toEqual(['b']);
      expect((await store.listFeedback({ limit: 1 })).map((r) => r.id)).toEqual(['c']);
      expect((await store.listFeedback({ limit: 2, order: 'oldest' })).map((r) => r.id)).toEqual(['a', 'b']);
      await store.addFeedback([]);
      expect(await store.listFeedback()).toHaveLength(3);
    });

    it('refuses a duplicate feedback id with CONFLICT and writes none of that call', async () => {
      await store.addFeedback([fb('a', '2024-05-01T10:00:00.000Z')]);
      await expect(
        store.addFeedback([fb('z', '2024-05-01T11:00:00.000Z'), fb('a', '2024-05-01T11:00:00.000Z')]),
      ).rejects.toSatisfy((e: unknown) => isQuiverError(e, 'CONFLICT'));
      expect((await store.listFeedback()).map((r) => r.id)).toEqual(['a']);
    });

    const transcript = (id: string, at: string): TranscriptRecord => ({
      id,
      at,
      question: 'How long is a shot?',
      configFingerprint: 'f'.repeat(64),
      config: { 'search.limit': 10, 'generator.provider': 'extractive' },
      prompt: { system: 'Use only the sections.', user: '[1] …\n\nQuestion: How long is a shot?' },
      answer: 'About 25 to 30 seconds [1].',
      cited: ['d1#1'],
      invalidCitations: [4],
      generator: 'extractive:v1',
      usage: { promptTokens: 120, completionTokens: 9 },
      timings: { contextMs: 3.5, generateMs: 1.25 },
    });

    it('stores transcripts, gets one by id, lists newest first with limit and offset', async () => {
      expect(await store.getTranscript('nope')).toBeNull();
      expect(await store.listTranscripts()).toEqual([]);
      const a = transcript('t1', '2024-05-01T10:00:00.000Z');
      const b = transcript('t2', '2024-05-02T10:00:00.000Z');
      await store.putTranscript(a);
      await store.putTranscript(b);
      expect(await store.getTranscript('t1')).toEqual(a);
      expect((await store.listTranscripts()).map((t) => t.id)).toEqual(['t2', 't1']);
      expect((await store.listTranscripts({ limit: 1, offset: 1 })).map((t) => t.id)).toEqual(['t1']);
      await expect(store.putTranscript(a)).rejects.toSatisfy((e: unknown) => isQuiverError(e, 'CONFLICT'));
    });

    it('caches judge verdicts by key, overwriting on put', async () => {
      expect(await store.getVerdict('k')).toBeNull();
      await store.putVerdict('k', true);
      expect(await store.getVerdict('k')).toBe(true);
      await store.putVerdict('k', false);
      expect(await store.getVerdict('k')).toBe(false);
      expect(await store.getVerdict('other')).toBeNull();
    });

    maybe('quality state persists across reopen')('quality state persists across reopen', async () => {
      if (options.reopen === undefined) return;
      await store.addFeedback([fb('a', '2024-05-01T10:00:00.000Z')]);
      await store.putTranscript(transcript('t1', '2024-05-01T10:00:00.000Z'));
      await store.putVerdict('k', true);
      await store.setMark('d1', false, 'keeper');
      store = await options.reopen(store);
      expect((await store.listFeedback()).map((r) => r.id)).toEqual(['a']);
      expect((await store.getTranscript('t1'))?.cited).toEqual(['d1#1']);
      expect(await store.getVerdict('k')).toBe(true);
      expect((await store.listMarks()).map((m) => [m.docId, m.noisy, m.reason])).toEqual([
        ['d1', false, 'keeper'],
      ]);
    });

    maybe('persists across reopen')('persists across reopen', async () => {
      if (options.reopen === undefined) return;
      const doc = coffee();
      await write(doc);
      store = await options.reopen(store);
      expect((await store.getDocument(doc.id))?.title).toBe('Coffee');
      expect(
        (await store.lexicalSearch({ terms: ['espresso'], mode: 'any', limit: 10, weights: W })).length,
      ).toBe(1);
    });
  });
}
