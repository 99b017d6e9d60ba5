// Shared by test/faults.test.ts and bench/faults.ts: the quiver CLI run as a real child process
// (as a user or a script runs it), a generated folder of notes, and what a vault holds afterwards.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

export interface ProcessRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A running `quiver` child: its process and a promise of how it ended. */
export interface RunningQuiver {
  child: ChildProcess;
  done: Promise<ProcessRun>;
}

/** Start `node bin/quiver.js <args>` with `QUIVER_*` settings from `env` added to this environment. */
export function startQuiver(args: readonly string[], env: NodeJS.ProcessEnv = {}): RunningQuiver {
  const child = spawn(process.execPath, ['bin/quiver.js', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, QUIVER_PROGRESS: 'false', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<ProcessRun>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, done };
}

export async function quiver(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<ProcessRun> {
  return startQuiver(args, env).done;
}

/** `count` Markdown notes of two sections each in `dir`, named `<prefix>-00001.md`…; returns the folder. */
export function writeNotes(dir: string, prefix: string, count: number, seed = 1): string {
  mkdirSync(dir, { recursive: true });
  const words =
    'alpha beta gamma delta river mountain coffee bread sourdough starter espresso bicycle chain honey bee swarm climate warming ocean forest'.split(
      ' ',
    );
  let x = seed;
  const next = (): string => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return words[x % words.length]!;
  };
  for (let i = 0; i < count; i++) {
    const para = (n: number): string => Array.from({ length: n }, next).join(' ');
    writeFileSync(
      join(dir, `${prefix}-${String(i).padStart(5, '0')}.md`),
      `# ${prefix} ${i}\n\n${para(90)}\n\n## Details\n\n${para(70)}\n`,
    );
  }
  return dir;
}

/** What a vault file holds, read directly with SQLite (no quiver code in between). */
export interface VaultCounts {
  documents: number;
  liveChunks: number;
  /** Live chunks with no vector under the vault's recorded embedder. */
  chunksWithoutVector: number;
  /** Vectors under any other fingerprint. */
  staleVectors: number;
  batches: { id: string; status: string; added: number }[];
}

export function vaultCounts(path: string): VaultCounts {
  const db = new Database(path, { readonly: true });
  try {
    const one = (sql: string, ...args: unknown[]): number =>
      (
        db
          .prepare(sql)
          .raw()
          .get(...args) as [number]
      )[0];
    const fp = (
      db.prepare(`SELECT value FROM meta WHERE key = 'embedder'`).raw().get() as [string] | undefined
    )?.[0];
    const liveChunks = one('SELECT COUNT(*) FROM chunks WHERE live = 1');
    return {
      documents: one('SELECT COUNT(*) FROM documents WHERE superseded_by IS NULL'),
      liveChunks,
      chunksWithoutVector:
        fp === undefined
          ? 0
          : liveChunks -
            one(
              'SELECT COUNT(*) FROM chunks c JOIN vectors v ON v.chunk_id = c.id AND v.fingerprint = ? WHERE c.live = 1',
              fp,
            ),
      staleVectors: fp === undefined ? 0 : one('SELECT COUNT(*) FROM vectors WHERE fingerprint != ?', fp),
      batches: db
        .prepare('SELECT id, status, added FROM batches ORDER BY seq')
        .all() as VaultCounts['batches'],
    };
  } finally {
    db.close();
  }
}

/** SHA-256 of a file's bytes, or null when it does not exist. */
export function fileHash(path: string): string | null {
  return existsSync(path) ? createHash('sha256').update(readFileSync(path)).digest('hex') : null;
}

/** Resolve once `predicate()` holds (checked every 25 ms; a throw counts as not yet), or reject after `ms`. */
export async function until(predicate: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  const holds = (): boolean => {
    try {
      return predicate();
    } catch {
      return false;
    }
  };
  while (!holds()) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Does the vault file record a running batch yet? */
export function hasRunningBatch(path: string): boolean {
  if (!existsSync(path)) return false;
  try {
    const db = new Database(path, { readonly: true });
    try {
      return db.prepare(`SELECT 1 FROM batches WHERE status = 'running'`).get() !== undefined;
    } finally {
      db.close();
    }
  } catch {
    return false;
  }
}

/** What must hold after any fault: a search still works (its exit code), and every live chunk has a vector. */
export async function afterFault(
  vault: string,
): Promise<{ searchCode: number | null; chunksWithoutVector: number }> {
  const search = await quiver(['search', 'coffee bread', '--vault', vault, '--json']);
  return { searchCode: search.code, chunksWithoutVector: vaultCounts(vault).chunksWithoutVector };
}
