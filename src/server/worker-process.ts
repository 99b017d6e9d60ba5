import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * The server's job worker: `quiver queue work` in a child process with its own connection to the
 * vault, so an ingest never runs on the request thread (SQLite WAL gives the server's readers a
 * consistent snapshot meanwhile). A worker that exits unexpectedly is started again after a pause
 * that doubles up to a minute; `stop` sends SIGTERM (the job in hand is put back, due now) and
 * waits for the exit. A server killed with SIGKILL cannot send it: the worker then sees its parent
 * gone within a second and stops the same way ({@link WORKER_PARENT_ENV}).
 */

/**
 * Set for the worker to the server's pid: `quiver queue work` stops (its job given back) once that
 * process is gone, so a server killed with SIGKILL leaves no worker behind.
 */
export const WORKER_PARENT_ENV = 'QUIVER_WORKER_PARENT';

/** `bin/quiver.js`, from `src/server/` or `dist/server/` alike. */
const BIN = fileURLToPath(new URL('../../bin/quiver.js', import.meta.url));

export interface WorkerProcess {
  /** The running child's pid (null between restarts). */
  pid(): number | null;
  stop(): Promise<void>;
}

export function startWorkerProcess(options: {
  /**
   * Where the vault's data lives (`storeLocation`: a path, or a URL with its password), handed to
   * the child as QUIVER_STORE, never on its command line where `ps` would show a password.
   */
  vault: string;
  configFile?: string;
  env: NodeJS.ProcessEnv;
  log?: (line: string) => void;
}): WorkerProcess {
  let child: ChildProcess | null = null;
  let stopping = false;
  let pause = 1000;
  let restart: NodeJS.Timeout | null = null;
  const args = [
    BIN,
    'queue',
    'work',
    ...(options.configFile === undefined ? [] : ['--config', options.configFile]),
  ];
  // Killed with SIGKILL, this process cannot stop its worker: the worker watches for that.
  const env = { ...options.env, QUIVER_STORE: options.vault, [WORKER_PARENT_ENV]: String(process.pid) };
  const start = (): void => {
    const c = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    child = c;
    const started = Date.now();
    c.stderr?.setEncoding('utf8');
    c.stderr?.on('data', (d: string) => {
      for (const line of d.split('\n')) if (line.trim() !== '') options.log?.(`worker: ${line}`);
    });
    c.once('exit', (code, signal) => {
      child = null;
      if (stopping) return;
      if (Date.now() - started > 60_000) pause = 1000;
      options.log?.(`worker: exited (${signal ?? code}); starting again in ${pause / 1000} s`);
      restart = setTimeout(start, pause);
      restart.unref();
      pause = Math.min(pause * 2, 60_000);
    });
  };
  start();
  return {
    pid: () => child?.pid ?? null,
    stop: async () => {
      stopping = true;
      if (restart !== null) clearTimeout(restart);
      const c = child;
      if (c === null || c.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        const kill = setTimeout(() => c.kill('SIGKILL'), 10_000);
        c.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        c.kill('SIGTERM');
      });
    },
  };
}
