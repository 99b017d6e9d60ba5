// The PostgreSQL store's side tables (meta, blobs, batches, the writer slot, marks, feedback,
// transcripts, verdicts) against a real database: each behaviour the Store contract suites ask of
// them (store.contract.ts, store-writer.contract.ts), plus what only several processes can show
// (concurrent batches and writer claims, each from a pool of its own).
import type pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isQuiverError } from '../../errors.js';
import type { BatchRecord } from '../../types.js';
import type { FeedbackRecord, TranscriptRecord, WriterClaim } from '../store.js';
import { createTestDatabase, describePostgres, type TestDatabase } from './_test-database.js';
import {
  importBatches,
  insertBatch,
  interruptRunning,
  selectBatch,
  selectBatches,
  updateFinishedBatch,
} from './batches.js';
import { createPool, transaction } from './connection.js';
import {
  applyMetaAndBlobs,
  deleteBlob,
  getBlob,
  getMeta,
  listBlobNames,
  listMeta,
  putBlob,
  setMeta,
} from './meta-blobs.js';
import {
  addFeedback,
  getTranscript,
  getVerdict,
  hasNoisyMarks,
  importMarks,
  listFeedback,
  listMarks,
  listTranscripts,
  listVerdicts,
  putTranscript,
  putVerdict,
  setMark,
} from './quality-tables.js';
import { migrate } from './schema.js';
import { claimWriter, readWriter, releaseWriter, touchWriter } from './writer-slot.js';

describePostgres('PostgreSQL side tables', () => {
  let db: TestDatabase;
  let pool: pg.Pool;

  beforeAll(async () => {
    db = await createTestDatabase();
    pool = createPool(db.url);
    const client = await pool.connect();
    try {
      await migrate(client);
    } finally {
      client.release();
    }
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });
  beforeEach(async () => {
    await pool.query(
      'TRUNCATE meta, blobs, batches, writer, marks, feedback, transcripts, verdicts, documents RESTART IDENTITY CASCADE',
    );
  });

  /** `n` pools of one connection each: stand-ins for separate processes. */
  async function withPools<T>(n: number, fn: (pools: pg.Pool[]) => Promise<T>): Promise<T> {
    const pools = Array.from({ length: n }, () => createPool(db.url, { max: 1 }));
    try {
      return await fn(pools);
    } finally {
      await Promise.all(pools.map((p) => p.end()));
    }
  }

  /** A document row written by batch `batchId`, superseded by batch `supersededBy` when given. */
  async function docRow(id: string, batchId: string, supersededBy: string | null = null): Promise<void> {
    await pool.query(
      `INSERT INTO documents(id, source, title, kind, content_hash, added_at, updated_at, batch_id, superseded_by)
       VALUES ($1, $2, $1, 'md', 'h', 't', 't', $3, $4)`,
      [id, `${id}.md`, batchId, supersededBy],
    );
  }

  describe('meta and blobs', () => {
    it('keeps meta by key, overwriting, and null for a missing key', async () => {
      await setMeta(pool, 'k', 'v1');
      await setMeta(pool, 'k', 'v2');
      expect(await getMeta(pool, 'k')).toBe('v2');
      expect(await getMeta(pool, 'missing')).toBeNull();
    });

    it('keeps blobs byte for byte (a view into a larger buffer too), replaces and deletes them once', async () => {
      await putBlob(pool, 'model', new Uint8Array([1, 2, 3]));
      expect([...((await getBlob(pool, 'model')) ?? [])]).toEqual([1, 2, 3]);
      const big = new Uint8Array([9, 0, 255, 7, 9]);
      await putBlob(pool, 'model', big.subarray(1, 4));
      expect([...((await getBlob(pool, 'model')) ?? [])]).toEqual([0, 255, 7]);
      expect(await deleteBlob(pool, 'model')).toBe(true);
      expect(await getBlob(pool, 'model')).toBeNull();
      expect(await deleteBlob(pool, 'model')).toBe(false);
    });

    it('applyMetaAndBlobs writes meta and blobs, deletes null blobs, and is part of the caller’s transaction', async () => {
      await putBlob(pool, 'pending', new Uint8Array([1]));
      await setMeta(pool, 'embedder', 'old');
      await expect(
        transaction(pool, 'switch', async (client) => {
          await applyMetaAndBlobs(client, { extra: 'no' }, { fitted: new Uint8Array([5]), pending: null });
          throw new Error('fails after the writes');
        }),
      ).rejects.toThrow(/fails after/);
      expect(await getMeta(pool, 'extra')).toBeNull();
      expect([...((await getBlob(pool, 'pending')) ?? [])]).toEqual([1]);
      await transaction(pool, 'switch', async (client) => {
        await applyMetaAndBlobs(
          client,
          { extra: 'yes', embedder: 'new' },
          { fitted: new Uint8Array([2]), other: new Uint8Array([]), pending: null },
        );
      });
      expect(await getMeta(pool, 'embedder')).toBe('new');
      expect(await getMeta(pool, 'extra')).toBe('yes');
      expect(await getBlob(pool, 'pending')).toBeNull();
      expect([...((await getBlob(pool, 'fitted')) ?? [])]).toEqual([2]);
      expect([...((await getBlob(pool, 'other')) ?? [1])]).toEqual([]);
      await applyMetaAndBlobs(pool, {}, {}); // nothing to do: no statement
    });

    it('lists meta (without the backend’s bookkeeping) and blob names in code-point order', async () => {
      for (const k of ['b', 'B', 'a', '_rev']) await setMeta(pool, k, `v${k}`);
      expect(await listMeta(pool, (k) => k.startsWith('_'))).toEqual({ B: 'vB', a: 'va', b: 'vb' });
      expect(Object.keys(await listMeta(pool))).toEqual(['B', '_rev', 'a', 'b']);
      for (const n of ['upload:b', 'Z', 'upload:a', 'é']) await putBlob(pool, n, new Uint8Array([1]));
      expect(await listBlobNames(pool)).toEqual(['Z', 'upload:a', 'upload:b', 'é']);
    });
  });

  describe('batches', () => {
    it('begins a running batch with its owner; while running its counts come from what it wrote', async () => {
      const b = await insertBatch(pool, 'crashed', { pid: 77, host: 'h' });
      expect(b).toMatchObject({
        status: 'running',
        label: 'crashed',
        owner: { pid: 77, host: 'h' },
        added: 0,
      });
      expect(b.id).toMatch(/^[0-9a-f]{12}$/);
      expect(await selectBatch(pool, b.id)).toEqual(b);
      const prev = await insertBatch(pool, 'earlier', null);
      await docRow('kept', prev.id, b.id); // an older version of `kept`, superseded by b
      await docRow('kept', b.id); // b's update of it
      await docRow('new1', b.id);
      await docRow('new2', b.id);
      expect(await selectBatch(pool, b.id)).toMatchObject({ added: 2, updated: 1 });
      expect((await selectBatch(pool, prev.id))?.owner).toBeNull();
      expect(await selectBatch(pool, 'nope')).toBeNull();
    });

    it('finishes a batch: running becomes done with its counts and errors; a null finish time becomes now', async () => {
      const b = await insertBatch(pool, 'b', null);
      await docRow('a', b.id);
      const errors = [{ source: 'x.pdf', code: 'CORRUPT_FILE', message: 'bad' }];
      await updateFinishedBatch(pool, { ...b, added: 1, failed: 1, unchanged: 4, errors });
      const got = await selectBatch(pool, b.id);
      expect(got).toMatchObject({ status: 'done', added: 1, failed: 1, unchanged: 4, errors });
      expect(got?.finishedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
      const c = await insertBatch(pool, 'c', null);
      await updateFinishedBatch(pool, {
        ...c,
        status: 'rolled_back',
        removed: 2,
        finishedAt: '2024-01-01T00:00:00.000Z',
      });
      expect(await selectBatch(pool, c.id)).toMatchObject({
        status: 'rolled_back',
        removed: 2,
        finishedAt: '2024-01-01T00:00:00.000Z',
      });
    });

    it('a batch that changed nothing leaves no record, unless it was interrupted or wrote a row after all', async () => {
      const empty = await insertBatch(pool, 'empty', null);
      await updateFinishedBatch(pool, { ...empty, unchanged: 3 });
      expect(await selectBatch(pool, empty.id)).toBeNull();
      const cut = await insertBatch(pool, 'cut', null);
      await updateFinishedBatch(pool, { ...cut, status: 'interrupted' });
      expect((await selectBatch(pool, cut.id))?.status).toBe('interrupted');
      const wrote = await insertBatch(pool, 'wrote', null);
      await docRow('w', wrote.id);
      await updateFinishedBatch(pool, wrote);
      expect((await selectBatch(pool, wrote.id))?.status).toBe('done');
      const superseded = await insertBatch(pool, 'superseded', null);
      await docRow('s', wrote.id, superseded.id);
      await updateFinishedBatch(pool, superseded);
      expect((await selectBatch(pool, superseded.id))?.status).toBe('done');
    });

    it('interruptRunning marks only running batches, oldest first, with what they wrote', async () => {
      const a = await insertBatch(pool, 'a', { pid: 1, host: 'h' });
      const done = await insertBatch(pool, 'done', null);
      await docRow('d', done.id);
      await updateFinishedBatch(pool, { ...done, added: 1 });
      const c = await insertBatch(pool, 'c', { pid: 2, host: 'h' });
      await docRow('x', a.id);
      const changed = await interruptRunning(pool);
      expect(changed.map((b) => [b.id, b.status, b.added])).toEqual([
        [a.id, 'interrupted', 1],
        [c.id, 'interrupted', 0],
      ]);
      expect(changed[0]?.finishedAt).not.toBeNull();
      expect(await interruptRunning(pool)).toEqual([]);
      expect((await selectBatch(pool, done.id))?.status).toBe('done');
    });

    it('lists the newest batches first, up to the limit', async () => {
      const ids: string[] = [];
      for (const l of ['1', '2', '3']) ids.push((await insertBatch(pool, l, null)).id);
      expect((await selectBatches(pool, 50)).map((b) => b.id)).toEqual([...ids].reverse());
      expect((await selectBatches(pool, 2)).map((b) => b.label)).toEqual(['3', '2']);
    });

    it('numbers batches begun at once by several processes without a collision', async () => {
      const made = await withPools(5, (pools) =>
        Promise.all(
          pools.flatMap((p, i) => Array.from({ length: 6 }, (_, j) => insertBatch(p, `p${i}-${j}`, null))),
        ),
      );
      const { rows } = await pool.query<{ n: number; seqs: number }>(
        'SELECT COUNT(*) AS n, COUNT(DISTINCT seq) AS seqs FROM batches',
      );
      expect(rows[0]).toEqual({ n: 30, seqs: 30 });
      expect((await selectBatches(pool, 100)).length).toBe(made.length);
    });

    it('imports batches as given after those already there; a known id is a CONFLICT and writes none', async () => {
      const there = await insertBatch(pool, 'there', null);
      const rec = (id: string, label: string): BatchRecord => ({
        id,
        startedAt: '2024-01-01T00:00:00.000Z',
        finishedAt: '2024-01-01T00:01:00.000Z',
        status: 'done',
        label,
        owner: { pid: 3, host: 'old' },
        added: 2,
        updated: 1,
        unchanged: 0,
        removed: 0,
        failed: 1,
        errors: [{ source: 's', code: 'EMPTY_FILE', message: 'm' }],
      });
      await importBatches(pool, [rec('i1', 'first'), rec('i2', 'second')]);
      expect((await selectBatches(pool, 10)).map((b) => b.id)).toEqual(['i2', 'i1', there.id]);
      expect(await selectBatch(pool, 'i1')).toEqual(rec('i1', 'first'));
      const err = await importBatches(pool, [rec('i3', 'x'), rec('i1', 'again')]).catch((e: unknown) => e);
      expect(isQuiverError(err, 'CONFLICT')).toBe(true);
      expect((err as Error).message).toMatch(/batch i1 already exists/);
      expect(await selectBatch(pool, 'i3')).toBeNull();
      await importBatches(pool, []);
    });
  });

  describe('writer slot', () => {
    const claim = (pid: number, command = 'add x'): WriterClaim => ({
      pid,
      host: 'h',
      procStart: '1',
      command,
    });

    it('gives the slot to one claimant at a time; a dead holder is taken over; release frees it', async () => {
      expect(await claimWriter(pool, claim(1), () => true)).toBeNull();
      expect(await claimWriter(pool, claim(1), () => true)).toBeNull(); // already ours
      const holder = await claimWriter(pool, claim(2), () => true);
      expect(holder).toMatchObject({ pid: 1, host: 'h', procStart: '1', command: 'add x', batchId: null });
      await touchWriter(pool, claim(1), 'b1');
      expect((await readWriter(pool))?.batchId).toBe('b1');
      await touchWriter(pool, claim(1)); // heartbeat only: the batch stays
      expect((await readWriter(pool))?.batchId).toBe('b1');
      await touchWriter(pool, claim(9), 'b9'); // not the holder: no effect
      expect((await readWriter(pool))?.batchId).toBe('b1');
      expect(await claimWriter(pool, claim(2, 'undo'), () => false)).toBeNull(); // holder judged gone
      expect(await readWriter(pool)).toMatchObject({ pid: 2, command: 'undo', batchId: null });
      await releaseWriter(pool, claim(1)); // not the holder: no effect
      expect((await readWriter(pool))?.pid).toBe(2);
      await releaseWriter(pool, claim(2));
      expect(await readWriter(pool)).toBeNull();
    });

    it('a reused pid (another process start) is not the holder', async () => {
      await claimWriter(pool, claim(1), () => true);
      const holder = await claimWriter(pool, { ...claim(1), procStart: '2' }, () => true);
      expect(holder?.procStart).toBe('1');
    });

    it('lets exactly one of 10 concurrent claimants (separate connections) win', async () => {
      const got = await withPools(10, (pools) =>
        Promise.all(pools.map((p, i) => claimWriter(p, claim(100 + i), () => true))),
      );
      const winners = got.flatMap((g, i) => (g === null ? [100 + i] : []));
      expect(winners).toHaveLength(1);
      const holder = await readWriter(pool);
      expect(holder?.pid).toBe(winners[0]);
      for (const g of got) if (g !== null) expect(g.pid).toBe(winners[0]); // losers see the winner
    });

    it('lets exactly one of 10 concurrent claimants take over a dead holder', async () => {
      await claimWriter(pool, claim(1), () => true);
      const got = await withPools(10, (pools) =>
        Promise.all(pools.map((p, i) => claimWriter(p, claim(200 + i), (h) => h.pid !== 1))),
      );
      expect(got.filter((g) => g === null)).toHaveLength(1);
      expect((await readWriter(pool))?.pid).toBeGreaterThanOrEqual(200);
    });
  });

  describe('marks', () => {
    it('sets, replaces and clears marks; lists only set ones, newest first; says whether any is noisy', async () => {
      expect(await hasNoisyMarks(pool)).toBe(false);
      await setMark(pool, 'd1', true, 'footer');
      expect(await hasNoisyMarks(pool)).toBe(true);
      await setMark(pool, 'd2', false, 'keeper');
      expect((await listMarks(pool)).map((m) => [m.docId, m.noisy, m.reason])).toEqual([
        ['d2', false, 'keeper'],
        ['d1', true, 'footer'],
      ]);
      await setMark(pool, 'd1', null, null);
      expect(await hasNoisyMarks(pool)).toBe(false);
      expect((await listMarks(pool)).map((m) => m.docId)).toEqual(['d2']);
      await setMark(pool, 'd2', true, null);
      expect(await listMarks(pool)).toEqual([
        { docId: 'd2', noisy: true, reason: null, at: expect.stringMatching(/Z$/) as unknown },
      ]);
    });

    it('imports marks with their own times, replacing earlier ones (the later of two wins)', async () => {
      await setMark(pool, 'd1', true, 'old');
      await importMarks(pool, [
        { docId: 'd1', noisy: false, reason: 'imported', at: '2024-01-02T00:00:00.000Z' },
        { docId: 'd2', noisy: true, reason: null, at: '2024-01-01T00:00:00.000Z' },
        { docId: 'd2', noisy: true, reason: 'twice', at: '2024-01-03T00:00:00.000Z' },
      ]);
      expect(await listMarks(pool)).toEqual([
        { docId: 'd2', noisy: true, reason: 'twice', at: '2024-01-03T00:00:00.000Z' },
        { docId: 'd1', noisy: false, reason: 'imported', at: '2024-01-02T00:00:00.000Z' },
      ]);
      await importMarks(pool, []);
    });
  });

  describe('feedback', () => {
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
    const t = '2024-05-01T10:00:00.000Z';
    const rows = (): FeedbackRecord[] => [
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
      fb('c', '2024-05-02T10:00:00.000Z', { askId: 'ask2', q: '', sectionId: null, docId: null, rank: null }),
    ];

    it('appends feedback and lists it newest or oldest first, by document, with a limit and an offset', async () => {
      expect(await listFeedback(pool)).toEqual([]);
      await addFeedback(pool, rows());
      expect(await listFeedback(pool, { order: 'oldest' })).toEqual(rows());
      // Same timestamp: insertion order breaks the tie, reversed for newest-first.
      expect((await listFeedback(pool)).map((r) => r.id)).toEqual(['c', 'b', 'a']);
      expect((await listFeedback(pool, { docId: 'd2' })).map((r) => r.id)).toEqual(['b']);
      expect((await listFeedback(pool, { limit: 1 })).map((r) => r.id)).toEqual(['c']);
      expect((await listFeedback(pool, { limit: 2, order: 'oldest' })).map((r) => r.id)).toEqual(['a', 'b']);
      expect((await listFeedback(pool, { offset: 1 })).map((r) => r.id)).toEqual(['b', 'a']);
      expect((await listFeedback(pool, { offset: 1, limit: 1, order: 'oldest' })).map((r) => r.id)).toEqual([
        'b',
      ]);
      expect((await listFeedback(pool, { docId: 'd1', offset: 1 })).map((r) => r.id)).toEqual([]);
      await addFeedback(pool, []);
      expect(await listFeedback(pool)).toHaveLength(3);
    });

    it('keeps insertion order for ties across many rows of one call', async () => {
      const many = Array.from({ length: 50 }, (_, i) => fb(`r${String(i).padStart(2, '0')}`, t));
      await addFeedback(pool, [...many].reverse());
      expect((await listFeedback(pool, { order: 'oldest' })).map((r) => r.id)).toEqual(
        [...many].reverse().map((r) => r.id),
      );
    });

    it('refuses a duplicate id with a CONFLICT naming it and writes none of that call', async () => {
      await addFeedback(pool, [fb('a', t)]);
      const err = await addFeedback(pool, [fb('z', t), fb('a', t)]).catch((e: unknown) => e);
      expect(isQuiverError(err, 'CONFLICT')).toBe(true);
      expect((err as Error).message).toMatch(/feedback row a already exists/);
      expect((await listFeedback(pool)).map((r) => r.id)).toEqual(['a']);
      const twice = await addFeedback(pool, [fb('y', t), fb('x', t), fb('y', t)]).catch((e: unknown) => e);
      expect(isQuiverError(twice, 'CONFLICT')).toBe(true);
      expect((twice as Error).message).toMatch(/feedback row y already exists/);
      expect((await listFeedback(pool)).map((r) => r.id)).toEqual(['a']);
    });
  });

  describe('transcripts and verdicts', () => {
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
      expect(await getTranscript(pool, 'nope')).toBeNull();
      expect(await listTranscripts(pool)).toEqual([]);
      const a = transcript('t1', '2024-05-01T10:00:00.000Z');
      const b = transcript('t2', '2024-05-02T10:00:00.000Z');
      const c = transcript('t3', '2024-05-02T10:00:00.000Z');
      await putTranscript(pool, a);
      await putTranscript(pool, b);
      await putTranscript(pool, c);
      expect(await getTranscript(pool, 't1')).toEqual(a);
      expect((await listTranscripts(pool)).map((x) => x.id)).toEqual(['t3', 't2', 't1']);
      expect((await listTranscripts(pool, { limit: 1, offset: 2 })).map((x) => x.id)).toEqual(['t1']);
      const err = await putTranscript(pool, a).catch((e: unknown) => e);
      expect(isQuiverError(err, 'CONFLICT')).toBe(true);
      expect((err as Error).message).toBe('quiver: transcript t1 already exists');
    });

    it('caches verdicts by key, overwriting on put; pages them in code-point key order', async () => {
      expect(await getVerdict(pool, 'k')).toBeNull();
      await putVerdict(pool, 'k', true);
      expect(await getVerdict(pool, 'k')).toBe(true);
      await putVerdict(pool, 'k', false);
      expect(await getVerdict(pool, 'k')).toBe(false);
      expect(await getVerdict(pool, 'other')).toBeNull();
      await putVerdict(pool, 'K', true);
      await putVerdict(pool, 'a', true);
      expect(await listVerdicts(pool, null, 2)).toEqual([
        { key: 'K', verdict: true },
        { key: 'a', verdict: true },
      ]);
      expect(await listVerdicts(pool, 'a', 10)).toEqual([{ key: 'k', verdict: false }]);
      expect(await listVerdicts(pool, 'k', 10)).toEqual([]);
    });
  });
});
