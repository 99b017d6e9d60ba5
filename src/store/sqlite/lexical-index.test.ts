import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { processStart } from '../liveness.js';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { QueryMode } from '../../types.js';
import type { LexicalHit, LexicalQuery } from '../store.js';
import { makeDoc, writeFakeDocument } from '../store.contract.js';
import { decodeColumnSizes } from './lexical-index-build.js';
import { lexicalIndexPath } from './lexical-index-file.js';
import { type IndexSegment, LexicalIndex, LexicalSearcher } from './lexical-index.js';
import { SqliteStore } from './sqlite-store.js';
import { mulberry32 } from '../../math/mulberry32.js';

const dir = mkdtempSync(join(tmpdir(), 'quiver-lexidx-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fresh = (): string => join(dir, `v${n++}.db`);

const W = { body: 1, title: 2, heading: 1.5 };
const VOCAB = [
  "patient's",
  'patient',
  's',
  "don't",
  'cell',
  'cells',
  'running',
  'runs',
  'run',
  'gene',
  'genes',
  'protein',
  'naïve',
  'naive',
  'Tumour',
  'tumor',
  'immune',
  'response',
  'the',
  'of',
  'mouse',
  'mice',
  'α-helix',
  'p53',
  'x',
  'covid-19',
  'rate',
  'rates',
];

/** Words from the vocabulary, seeded; repeats make term frequencies above 1. */
function text(rng: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(VOCAB[Math.floor(rng() * VOCAB.length)]!);
  return out.join(' ') + '.';
}

/** A vault of `docs` documents with 1–3 sections each, written in two batches. */
async function corpus(path: string, docs: number, seed: number): Promise<SqliteStore> {
  const rng = mulberry32(seed);
  const s = SqliteStore.open(path, { lexical: { threshold: Infinity } });
  for (let d = 0; d < docs; d++) {
    const sections = Array.from({ length: 1 + Math.floor(rng() * 3) }, (_, i) => ({
      title: i === 0 ? `Doc ${d} ${text(rng, 2)}` : text(rng, 2),
      text: text(rng, 3 + Math.floor(rng() * 30)),
    }));
    await writeFakeDocument(s, makeDoc(`doc-${d}.md`, sections));
  }
  return s;
}

/** The same file through FTS5's ranking and through the index (threshold 0 = always on). */
function pair(path: string): { fts: SqliteStore; idx: SqliteStore } {
  return {
    fts: SqliteStore.open(path, { lexical: { threshold: Infinity } }),
    idx: SqliteStore.open(path, { lexical: { threshold: 0 } }),
  };
}

function expectSame(a: LexicalHit[], b: LexicalHit[]): void {
  expect(b.map((h) => h.sectionId)).toEqual(a.map((h) => h.sectionId));
  b.forEach((h, i) => {
    expect(h.docId).toBe(a[i]!.docId);
    expect(Math.abs(h.score - a[i]!.score)).toBeLessThanOrEqual(1e-9 * Math.abs(a[i]!.score));
  });
}

const q = (
  terms: string[],
  mode: QueryMode,
  limit = 20,
  extra: Partial<LexicalQuery> = {},
): LexicalQuery => ({
  terms,
  mode,
  limit,
  weights: W,
  ...extra,
});

describe('decodeColumnSizes', () => {
  it('reads SQLite varints: one byte, two bytes, zero', () => {
    expect(decodeColumnSizes(Uint8Array.from([0x81, 0x7a, 0x03, 0x00]))).toEqual([250, 3, 0]);
    expect(decodeColumnSizes(new Uint8Array(0))).toEqual([]);
  });
  it('reads a nine-byte varint (the last byte carries 8 bits)', () => {
    const nine = Uint8Array.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x05]);
    expect(decodeColumnSizes(nine)).toEqual([5]);
  });
});

describe('lexical index: same ranking and scores as FTS5 bm25()', () => {
  it('for random queries in any and all modes, with column weights and limits (property)', async () => {
    const path = fresh();
    await (await corpus(path, 60, 7)).close();
    const { fts, idx } = pair(path);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...VOCAB, 'absent', "patient's", '***'), { minLength: 1, maxLength: 6 }),
        fc.constantFrom<QueryMode>('any', 'all'),
        fc.integer({ min: 1, max: 40 }),
        fc.record({
          body: fc.constantFrom(0, 1, 0.5),
          title: fc.constantFrom(0, 2, 10),
          heading: fc.constantFrom(0, 1.5),
        }),
        async (terms, mode, limit, weights) => {
          const query = { ...q(terms, mode, limit), weights };
          expectSame(await fts.lexicalSearch(query), await idx.lexicalSearch(query));
        },
      ),
      { numRuns: 150 },
    );
    expect(idx.inspectLexicalIndex().mode).toBe('index');
    await fts.close();
    await idx.close();
  });

  it('with filters (over-fetch, then the exact FTS5 join when too few survive)', async () => {
    const path = fresh();
    await (await corpus(path, 40, 11)).close();
    const { fts, idx } = pair(path);
    const ids = (await fts.listDocuments())
      .filter((d) => ['doc-3.md', 'doc-17.md'].includes(d.source))
      .map((d) => d.id);
    expect(ids).toHaveLength(2);
    for (const filter of [{ docIds: ids }, { sourcePrefix: 'doc-1' }, { kinds: ['md' as const] }]) {
      for (const terms of [['cell', 'gene'], ['the'], ['mouse', 'rate', 'p53']]) {
        const query = q(terms, 'any', 5, { filter });
        const a = await fts.lexicalSearch(query);
        expect(a.length).toBeGreaterThan(0);
        expectSame(a, await idx.lexicalSearch(query));
      }
    }
    await fts.close();
    await idx.close();
  });

  it('gives the same document frequencies and section count to feedback', async () => {
    const path = fresh();
    await (await corpus(path, 30, 3)).close();
    const { fts, idx } = pair(path);
    const stems = ['cell', 'run', 'gene', 'nothing', 'the'];
    expect(await idx.termStats(stems)).toEqual(await fts.termStats(stems));
    await fts.close();
    await idx.close();
  });
});

describe('lexical index: kept in step with the vault', () => {
  const probe = [
    q(['cell', 'gene', 'tumour'], 'any', 50),
    q(['mouse', 'the'], 'all', 50),
    q(['novelword'], 'any'),
  ];

  async function compare(path: string, idx: SqliteStore): Promise<void> {
    const fts = SqliteStore.open(path, { readonly: true, lexical: { threshold: Infinity } });
    for (const query of probe) expectSame(await fts.lexicalSearch(query), await idx.lexicalSearch(query));
    await fts.close();
  }

  it('is saved beside the vault, reloaded by the next process, and updated from new rows without a rebuild', async () => {
    const path = fresh();
    await (await corpus(path, 30, 5)).close();
    const a = SqliteStore.open(path, { lexical: { threshold: 0 } });
    expect((await a.prepareLexicalIndex()).source).toBe('built');
    await a.close();
    const b = SqliteStore.open(path, { lexical: { threshold: 0 } });
    await compare(path, b);
    expect(b.inspectLexicalIndex()).toMatchObject({ source: 'loaded', added: 0, removed: 0 });
    // New documents and an update (supersedes a document's sections) after the save.
    await writeFakeDocument(b, makeDoc('new.md', [{ title: 'New', text: 'novelword cell cell gene' }]));
    await writeFakeDocument(
      b,
      makeDoc('doc-4.md', [{ title: 'Changed', text: 'novelword tumour mouse the' }]),
    );
    await compare(path, b);
    const st = b.inspectLexicalIndex();
    expect(st.source).toBe('loaded');
    expect(st.added).toBeGreaterThanOrEqual(2);
    expect(st.removed).toBeGreaterThanOrEqual(1);
    const found = await Promise.all((await b.lexicalSearch(probe[2]!)).map((h) => b.getDocument(h.docId)));
    expect(found.map((d) => d?.source).sort()).toEqual(['doc-4.md', 'new.md']);
    await b.close();
  });

  it('rebuilds after a rollback (which can hand a deleted rid to a new section)', async () => {
    const path = fresh();
    await (await corpus(path, 20, 9)).close();
    const s = SqliteStore.open(path, { lexical: { threshold: 0 } });
    await s.prepareLexicalIndex();
    const { batch } = await writeFakeDocument(
      s,
      makeDoc('tmp.md', [{ title: 'Tmp', text: 'novelword novelword' }]),
    );
    await compare(path, s);
    await s.rollbackBatch(batch.id);
    await writeFakeDocument(s, makeDoc('other.md', [{ title: 'Other', text: 'cell gene' }]));
    await compare(path, s);
    expect((await s.lexicalSearch(probe[2]!)).length).toBe(0);
    expect(s.inspectLexicalIndex().source).toBe('built');
    await s.close();
    const again = SqliteStore.open(path, { lexical: { threshold: 0 } });
    await compare(path, again);
    expect(again.inspectLexicalIndex()).toMatchObject({ source: 'loaded', added: 0 });
    await again.close();
  });

  it('detects a corrupt or truncated file and rebuilds it', async () => {
    const path = fresh();
    await (await corpus(path, 20, 13)).close();
    const a = SqliteStore.open(path, { lexical: { threshold: 0 } });
    await a.prepareLexicalIndex();
    await a.close();
    const file = lexicalIndexPath(path);
    const bytes = readFileSync(file);
    for (const bad of [
      bytes.subarray(0, bytes.length - 3),
      Buffer.concat([bytes.subarray(0, bytes.length - 1), Buffer.from([bytes[bytes.length - 1]! ^ 1])]),
    ]) {
      writeFileSync(file, bad);
      const s = SqliteStore.open(path, { lexical: { threshold: 0 } });
      await compare(path, s);
      expect(s.inspectLexicalIndex()).toMatchObject({ loadFailure: 'corrupt', source: 'built' });
      await s.close();
      expect(readFileSync(file).equals(bytes)).toBe(true);
    }
  });

  it("while another process writes, a search too far behind ranks with FTS5 instead of rebuilding, then loads the writer's save", async () => {
    const path = fresh();
    await (await corpus(path, 20, 21)).close();
    const writer = SqliteStore.open(path, { lexical: { threshold: 0 } });
    await writer.prepareLexicalIndex();
    const reader = SqliteStore.open(path, { readonly: true, lexical: { threshold: 0 } });
    await compare(path, reader);
    expect(reader.inspectLexicalIndex()).toMatchObject({ source: 'loaded', deferred: false });
    // Another live process (this one's parent) holds the writer slot while rows pour in.
    const other = {
      pid: process.ppid,
      host: hostname(),
      procStart: processStart(process.ppid),
      command: 'add',
    };
    expect(await writer.claimWriter(other, () => true)).toBeNull();
    for (let i = 0; i < 520; i++)
      await writeFakeDocument(
        writer,
        makeDoc(`bulk-${i}.md`, [{ title: `Bulk ${i}`, text: 'novelword cell gene' }]),
      );
    await compare(path, reader);
    expect(reader.inspectLexicalIndex()).toMatchObject({ source: 'loaded', deferred: true });
    // The writer finishes: it saves a rebuilt index, which the reader loads rather than building.
    await writer.releaseWriter(other);
    await writer.prepareLexicalIndex();
    await compare(path, reader);
    expect(reader.inspectLexicalIndex()).toMatchObject({ source: 'loaded', deferred: false, added: 0 });
    await reader.close();
    await writer.close();
  });

  it('works on read-only vaults without writing a file, and stays off at or below the threshold', async () => {
    const path = fresh();
    await (await corpus(path, 10, 17)).close();
    const ro = SqliteStore.open(path, { readonly: true, lexical: { threshold: 0 } });
    await compare(path, ro);
    expect(ro.inspectLexicalIndex()).toMatchObject({ mode: 'index', source: 'built' });
    await ro.close();
    expect(() => readFileSync(lexicalIndexPath(path))).toThrow();
    const off = SqliteStore.open(path, { lexical: { threshold: 1_000_000 } });
    await off.lexicalSearch(probe[0]!);
    expect(off.inspectLexicalIndex().mode).toBe('fts5');
    await off.close();
  });
});

describe('lexical index: inspection without loading', () => {
  it('says none, missing, current, updatable, stale and corrupt', async () => {
    const path = fresh();
    await (await corpus(path, 12, 21)).close();
    const below = SqliteStore.open(path, { lexical: { threshold: 1_000 } });
    expect(await below.inspectLexicalFile()).toMatchObject({ mode: 'fts5', index: 'none' });
    await below.close();
    const s = SqliteStore.open(path, { lexical: { threshold: 0 } });
    expect(await s.inspectLexicalFile()).toMatchObject({ mode: 'index', index: 'missing' });
    await s.prepareLexicalIndex();
    expect(await s.inspectLexicalFile()).toMatchObject({ index: 'current', sections: expect.any(Number) });
    const { batch } = await writeFakeDocument(s, makeDoc('late.md', [{ title: 'Late', text: 'cell' }]));
    expect((await s.inspectLexicalFile()).index).toBe('updatable');
    await s.rollbackBatch(batch.id);
    expect((await s.inspectLexicalFile()).index).toBe('stale');
    writeFileSync(lexicalIndexPath(path), 'garbage');
    expect((await s.inspectLexicalFile()).index).toBe('corrupt');
    await s.close();
  });

  it('Vault.add builds it above the threshold and doctor reports it', async () => {
    const { Vault } = await import('../../vault.js');
    const { main } = await import('../../cli/main.js');
    const path = fresh();
    const v = await Vault.open({ overrides: { vault: path, 'lexical.threshold': 0 } });
    await v.add([{ text: 'Cells divide. Genes code for proteins.', source: 'note-1' }]);
    expect(v.store instanceof SqliteStore && (await v.store.inspectLexicalFile()).index).toBe('current');
    await v.close();
    let out = '';
    const code = await main(['doctor', '--vault', path], {
      stdout: { write: (s: string) => ((out += s), true) },
      stderr: { write: () => true },
      env: { QUIVER_LEXICAL_THRESHOLD: '0' },
      cwd: dir,
      readStdin: async () => '',
    } as never);
    expect(code).toBe(0);
    expect(out).toMatch(/lexical\s+own index \(1 sections > threshold 0\), index current/);
  });
});

describe('MaxScore (any mode) against scoring every posting', () => {
  /** An index over `rows` random rows (Zipf-ish terms t0…t29 in three columns), rids from `firstRid`. */
  function randomIndex(rng: () => number, rows: number, firstRid: number): LexicalIndex {
    const post = new Map<string, { row: number; c: [number, number, number] }[]>();
    const rowTokens: number[] = [];
    for (let r = 0; r < rows; r++) {
      const counts = new Map<string, [number, number, number]>();
      let n = 0;
      for (let col = 0; col < 3; col++) {
        const len = col === 0 ? Math.floor(rng() * 40) : Math.floor(rng() * 4);
        for (let k = 0; k < len; k++) {
          const term = `t${Math.floor(30 * rng() ** 2.5)}`;
          const c = counts.get(term) ?? [0, 0, 0];
          c[col]!++;
          counts.set(term, c);
          n++;
        }
      }
      rowTokens.push(n);
      for (const [term, c] of counts) {
        const list = post.get(term) ?? [];
        list.push({ row: r, c });
        post.set(term, list);
      }
    }
    const terms = [...post.keys()].sort();
    const flat = terms.flatMap((t) => post.get(t)!);
    const termStart = new Uint32Array(terms.length + 1);
    terms.forEach((t, i) => (termStart[i + 1] = termStart[i]! + post.get(t)!.length));
    return new LexicalIndex({
      terms,
      termStart,
      postRow: Uint32Array.from(flat, (p) => p.row),
      postBody: Uint16Array.from(flat, (p) => p.c[0]),
      postTitle: Uint16Array.from(flat, (p) => p.c[1]),
      postHeading: Uint16Array.from(flat, (p) => p.c[2]),
      rids: Float64Array.from({ length: rows }, (_, i) => firstRid + 2 * i),
      rowTokens: Uint32Array.from(rowTokens),
      sectionIds: Array.from({ length: rows }, (_, i) => `d${firstRid + 2 * i}#0`),
    });
  }

  it('returns exactly the same rows, scores and order (property, with tombstones, two segments and phrase lists)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        fc.array(fc.integer({ min: 0, max: 33 }), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 60 }),
        fc.record({
          body: fc.constantFrom(0, 1, 0.5),
          title: fc.constantFrom(0, 2, 3),
          heading: fc.constantFrom(0, 1.5),
        }),
        fc.boolean(),
        (seed, termIdx, limit, weights, withDelta) => {
          const rng = mulberry32(seed);
          const base = randomIndex(rng, 400, 1);
          const dead = new Uint8Array(base.rows).map(() => (rng() < 0.1 ? 1 : 0));
          const segments: IndexSegment[] = [{ index: base, dead }];
          if (withDelta) segments.push({ index: randomIndex(rng, 50, 10_000), dead: null });
          const s = new LexicalSearcher(segments, { rows: 520, tokens: 520 * 25 });
          // Ids past t29 are absent terms; every fourth phrase is a "multi-token" list of FTS5 scores.
          const phrases = termIdx.map((i, k) =>
            k % 4 === 3
              ? Array.from({ length: 30 }, (_, j) => ({
                  rid: 1 + 2 * ((i * 37 + j * 13) % 400),
                  score: rng() * 3,
                }))
              : `t${i}`,
          );
          const a = s.searchExhaustive(phrases, weights, limit, 'any');
          const b = s.search(phrases, weights, limit, 'any');
          expect(b).toEqual(a);
        },
      ),
      { numRuns: 300 },
    );
  });
});
