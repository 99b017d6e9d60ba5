// `quiver export` / `quiver import` (issue 20) end to end through the real Vault on real SQLite files:
// the demo corpus with history (an update, a removal), feedback, marks, transcripts and verdicts,
// exported to gzipped JSONL and imported into a new vault, which then reads, searches and undoes
// exactly as the original, with its vectors bit for bit. A malformed or cut file changes nothing.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isQuiverError, Vault, type ChunkRecord, type Store } from '../src/index.js';
import type { FeedbackRecord, TranscriptRecord } from '../src/store/store.js';
import { tempDir } from './helpers.js';

const tmp = tempDir('quiver-transfer-');
afterAll(() => tmp.cleanup());
const open = (file: string): Promise<Vault> =>
  Vault.open({ overrides: { vault: join(tmp.dir, file) }, env: {}, allowEmbedderMismatch: true });

const QUERIES = readFileSync('demo/queries.jsonl', 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => (JSON.parse(l) as { text: string }).text);

const feedback = (id: string, at: string, sectionId: string): FeedbackRecord => ({
  id,
  at,
  q: 'how long should espresso extract',
  askId: `ask-${id}`,
  sectionId,
  docId: sectionId.split('#')[0]!,
  rank: 1,
  score: 0.25,
  signal: 'up',
  label: 1,
  weight: 1,
});

const transcript = (id: string, at: string, cited: string): TranscriptRecord => ({
  id,
  at,
  question: 'How long is a shot?',
  configFingerprint: 'f'.repeat(64),
  config: { 'search.limit': 10 },
  prompt: { system: 'Use only the sections.', user: '[1] …' },
  answer: 'About 25 to 30 seconds [1].',
  cited: [cited],
  invalidCitations: [],
  generator: 'extractive:v1',
  usage: { promptTokens: 12, completionTokens: 3 },
  timings: { contextMs: 1.5 },
});

async function liveChunks(store: Store): Promise<ChunkRecord[]> {
  const out: ChunkRecord[] = [];
  for (let after = 0; ;) {
    const page = await store.scanChunks(after, 500);
    if (page.length === 0) return out;
    out.push(...page);
    after = page[page.length - 1]!.id;
  }
}

async function versionsOf(store: Store): Promise<unknown[]> {
  const out: unknown[] = [];
  for (let after = 0; ;) {
    const page = await store.scanDocumentVersions(after, 50);
    if (page.length === 0) return out;
    for (const v of page)
      out.push({
        supersededBy: v.supersededBy,
        document: v.document,
        sections: v.sections,
        chunks: v.chunks.map(({ id: _, ...c }) => c),
        vectors: v.vectors.length,
      });
    after = page[page.length - 1]!.position;
  }
}

describe('export → import: a lossless copy of a vault', () => {
  let source: Vault;
  let copy: Vault;
  const exported = join(tmp.dir, 'vault.jsonl.gz');
  let progress: [number, number][] = [];

  beforeAll(async () => {
    source = await open('a.db');
    await source.add(['demo/corpus']);
    await source.add([{ text: 'Green tea wants water at 80 °C.', source: 'tea' }]);
    await source.add([{ text: 'Green tea wants water at 75 °C, steeped two minutes.', source: 'tea' }]);
    const docs = await source.docs();
    const bikes = docs.find((d) => d.source.includes('bikes'))!;
    await source.rm([bikes.id]);
    const espresso = (await source.search('espresso extraction')).hits[0]!.sectionId;
    await source.store.addFeedback([
      feedback('f1', '2024-05-01T10:00:00.000Z', espresso),
      feedback('f2', '2024-05-01T10:00:00.000Z', espresso),
    ]);
    await source.store.putTranscript(transcript('t1', '2024-05-01T10:00:00.000Z', espresso));
    await source.store.putTranscript(transcript('t2', '2024-05-02T10:00:00.000Z', espresso));
    await source.store.setMark(docs[0]!.id, true, 'boilerplate');
    await source.store.putVerdict('claim|section', true);
    await source.store.setMeta('quality.learn', '1');
    await source.export(exported, { onProgress: (d, t) => progress.push([d, t]) });
    copy = await open('b.db');
    progress = [];
    await copy.import(exported, { groupSize: 7, onProgress: (d, t) => progress.push([d, t]) });
    await copy.close();
    copy = await open('b.db');
  }, 120_000);

  afterAll(async () => {
    await source?.close();
    await copy?.close();
  });

  it('writes gzipped JSON Lines: a header, the records, a trailer counting them', () => {
    const lines = gunzipSync(readFileSync(exported)).toString('utf8').trimEnd().split('\n');
    const first = JSON.parse(lines[0]!) as { type: string; version: number; schema: { store: string } };
    expect(first).toMatchObject({ type: 'quiver-export', version: 1, schema: { store: 'sqlite' } });
    expect(JSON.parse(lines[lines.length - 1]!)).toEqual({ type: 'end', records: lines.length - 2 });
    const types = new Set(lines.map((l) => (JSON.parse(l) as { type: string }).type));
    for (const t of ['meta', 'blob', 'batch', 'document', 'mark', 'feedback', 'transcript', 'verdict'])
      expect(types).toContain(t);
  });

  it('reports progress in groups up to every document version', () => {
    expect(progress.length).toBeGreaterThan(1);
    const [done, total] = progress[progress.length - 1]!;
    expect(done).toBe(total);
  });

  it('carries every document version, section and chunk text, batches, marks, feedback, transcripts, verdicts, meta', async () => {
    const [a, b] = [source.store, copy.store];
    expect(await versionsOf(b)).toEqual(await versionsOf(a));
    expect(await b.listDocuments()).toEqual(await a.listDocuments());
    expect(await b.listBatches(1000)).toEqual(await a.listBatches(1000));
    expect(await b.listMarks()).toEqual(await a.listMarks());
    expect(await b.listFeedback({ order: 'oldest' })).toEqual(await a.listFeedback({ order: 'oldest' }));
    expect(await b.listTranscripts()).toEqual(await a.listTranscripts());
    expect(await b.listVerdicts(null, 100)).toEqual(await a.listVerdicts(null, 100));
    expect(await b.listMeta()).toEqual(await a.listMeta());
    for (const name of await a.listBlobNames())
      expect(Buffer.from((await b.getBlob(name))!)).toEqual(Buffer.from((await a.getBlob(name))!));
  });

  it('reads back every vector bit for bit under the same embedder', async () => {
    expect(copy.embedder.id).toBe(source.embedder.id);
    const fp = source.embedder.id;
    const [ca, cb] = [await liveChunks(source.store), await liveChunks(copy.store)];
    expect(cb.map(({ id: _, ...c }) => c)).toEqual(ca.map(({ id: _, ...c }) => c));
    const va = await source.store.chunkVectors(
      ca.map((c) => c.id),
      fp,
    );
    const vb = await copy.store.chunkVectors(
      cb.map((c) => c.id),
      fp,
    );
    expect(va.size).toBe(ca.length);
    ca.forEach((c, i) => {
      const x = va.get(c.id)!;
      const y = vb.get(cb[i]!.id)!;
      expect(Buffer.from(y.buffer, y.byteOffset, y.byteLength)).toEqual(
        Buffer.from(x.buffer, x.byteOffset, x.byteLength),
      );
    });
  });

  it('answers every demo query with the same sections, scores and ranks', async () => {
    const [ca, cb] = [await liveChunks(source.store), await liveChunks(copy.store)];
    const chunkId = new Map(ca.map((c, i) => [c.id, cb[i]!.id]));
    for (const q of QUERIES) {
      const a = await source.search(q);
      const b = await copy.search(q);
      const strip = (hits: typeof a.hits) => hits.map(({ chunkIds: _, ...h }) => h);
      expect(strip(b.hits)).toEqual(strip(a.hits));
      expect(b.hits.map((h) => h.chunkIds)).toEqual(
        a.hits.map((h) => h.chunkIds.map((id) => chunkId.get(id))),
      );
    }
  });

  it('undo on the copy does what it does on the original: the removal, then the update', async () => {
    for (const v of [source, copy]) {
      await v.undo();
      await v.undo();
    }
    expect(await copy.store.listDocuments()).toEqual(await source.store.listDocuments());
    const tea = (await copy.docs()).filter((d) => d.source === 'tea');
    expect(tea).toHaveLength(1);
    expect((await copy.search('green tea 80')).hits.map((h) => h.sectionId)).toEqual(
      (await source.search('green tea 80')).hits.map((h) => h.sectionId),
    );
  });

  it('refuses a vault that is not empty with CONFLICT, changing nothing', async () => {
    const before = await copy.store.stats();
    const e = await copy.import(exported).catch((x: unknown) => x);
    expect(isQuiverError(e, 'CONFLICT')).toBe(true);
    expect((e as Error).message).toMatch(/not empty/);
    expect(await copy.store.stats()).toEqual(before);
  });

  it('a malformed line, a cut file or an unknown version is refused before anything is written', async () => {
    const lines = gunzipSync(readFileSync(exported)).toString('utf8').trimEnd().split('\n');
    const cases: [string, string[], string, RegExp][] = [
      [
        'bad.jsonl',
        [...lines.slice(0, -5), '{"type":"document"', ...lines.slice(-4)],
        'BAD_INPUT',
        /is not JSON/,
      ],
      ['cut.jsonl', lines.slice(0, -1), 'BAD_INPUT', /without its end record/],
      [
        'future.jsonl',
        [lines[0]!.replace('"version":1', '"version":99'), ...lines.slice(1)],
        'SCHEMA',
        /format version 99/,
      ],
      ['none.jsonl', ['{"type":"meta","key":"k","value":"v"}'], 'BAD_INPUT', /not a quiver export header/],
    ];
    for (const [file, content, code, message] of cases) {
      const path = join(tmp.dir, file);
      writeFileSync(path, `${content.join('\n')}\n`);
      const target = await open(`empty-${file}.db`);
      try {
        const e = await target.import(path).catch((x: unknown) => x);
        expect(isQuiverError(e) && e.code).toBe(code);
        expect((e as Error).message).toMatch(message);
        const stats = await target.store.stats();
        expect([stats.documents, stats.batches]).toEqual([0, 0]);
        expect(await target.store.listMeta()).toEqual({});
        expect(await target.store.listBlobNames()).toEqual([]);
      } finally {
        await target.close();
      }
    }
  });
});
