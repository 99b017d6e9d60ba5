import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHashingEmbedder } from '../../embed/hashing.js';
import { isQuiverError } from '../../errors.js';
import {
  DEFAULT_HNSW_EF_SEARCH,
  DEFAULT_HNSW_M,
  HnswIndex,
  hnswIndexPath,
  hnswSidecarPath,
  resolveHnswParams,
} from './hnsw-index.js';
import type { HnswIdentity } from './hnsw-index.js';
import { VectorMatrix } from './vector-cache.js';
import { mulberry32 } from '../../math/mulberry32.js';

const DIMS = 512;
const embedder = createHashingEmbedder({ dims: DIMS });
const dir = mkdtempSync(join(tmpdir(), 'quiver-hnsw-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TOPICS = [
  'cerebral white matter',
  'insulin resistance',
  'tumour suppressor genes',
  'vitamin D deficiency',
  'gut microbiota',
  'cardiac arrhythmia',
  'stem cell niches',
  'antibiotic resistance',
  'sleep deprivation',
  'T cell exhaustion',
  'bone mineral density',
  'viral replication',
  'dopamine signalling',
  'renal failure',
  'placental growth',
  'amyloid plaques',
  'malaria transmission',
  'obesity in children',
  'DNA methylation',
  'blood pressure',
];
const VERBS = [
  'increases',
  'reduces',
  'regulates',
  'predicts',
  'is associated with',
  'does not affect',
  'modulates',
  'impairs',
];
const OBJECTS = [
  'mortality in elderly patients',
  'expression of inflammatory cytokines',
  'the risk of stroke',
  'neuronal survival in mice',
  'glucose uptake in muscle',
  'response to chemotherapy',
  'cortical thickness',
  'hospital readmission rates',
  'mitochondrial function',
  'the incidence of fractures',
  'lung function in smokers',
  'early embryonic development',
];
const QUALIFIERS = [
  'in a randomised trial',
  'in a cohort of 4,000 adults',
  'after twelve weeks',
  'in vitro',
  'in knockout mice',
  'according to a meta-analysis',
  '',
];

/** `n` distinct sentences built from a small scientific vocabulary (real words, overlapping topics). */
function sentences(n: number, seed: number): string[] {
  const r = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const out = new Set<string>();
  while (out.size < n) {
    const s = `${pick(TOPICS)} ${pick(VERBS)} ${pick(OBJECTS)} ${pick(QUALIFIERS)}; ${pick(TOPICS)} ${pick(VERBS)} ${pick(OBJECTS)} (study ${Math.floor(r() * 10000)})`;
    out.add(s.replace(/\s+/g, ' '));
  }
  return [...out];
}

function matrixOf(vectors: readonly Float32Array[]): Float32Array {
  const data = new Float32Array(vectors.length * DIMS);
  vectors.forEach((v, i) => data.set(v, i * DIMS));
  return data;
}

/** The exact reference: top-k labels of `labels`/`data` by dot product, with an optional label filter. */
function exact(
  labels: number[],
  data: Float32Array,
  q: Float32Array,
  k: number,
  filter?: (l: number) => boolean,
): number[] {
  const m = new VectorMatrix(Float64Array.from(labels), [], [], data, DIMS);
  return m
    .scanExact(q, k, filter === undefined ? undefined : (row) => filter(labels[row]!))
    .map((h) => labels[h.index]!);
}

function overlap(a: number[], b: number[]): number {
  const s = new Set(b);
  return a.filter((x) => s.has(x)).length;
}

const id = (stamp = 's1'): HnswIdentity => ({ fingerprint: embedder.id, dims: DIMS, stamp });

const N = 2000;
let docs: Float32Array;
let labels: number[];
let queries: Float32Array[];
let index: HnswIndex;

beforeAll(async () => {
  docs = matrixOf(sentences(N, 1).map((s) => embedder.embedOne(s)));
  labels = Array.from({ length: N }, (_, i) => 10 + i * 3); // chunk ids are not row numbers
  queries = sentences(100, 2).map((s) => embedder.embedOne(s.split(';')[0]!));
  index = await HnswIndex.build(labels, docs, id());
}, 60_000);

describe('HnswIndex search', () => {
  it('recall@10 against the exact scan is ≥ 0.95 at the default parameters', () => {
    expect(index.params.m).toBe(DEFAULT_HNSW_M);
    expect(index.efSearch).toBe(DEFAULT_HNSW_EF_SEARCH);
    let hit = 0;
    for (const q of queries)
      hit += overlap(
        index.search(q, 10).map((h) => h.chunkId),
        exact(labels, docs, q, 10),
      );
    expect(hit / (queries.length * 10)).toBeGreaterThanOrEqual(0.95);
  });

  it('returns cosine scores best first, matching the exact dot product', () => {
    const q = queries[0]!;
    const hits = index.search(q, 10);
    expect(hits).toHaveLength(10);
    for (let i = 1; i < hits.length; i++) expect(hits[i - 1]!.score).toBeGreaterThanOrEqual(hits[i]!.score);
    for (const h of hits) {
      const row = labels.indexOf(h.chunkId);
      let dot = 0;
      for (let j = 0; j < DIMS; j++) dot += q[j]! * docs[row * DIMS + j]!;
      expect(h.score).toBeCloseTo(dot, 5);
    }
  });

  it('honours the filter inside the walk and still finds k allowed hits', () => {
    const allow = (l: number): boolean => l % 2 === 0;
    let hit = 0;
    for (const q of queries.slice(0, 40)) {
      const got = index.search(q, 10, allow).map((h) => h.chunkId);
      expect(got).toHaveLength(10);
      expect(got.every(allow)).toBe(true);
      hit += overlap(got, exact(labels, docs, q, 10, allow));
    }
    expect(hit / 400).toBeGreaterThanOrEqual(0.95);
  });

  it('returns [] for k ≤ 0 and for a zero query; rejects a query of the wrong length', () => {
    expect(index.search(queries[0]!, 0)).toEqual([]);
    expect(index.search(new Float32Array(DIMS), 10)).toEqual([]);
    expect(() => index.search(new Float32Array(3), 10)).toThrow(/query length/);
  });

  it('caps k at the number of searchable labels', () => {
    const small = HnswIndex.create(id(), {}, 4);
    small.add([7, 8, 9], docs.subarray(0, 3 * DIMS));
    expect(
      small
        .search(queries[0]!, 50)
        .map((h) => h.chunkId)
        .sort(),
    ).toEqual([7, 8, 9]);
  });
});

describe('HnswIndex add / remove stay in step with the exact scan', () => {
  it('after removals, additions, revivals and replacements', () => {
    // Small enough that efSearch ≥ n makes the walk exhaustive: the results must equal the exact scan.
    const pool = matrixOf(sentences(400, 3).map((s) => embedder.embedOne(s)));
    const ids = Array.from({ length: 400 }, (_, i) => 1000 + i);
    const rowOf = new Map(ids.map((l, i) => [l, i]));
    const vec = (l: number): Float32Array => pool.subarray(rowOf.get(l)! * DIMS, (rowOf.get(l)! + 1) * DIMS);
    const current = new Map<number, Float32Array>();
    const ix = HnswIndex.create(id(), { efSearch: 400 }, 8); // grows on add
    const put = (ls: number[], vs: Float32Array[]): void => {
      ix.add(ls, matrixOf(vs));
      ls.forEach((l, i) => current.set(l, vs[i]!));
    };
    const check = (): void => {
      const ls = [...current.keys()];
      const data = matrixOf(ls.map((l) => current.get(l)!));
      expect(ix.size).toBe(current.size);
      expect(ix.labels()).toEqual([...ls].sort((a, b) => a - b));
      for (const q of queries.slice(0, 15)) {
        expect(new Set(ix.search(q, 10).map((h) => h.chunkId))).toEqual(new Set(exact(ls, data, q, 10)));
      }
    };
    put(ids.slice(0, 300), ids.slice(0, 300).map(vec));
    check();
    const gone = ids.slice(0, 300).filter((_, i) => i % 4 === 0);
    expect(ix.remove(gone)).toBe(gone.length);
    expect(ix.remove(gone)).toBe(0); // already removed
    expect(ix.remove([999_999])).toBe(0); // never present
    for (const l of gone) current.delete(l);
    expect(ix.deletedCount).toBe(gone.length);
    check();
    put(ids.slice(300), ids.slice(300).map(vec)); // new chunks
    put(gone.slice(0, 20), gone.slice(0, 20).map(vec)); // undo revives removed chunks
    expect(ix.deletedCount).toBe(gone.length - 20);
    check();
    // Replace a vector under the same label: search follows the new vector.
    const target = ids[5]!;
    put([target], [queries[3]!]);
    expect(ix.search(queries[3]!, 1)[0]).toEqual({ chunkId: target, score: expect.closeTo(1, 5) as number });
    check();
  });

  it('reconcile brings a stale index in step with the live rows', () => {
    const ix = HnswIndex.create(id(), { efSearch: 400 });
    ix.add(labels.slice(0, 300), docs.subarray(0, 300 * DIMS));
    // The store now holds rows 100..399 (rows 0..99 superseded, 300..399 added meanwhile).
    const liveIds = labels.slice(100, 400);
    const liveData = docs.subarray(100 * DIMS, 400 * DIMS);
    expect(ix.reconcile(liveIds, liveData)).toEqual({ added: 100, removed: 100 });
    expect(ix.labels()).toEqual(liveIds);
    for (const q of queries.slice(0, 10)) {
      expect(new Set(ix.search(q, 10).map((h) => h.chunkId))).toEqual(
        new Set(exact(liveIds, liveData, q, 10)),
      );
    }
    expect(ix.reconcile(liveIds, liveData)).toEqual({ added: 0, removed: 0 });
    expect(() => ix.reconcile([1], new Float32Array(3))).toThrow(/data length/);
  });

  it('never inserts a zero vector, and a zero vector removes the label', () => {
    const ix = HnswIndex.create(id(), {}, 2);
    const data = matrixOf([docs.subarray(0, DIMS), new Float32Array(DIMS)]);
    expect(ix.add([1, 2], data)).toBe(1);
    expect(ix.has(2)).toBe(false);
    ix.add([1], new Float32Array(DIMS));
    expect(ix.has(1)).toBe(false);
    expect(ix.search(queries[0]!, 5)).toEqual([]);
  });

  it('rejects bad labels, non-finite values and mismatched lengths', () => {
    const ix = HnswIndex.create(id());
    expect(() => ix.add([-1], docs.subarray(0, DIMS))).toThrow(/label/);
    expect(() => ix.add([1.5], docs.subarray(0, DIMS))).toThrow(/label/);
    expect(() => ix.add([2 ** 32], docs.subarray(0, DIMS))).toThrow(/label/);
    const nan = new Float32Array(DIMS);
    nan[3] = Number.NaN;
    expect(() => ix.add([1], nan)).toThrow(/finite/);
    expect(() => ix.add([1, 2], docs.subarray(0, DIMS))).toThrow(/data length/);
  });
});

describe('HnswIndex persistence', () => {
  const fresh = (name: string): string => hnswIndexPath(join(dir, `${name}.db`), embedder.id);

  it('names the file after the database and the fingerprint', () => {
    expect(hnswIndexPath('/v/vault.db', 'hashing:x:512:v1')).toMatch(/^\/v\/vault\.db\.[0-9a-f]{8}\.hnsw$/);
    expect(hnswIndexPath('/v/vault.db', 'a')).not.toBe(hnswIndexPath('/v/vault.db', 'b'));
    expect(hnswSidecarPath('/v/x.hnsw')).toBe('/v/x.hnsw.json');
  });

  it('round-trips: same results, tombstones, stamp and parameters; no temporary files left', async () => {
    const path = fresh('round');
    const ix = await HnswIndex.build(labels.slice(0, 500), docs.subarray(0, 500 * DIMS), id('a'));
    ix.remove([labels[0]!, labels[1]!]);
    await ix.save(path, 'b');
    expect(ix.stamp).toBe('b');
    expect(readdirSync(dir).filter((f) => f.includes('.tmp-'))).toEqual([]);
    const side = JSON.parse(readFileSync(hnswSidecarPath(path), 'utf8')) as Record<string, unknown>;
    expect(side).toMatchObject({
      formatVersion: 1,
      fingerprint: embedder.id,
      dims: DIMS,
      count: 498,
      stamp: 'b',
    });
    const back = await HnswIndex.load(path, id('b'));
    expect(back.size).toBe(498);
    expect(back.deletedCount).toBe(2);
    expect(back.has(labels[0]!)).toBe(false);
    expect(back.params).toEqual(ix.params);
    for (const q of queries.slice(0, 10)) expect(back.search(q, 10)).toEqual(ix.search(q, 10));
    // The loaded index keeps working: it grows and revives.
    back.add([labels[0]!, 99_999], matrixOf([docs.subarray(0, DIMS), docs.subarray(DIMS, 2 * DIMS)]));
    expect(back.size).toBe(500);
  });

  it("detects 'missing'", async () => {
    const r = await HnswIndex.loadOrNull(fresh('nothing'), id());
    expect(r.reason).toBe('missing');
    expect(r.index).toBeNull();
    await expect(HnswIndex.load(fresh('nothing'), id())).rejects.toSatisfy((e) =>
      isQuiverError(e, 'NOT_FOUND'),
    );
  });

  describe('detects stale, corrupt and unknown-version files', () => {
    let path: string;
    let small: HnswIndex;
    beforeAll(async () => {
      small = await HnswIndex.build(labels.slice(0, 200), docs.subarray(0, 200 * DIMS), id('s1'));
    });
    const saved = async (name: string): Promise<string> => {
      path = fresh(name);
      await small.save(path, 's1');
      return path;
    };

    it("'stale' when the stamp, fingerprint or dims differ; acceptStale hands back the intact index", async () => {
      const p = await saved('stale');
      expect((await HnswIndex.loadOrNull(p, id('s2'))).reason).toBe('stale');
      expect((await HnswIndex.loadOrNull(p, { ...id(), fingerprint: 'other:1' })).reason).toBe('stale');
      expect((await HnswIndex.loadOrNull(p, { ...id(), dims: 384 })).reason).toBe('stale');
      const r = await HnswIndex.loadOrNull(p, id('s2'), { acceptStale: true });
      expect(r.reason).toBe('stale');
      expect(r.index?.size).toBe(200);
      expect(r.index?.stamp).toBe('s1');
      // A different embedder is never handed back, even with acceptStale.
      expect(
        (await HnswIndex.loadOrNull(p, { ...id(), fingerprint: 'x' }, { acceptStale: true })).index,
      ).toBeNull();
      await expect(HnswIndex.load(p, id('s2'))).rejects.toSatisfy((e) => isQuiverError(e, 'CONFLICT'));
    });

    it("'corrupt' when the index file is truncated", async () => {
      const p = await saved('trunc');
      truncateSync(p, 5000);
      const r = await HnswIndex.loadOrNull(p, id());
      expect(r.reason).toBe('corrupt');
      expect(r.message).toMatch(/truncated/);
      await expect(HnswIndex.load(p, id())).rejects.toSatisfy((e) => isQuiverError(e, 'CORRUPT_FILE'));
    });

    it("'corrupt' when the index file is garbage of the right size", async () => {
      const p = await saved('garbage');
      const size = readFileSync(p).byteLength;
      writeFileSync(p, Buffer.alloc(size, 0x5a));
      expect((await HnswIndex.loadOrNull(p, id())).reason).toBe('corrupt');
    });

    it("'corrupt' when one byte of the vectors changes (checksum)", async () => {
      const p = await saved('flip');
      const buf = readFileSync(p);
      const at = buf.byteLength - 7;
      buf[at] = buf[at]! ^ 0xff;
      writeFileSync(p, buf);
      const r = await HnswIndex.loadOrNull(p, id());
      expect(r.reason).toBe('corrupt');
      expect(r.message).toMatch(/checksum/);
    });

    it("'corrupt' when the sidecar is missing, garbage or malformed", async () => {
      const p = await saved('side');
      const sidecar = readFileSync(hnswSidecarPath(p), 'utf8');
      writeFileSync(hnswSidecarPath(p), '{not json');
      expect((await HnswIndex.loadOrNull(p, id())).reason).toBe('corrupt');
      writeFileSync(hnswSidecarPath(p), JSON.stringify({ ...JSON.parse(sidecar), sha256: 'nope' }));
      expect((await HnswIndex.loadOrNull(p, id())).reason).toBe('corrupt');
      rmSync(hnswSidecarPath(p));
      expect((await HnswIndex.loadOrNull(p, id())).reason).toBe('corrupt');
    });

    it("'corrupt' when the header disagrees with the sidecar (another index's file)", async () => {
      const p = await saved('swap');
      const other = fresh('swap-other');
      await (await HnswIndex.build(labels.slice(0, 201), docs.subarray(0, 201 * DIMS), id('s1'))).save(other);
      writeFileSync(p, readFileSync(other));
      const r = await HnswIndex.loadOrNull(p, id());
      expect(r.reason).toBe('corrupt');
    });

    it("'version' when the sidecar has an unknown formatVersion", async () => {
      const p = await saved('version');
      const side = JSON.parse(readFileSync(hnswSidecarPath(p), 'utf8')) as Record<string, unknown>;
      writeFileSync(hnswSidecarPath(p), JSON.stringify({ ...side, formatVersion: 2 }));
      expect((await HnswIndex.loadOrNull(p, id())).reason).toBe('version');
      await expect(HnswIndex.load(p, id())).rejects.toSatisfy((e) => isQuiverError(e, 'SCHEMA'));
    });
  });

  it('a failed save leaves no file behind and throws STORE', async () => {
    const path = join(dir, 'no-such-dir', 'x.hnsw');
    await expect(index.save(path)).rejects.toSatisfy((e) => isQuiverError(e, 'STORE'));
    expect(existsSync(path)).toBe(false);
  });
});

describe('resolveHnswParams', () => {
  it('fills defaults and validates each field', () => {
    expect(resolveHnswParams()).toEqual({
      space: 'ip',
      m: 32,
      efConstruction: 200,
      efSearch: DEFAULT_HNSW_EF_SEARCH,
      seed: 100,
    });
    expect(() => resolveHnswParams({ m: 1 })).toThrow(/m must be/);
    expect(() => resolveHnswParams({ efSearch: 0 })).toThrow(/efSearch/);
    expect(() => resolveHnswParams({ efConstruction: 2.5 })).toThrow(/efConstruction/);
    expect(() => resolveHnswParams({ space: 'l2' as 'ip' })).toThrow(/space/);
    expect(() => resolveHnswParams({ seed: -1 })).toThrow(/seed/);
  });

  it('build rejects a data length that is not labels × dims, and honours an abort', async () => {
    await expect(HnswIndex.build([1, 2], new Float32Array(DIMS), id())).rejects.toThrow(/data length/);
    const ac = new AbortController();
    ac.abort();
    await expect(
      HnswIndex.build([1], docs.subarray(0, DIMS), { ...id(), signal: ac.signal }),
    ).rejects.toSatisfy((e) => isQuiverError(e, 'ABORTED'));
  });
});
