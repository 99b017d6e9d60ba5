/**
 * Build an HNSW index file on every core with the native builder (`native/hnsw-build.cc`, compiled at
 * install time; see `hnsw-native.ts`). The rows are streamed to the builder's stdin as
 * `[uint32 label][dims × float32]` records in bounded pieces (waiting for the pipe to drain), so no
 * second copy of the matrix is made; the builder reports `progress <n>` lines and writes the file
 * hnswlib-node's `readIndex` loads. The caller validates and filters the rows first (see
 * `HnswIndex.build`): zero rows are left out, labels are 32-bit, values finite.
 *
 * The builder works in a temporary directory `quiver-hnsw-build-<pid>-XXXXXX` under `os.tmpdir()`,
 * named after the process that owns it. This process removes it on every way out of a build; the
 * builder dies with this process (it is given our pid) and removes the directory itself when it
 * is signalled. What a harder crash leaves behind is swept by {@link sweepStaleBuildDirs} at the
 * start of the next build.
 */
import { lstat, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QuiverError } from '../../errors.js';
import { pidAlive } from '../liveness.js';

export interface ParallelBuildJob {
  builder: string;
  space: 'ip' | 'cosine';
  dims: number;
  m: number;
  efConstruction: number;
  seed: number;
  threads: number;
  /** Labels of the rows to insert, in order. */
  labels: readonly number[];
  /** Row index in `data` of each label. */
  rows: readonly number[];
  data: Float32Array;
  signal?: AbortSignal;
  onProgress?: (done: number) => void;
  /** Called once the builder process is running, with its pid and temporary directory. */
  onStart?: (builder: { pid: number; dir: string }) => void;
}

/** Start of the name of every builder temporary directory; the owner's pid follows. */
export const BUILD_DIR_PREFIX = 'quiver-hnsw-build-';

/** `quiver-hnsw-build-<pid>-XXXXXX` (the six characters are mkdtemp's). */
const BUILD_DIR_NAME = /^quiver-hnsw-build-([1-9][0-9]*)-[A-Za-z0-9]{6}$/;

/** Records per write to the builder's stdin (8192 × 2 KiB at 512 dims = 16 MiB). */
const WRITE_RECORDS = 8192;

/** The error an honoured abort of an HNSW build (either path) turns into. */
export function hnswBuildAborted(signal: AbortSignal | undefined): QuiverError {
  return new QuiverError('ABORTED', 'quiver: hnsw build aborted', { cause: signal?.reason });
}

export interface ParallelBuildResult {
  /** The index file, in a temporary directory to remove with {@link removeParallelBuild}. */
  file: string;
  /** The builder process's peak resident memory in bytes (null if it did not say). */
  peakRss: number | null;
}

/**
 * Run the builder; resolves to the written file (in a fresh temporary directory the caller removes
 * with {@link removeParallelBuild}) or rejects with a QuiverError ('ABORTED' when `signal` fires,
 * 'INTERNAL' when the builder fails — the caller may then build in process).
 */
export async function runParallelBuild(job: ParallelBuildJob): Promise<ParallelBuildResult> {
  if (job.signal?.aborted) throw hnswBuildAborted(job.signal);
  await sweepStaleBuildDirs();
  const dir = await mkdtemp(join(tmpdir(), `${BUILD_DIR_PREFIX}${process.pid}-`));
  const file = join(dir, 'index.hnsw');
  const n = job.labels.length;
  const { space, dims, m, efConstruction, seed, threads } = job;
  // The last two let the builder die with this process and remove its directory when signalled.
  const args = [space, dims, n, m, efConstruction, seed, threads, file, process.pid, dir].map(String);
  // Loaded here: a process that never builds an index (a search) does not pay for child_process.
  const { spawn } = await import('node:child_process');
  try {
    return await new Promise<ParallelBuildResult>((resolve, reject) => {
      const child = spawn(job.builder, args, { stdio: ['pipe', 'pipe', 'pipe'] });
      child.once('spawn', () => {
        if (child.pid !== undefined) job.onStart?.({ pid: child.pid, dir });
      });
      let stderr = '';
      let pending = '';
      let peakRss: number | null = null;
      let aborted = false;
      const onAbort = (): void => {
        aborted = true;
        child.kill('SIGKILL');
      };
      job.signal?.addEventListener('abort', onAbort, { once: true });
      if (job.signal?.aborted) onAbort(); // fired while the directory was being made
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-2000)));
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        pending += d;
        let nl: number;
        while ((nl = pending.indexOf('\n')) >= 0) {
          const line = pending.slice(0, nl);
          pending = pending.slice(nl + 1);
          const [word, count, kib] = line.split(' ');
          if (word === 'progress') job.onProgress?.(Number(count));
          else if (word === 'done' && kib !== undefined) peakRss = Number(kib) * 1024;
        }
      });
      child.stdin.on('error', () => undefined); // the exit handler reports the failure
      child.on('error', (e) =>
        reject(new QuiverError('INTERNAL', `quiver: hnsw builder did not start: ${e.message}`, { cause: e })),
      );
      child.on('close', (code, sig) => {
        job.signal?.removeEventListener('abort', onAbort);
        // Ctrl-C on a terminal reaches the builder too (same process group): the user's stop, not a failure.
        if (aborted || code === 130 || sig === 'SIGINT') reject(hnswBuildAborted(job.signal));
        else if (code === 0) resolve({ file, peakRss });
        else
          reject(
            new QuiverError(
              'INTERNAL',
              `quiver: hnsw builder failed (${sig ?? `exit ${code}`}): ${stderr.trim() || 'no message'}`,
            ),
          );
      });
      // A write that fails (the builder died) or an abort seen between writes ends the child.
      void feed(child.stdin, job).catch(() => child.kill('SIGKILL'));
    });
  } catch (e) {
    await rm(dir, { recursive: true, force: true });
    throw e;
  }
}

/** Remove the temporary directory of a file returned by {@link runParallelBuild}. */
export async function removeParallelBuild(file: string): Promise<void> {
  await rm(join(file, '..'), { recursive: true, force: true });
}

/**
 * Builder temporary directories in `tmp` (`quiver-hnsw-build-<pid>-XXXXXX`) whose owner process is
 * gone: `process.kill(pid, 0)` fails with ESRCH. A live pid (also one of another user, EPERM) keeps
 * its directory, as do names without a pid (made before the pid was part of the name) and entries
 * that are not directories of this user. Pids are judged in this process's pid namespace, so a
 * `tmp` shared between containers is not swept reliably. Never throws: an unreadable `tmp` has none.
 * Defaults to `os.tmpdir()`.
 * @example
 * for (const dir of await staleBuildDirs()) console.log(`leftover hnsw build: ${dir}`);
 */
export async function staleBuildDirs(tmp: string = tmpdir()): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(tmp);
  } catch {
    return [];
  }
  const uid = process.getuid?.();
  const stale: string[] = [];
  for (const name of names) {
    const pid = Number(BUILD_DIR_NAME.exec(name)?.[1] ?? Number.NaN);
    if (!Number.isSafeInteger(pid) || pidAlive(pid)) continue;
    const path = join(tmp, name);
    const st = await lstat(path).catch(() => null);
    if (st?.isDirectory() === true && (uid === undefined || st.uid === uid)) stale.push(path);
  }
  return stale;
}

/**
 * Remove the directories {@link staleBuildDirs} finds (left by a quiver process killed during a
 * build) and resolve to those removed; one that cannot be removed is left out. Runs at the start of
 * every parallel build. Never throws. Defaults to `os.tmpdir()`.
 * @example
 * const removed = await sweepStaleBuildDirs();
 */
export async function sweepStaleBuildDirs(tmp: string = tmpdir()): Promise<string[]> {
  const removed: string[] = [];
  for (const dir of await staleBuildDirs(tmp)) {
    try {
      await rm(dir, { recursive: true, force: true });
      removed.push(dir);
    } catch {
      // someone else's to deal with (permissions) or removed meanwhile by another sweep
    }
  }
  return removed;
}

async function feed(stdin: NodeJS.WritableStream, job: ParallelBuildJob): Promise<void> {
  const { dims, data, labels, rows } = job;
  const record = 4 + dims * 4;
  for (let start = 0; start < labels.length; start += WRITE_RECORDS) {
    if (job.signal?.aborted) throw new Error('aborted');
    const end = Math.min(labels.length, start + WRITE_RECORDS);
    const buf = Buffer.alloc((end - start) * record); // unpooled: byteOffset 0, float-aligned
    const f32 = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
    for (let i = start; i < end; i++) {
      const at = (i - start) * record;
      buf.writeUInt32LE(labels[i]!, at);
      const row = rows[i]!;
      // `at` is a multiple of 4, so the row lands on a float boundary of the same buffer.
      f32.set(data.subarray(row * dims, (row + 1) * dims), at / 4 + 1);
    }
    if (!stdin.write(buf)) await new Promise<void>((r) => stdin.once('drain', () => r()));
  }
  stdin.end();
}
