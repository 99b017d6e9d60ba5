import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isQuiverError } from '../../errors.js';
import { HnswIndex, hnswIndexPath, PARALLEL_BUILD_MIN_ROWS } from './hnsw-index.js';
import type { HnswIdentity } from './hnsw-index.js';
import { hnswNative } from './hnsw-native.js';
import { removeParallelBuild, runParallelBuild } from './hnsw-parallel-build.js';
import { VectorMatrix } from './vector-cache.js';
import { mulberry32 } from '../../math/mulberry32.js';

// These run the builder `npm ci` compiled (scripts/build-native.mjs); the install must have made it.
const builder = hnswNative().builder;
const DIMS = 32;
const N = PARALLEL_BUILD_MIN_ROWS + 500;
const dir = mkdtempSync(join(tmpdir(), 'quiver-parallel-'));
// The builder's temporary directories go under os.tmpdir(): point it at a private folder (this test
// file's worker has its own environment) so leftovers can be counted without other files' builds.
const builderTmp = join(dir, 'tmp');
mkdirSync(builderTmp);
process.env.TMPDIR = builderTmp;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `n` unit rows around 40 random centres (a Gaussian-ish mixture), row-major. */
function mixture(n: number, seed: number): Float32Array {
  const r = mulberry32(seed);
  const centres = Array.from({ length: 40 }, () => Array.from({ length: DIMS }, () => r() - 0.5));
  const out = new Float32Array(n * DIMS);
  for (let i = 0; i < n; i++) {
    const c = centres[Math.floor(r() * centres.length)]!;
    let sq = 0;
    for (let j = 0; j < DIMS; j++) {
      const x = c[j]! + (r() + r() + r() - 1.5) * 0.25;
      out[i * DIMS + j] = x;
      sq += x * x;
    }
    for (let j = 0; j < DIMS; j++) out[i * DIMS + j]! /= Math.sqrt(sq);
  }
  return out;
}

const rows = (data: Float32Array): Float32Array[] =>
  Array.from({ length: data.length / DIMS }, (_, i) => data.slice(i * DIMS, (i + 1) * DIMS));
const id = (): HnswIdentity => ({ fingerprint: 'test:mixture', dims: DIMS, stamp: 's1' });

let data: Float32Array;
let labels: number[];
let queries: Float32Array[];
beforeAll(() => {
  data = mixture(N, 1);
  labels = Array.from({ length: N }, (_, i) => 7 + i * 2);
  queries = rows(mixture(60, 2));
});

function recall(index: HnswIndex): number {
  const m = new VectorMatrix(Float64Array.from(labels), [], [], data, DIMS);
  let hit = 0;
  for (const q of queries) {
    const want = new Set(m.scan(q, 10).map((h) => labels[h.index]!));
    hit += index.search(q, 10).filter((h) => want.has(h.chunkId)).length;
  }
  return hit / (queries.length * 10);
}

const builderDirs = (): string[] => readdirSync(builderTmp);

describe('native parallel HNSW build', () => {
  it('the install compiled the builder for this machine', () => {
    expect(builder).not.toBeNull();
    expect(hnswNative().note).toBeNull();
  });

  it('with one thread writes the same graph as the in-process build (same answers, same scores)', async () => {
    const { file, peakRss } = await runParallelBuild({
      builder: builder!,
      space: 'ip',
      dims: DIMS,
      m: 16,
      efConstruction: 200,
      seed: 100,
      threads: 1,
      labels,
      rows: labels.map((_, i) => i),
      data,
    });
    expect(peakRss).toBeGreaterThan(N * DIMS * 4); // it held at least the vectors
    const native = new (hnswNative().lib.HierarchicalNSW)('ip', DIMS);
    await native.readIndex(file);
    await removeParallelBuild(file);
    const inProcess = await HnswIndex.build(labels, data, { ...id(), threads: 1 });
    expect(inProcess.origin).toBe('in-process-build');
    native.setEf(inProcess.efSearch);
    for (const q of queries) {
      const a = native.searchKnn(Array.from(q), 10);
      const b = inProcess.search(q, 10);
      expect([...a.neighbors].sort((x, y) => x - y)).toEqual(b.map((h) => h.chunkId).sort((x, y) => x - y));
    }
  });

  it('on two threads builds a graph as good as the exact scan demands, and it saves and loads', async () => {
    const seen: number[] = [];
    const index = await HnswIndex.build(labels, data, {
      ...id(),
      threads: 2,
      onProgress: (done, total) => {
        expect(total).toBe(N);
        seen.push(done);
      },
    });
    expect(index.origin).toBe('parallel-build');
    expect(index.size).toBe(N);
    expect(index.labels()).toEqual(labels);
    expect(seen.at(-1)).toBe(N);
    expect(recall(index)).toBeGreaterThanOrEqual(0.95);
    const path = hnswIndexPath(join(dir, 'v.db'), 'test:mixture');
    await index.save(path);
    const loaded = await HnswIndex.load(path, id());
    expect(loaded.origin).toBe('loaded');
    expect(loaded.search(queries[0]!, 10)).toEqual(index.search(queries[0]!, 10));
    expect(builderDirs()).toEqual([]);
  });

  it('leaves out zero rows, keeps the last row of a repeated label, rejects non-finite values', async () => {
    const d = data.slice();
    const ls = labels.slice();
    d.fill(0, 3 * DIMS, 4 * DIMS); // label ls[3] is zero → never searchable
    ls[10] = ls[11]!; // label ls[11] appears twice: its row-11 vector must win
    const index = await HnswIndex.build(ls, d, { ...id(), threads: 2 });
    expect(index.origin).toBe('parallel-build');
    expect(index.has(labels[3]!)).toBe(false);
    expect(index.size).toBe(N - 2);
    const top = index.search(d.slice(11 * DIMS, 12 * DIMS), 1)[0]!;
    expect(top.chunkId).toBe(ls[11]);
    expect(top.score).toBeCloseTo(1, 5);
    d[5 * DIMS] = Number.NaN;
    await expect(HnswIndex.build(ls, d, { ...id(), threads: 2 })).rejects.toSatisfy((e) =>
      isQuiverError(e, 'BAD_INPUT'),
    );
    const bad = labels.slice();
    bad[0] = 2 ** 32;
    await expect(HnswIndex.build(bad, data, { ...id(), threads: 2 })).rejects.toThrow(/label/);
  });

  it('an abort kills the builder, throws ABORTED and leaves no temporary files', async () => {
    for (const when of ['before', 'while'] as const) {
      const ac = new AbortController();
      if (when === 'before') ac.abort(new Error('stop'));
      const built = HnswIndex.build(labels, data, { ...id(), threads: 2, signal: ac.signal });
      if (when === 'while') setImmediate(() => ac.abort(new Error('stop')));
      await expect(built).rejects.toSatisfy((e) => isQuiverError(e, 'ABORTED'));
      expect(builderDirs()).toEqual([]);
    }
  });

  it('a builder that fails is reported with its message, and the build falls back to in process', async () => {
    const broken = join(dir, 'broken-builder.sh');
    writeFileSync(broken, '#!/bin/sh\ncat >/dev/null\necho "out of cheese" >&2\nexit 1\n');
    chmodSync(broken, 0o755);
    const job = { builder: broken, space: 'ip' as const, dims: DIMS, m: 8, efConstruction: 20, seed: 1 };
    await expect(
      runParallelBuild({ ...job, threads: 2, labels, rows: labels.map((_, i) => i), data }),
    ).rejects.toThrow(/out of cheese/);
    await expect(
      runParallelBuild({
        ...job,
        builder: join(dir, 'no-such-builder'),
        threads: 2,
        labels,
        rows: [0],
        data,
      }),
    ).rejects.toSatisfy((e) => isQuiverError(e, 'INTERNAL'));
    const index = await HnswIndex.build(labels, data, { ...id(), threads: 2, builder: broken });
    expect(index.origin).toBe('in-process-build');
    expect(index.size).toBe(N);
    expect(builderDirs()).toEqual([]);
  });
});
