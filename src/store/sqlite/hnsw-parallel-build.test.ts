import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isQuiverError } from '../../errors.js';
import { HnswIndex, hnswIndexPath, PARALLEL_BUILD_MIN_ROWS } from './hnsw-index.js';
import type { HnswIdentity } from './hnsw-index.js';
import { hnswNative } from './hnsw-native.js';
import {
  BUILD_DIR_PREFIX,
  removeParallelBuild,
  runParallelBuild,
  staleBuildDirs,
  sweepStaleBuildDirs,
} from './hnsw-parallel-build.js';
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
    const want = new Set(m.scanExact(q, 10).map((h) => labels[h.index]!));
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

/** Whether `pid` is a running process; a zombie (exited, not yet reaped by its new parent) is not. */
function running(pid: number): boolean {
  if (existsSync('/proc/self/stat')) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Poll `done` every 50 ms for up to `ms`; whether it came true. */
async function within(ms: number, done: () => boolean): Promise<boolean> {
  for (const end = performance.now() + ms; ; await new Promise((r) => setTimeout(r, 50))) {
    if (done()) return true;
    if (performance.now() >= end) return done();
  }
}

/** The first line `child` prints; rejects when it exits before printing one. */
function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.stdout?.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
    });
    child.on('exit', (code, sig) => reject(new Error(`exited (${sig ?? code}) before a line: ${err}`)));
  });
}

/** A pid no process has: that of a child that has exited and been reaped. */
function deadPid(): number {
  const pid = spawnSync(process.execPath, ['-e', '']).pid;
  expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
  return pid;
}

const FIXTURE = fileURLToPath(new URL('./_hnsw-build-fixture.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

describe('the native builder dies with its parent and cleans up', () => {
  const job = { space: 'ip' as const, dims: 16, m: 8, efConstruction: 50, seed: 1, threads: 2 };
  /** `count` random 16-dim records as the builder reads them. */
  const records = (count: number): Buffer => {
    const r = mulberry32(3);
    const buf = Buffer.alloc(count * (4 + job.dims * 4));
    for (let i = 0; i < count; i++) {
      buf.writeUInt32LE(i, i * (4 + job.dims * 4));
      for (let j = 0; j < job.dims; j++) buf.writeFloatLE(r() - 0.5, i * (4 + job.dims * 4) + 4 + j * 4);
    }
    return buf;
  };
  /** Start the builder binary itself on `count` rows, in a fresh temporary directory. */
  const start = (count: number, parent: number): { child: ChildProcess; tmp: string } => {
    const tmp = mkdtempSync(join(dir, 'direct-'));
    const { space, dims, m, efConstruction, seed, threads } = job;
    const args = [space, dims, count, m, efConstruction, seed, threads, join(tmp, 'index.hnsw'), parent, tmp];
    const child = spawn(builder!, args.map(String), { stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin.on('error', () => undefined); // EPIPE when it exits before reading all it was sent
    return { child, tmp };
  };
  const exited = async (child: ChildProcess): Promise<number | null> => {
    if (child.exitCode === null) await once(child, 'exit');
    return child.exitCode;
  };

  // The user's report: `kill -9` of quiver during a build left the builder running for ~50 s and
  // its temporary directory behind.
  it.skipIf(builder === null)(
    'kill -9 of the building process ends the builder and removes its directory within 1 s',
    async () => {
      const tmp = mkdtempSync(join(dir, 'orphan-'));
      // 60k × 64 rows at the default M and efConstruction take about 25 s on two cores, each batch
      // after the first over 2 s: the builder is mid-insert, not reading its input, when it is orphaned.
      const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, '60000', '64'], {
        cwd: ROOT,
        env: { ...process.env, TMPDIR: tmp },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let pid: number | undefined;
      try {
        const started = JSON.parse(await firstLine(child)) as { pid: number; dir: string };
        pid = started.pid;
        expect(basename(started.dir)).toMatch(new RegExp(`^${BUILD_DIR_PREFIX}${child.pid}-`));
        expect(running(pid)).toBe(true);
        expect(existsSync(started.dir)).toBe(true);
        child.kill('SIGKILL');
        await exited(child);
        expect(await within(1000, () => !running(started.pid))).toBe(true);
        expect(await within(1000, () => !existsSync(started.dir))).toBe(true);
        expect(readdirSync(tmp).filter((f) => f.startsWith(BUILD_DIR_PREFIX))).toEqual([]); // tsx keeps a cache here
      } finally {
        child.kill('SIGKILL');
        if (pid !== undefined && running(pid)) process.kill(pid, 'SIGKILL'); // never leave it burning
      }
    },
  );

  it.skipIf(builder === null)(
    'a builder whose parent died before it started exits 4 and removes its directory',
    async () => {
      const { child, tmp } = start(100, deadPid());
      child.stdin!.end(records(100));
      expect(await exited(child)).toBe(4);
      expect(existsSync(tmp)).toBe(false);
    },
  );

  it.skipIf(builder === null)(
    'input that ends early ends the builder (exit 2) and its directory',
    async () => {
      const { child, tmp } = start(20_000, process.pid);
      child.stdin!.end(records(10_000));
      expect(await exited(child)).toBe(2);
      expect(existsSync(tmp)).toBe(false);
    },
  );

  it.skipIf(builder === null)(
    'SIGTERM mid-build: the handler removes the directory and exits 143',
    async () => {
      const { child, tmp } = start(20_000, process.pid);
      child.stdin!.write(records(10_000)); // one batch of 8192 is inserted, then it waits for more
      await new Promise<void>((resolve) =>
        child.stdout!.setEncoding('utf8').on('data', (d: string) => d.includes('progress') && resolve()),
      );
      child.kill('SIGTERM');
      expect(await exited(child)).toBe(128 + 15);
      expect(existsSync(tmp)).toBe(false);
    },
  );
});

describe('sweepStaleBuildDirs', () => {
  it('removes the directories of dead pids only, and a build sweeps before it starts', async () => {
    const tmp = mkdtempSync(join(dir, 'sweep-'));
    const dead = deadPid();
    const stale = join(tmp, `${BUILD_DIR_PREFIX}${dead}-aB3xYz`);
    const live = join(tmp, `${BUILD_DIR_PREFIX}${process.pid}-Qw12eR`);
    const unowned = join(tmp, `${BUILD_DIR_PREFIX}Zx81Lm`); // an older name without the pid
    for (const d of [stale, live, unowned]) mkdirSync(d);
    writeFileSync(join(stale, 'index.hnsw.partial'), 'x');
    writeFileSync(join(tmp, `${BUILD_DIR_PREFIX}${dead}-file01`), 'not a directory');
    expect(await staleBuildDirs(tmp)).toEqual([stale]);
    expect(await sweepStaleBuildDirs(tmp)).toEqual([stale]);
    expect(readdirSync(tmp).sort()).toEqual(
      [basename(live), basename(unowned), `${BUILD_DIR_PREFIX}${dead}-file01`].sort(),
    );
    expect(await sweepStaleBuildDirs(tmp)).toEqual([]);
    expect(await sweepStaleBuildDirs(join(tmp, 'missing'))).toEqual([]);

    // A build (here one whose builder cannot start) sweeps os.tmpdir() first.
    mkdirSync(join(builderTmp, basename(stale)));
    const failing = runParallelBuild({
      builder: join(dir, 'no-such-builder'),
      space: 'ip',
      dims: DIMS,
      m: 8,
      efConstruction: 20,
      seed: 1,
      threads: 2,
      labels: [1],
      rows: [0],
      data,
    });
    await expect(failing).rejects.toSatisfy((e) => isQuiverError(e, 'INTERNAL'));
    expect(builderDirs()).toEqual([]);
  });
});
