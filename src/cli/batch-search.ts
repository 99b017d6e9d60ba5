/**
 * Many queries over one vault (`quiver search --queries`) on every core: `jobs` worker threads
 * (`batch-search-worker.ts`) each open the vault read-only and answer queries handed out one at
 * a time to whichever is free (a slow query holds up no other); lines are written in input
 * order, byte for byte what answering them one after another in this thread writes (a test
 * checks it). Each worker keeps `IN_FLIGHT` queries queued, so none waits for the main thread.
 *
 * A failed query stops the run with its error (the workers are stopped, nothing later is
 * written); so does the abort signal (`ABORTED`).
 */
import { Worker } from 'node:worker_threads';
import { QuiverError, type QuiverErrorCode } from '../errors.js';
import type { OpenVaultOptions, SearchOptions } from '../index.js';

/** What a worker needs to open the same vault and search it the same way (plain data). */
export interface BatchSetup {
  open: Pick<OpenVaultOptions, 'overrides' | 'env' | 'configFile'>;
  options: SearchOptions;
}
export interface BatchQuery {
  id: unknown;
  text: string;
}
/** Main → worker: a query to answer. */
export type QueryMessage = { i: number } & BatchQuery;
/** Worker → main: a query's JSON line or failure; `i: -1` is the worker's start (ready or not). */
export interface ReplyMessage {
  i: number;
  line?: Uint8Array;
  error?: { code: string; message: string };
}

const IN_FLIGHT = 2;

/** A worker thread of `batch-search-worker`, from the sources (through tsx) or the build. */
function startWorker(setup: BatchSetup): Worker {
  const here = import.meta.url;
  if (!here.endsWith('.ts'))
    return new Worker(new URL('./batch-search-worker.js', here), { workerData: setup });
  // A checkout run through tsx: a worker does not inherit the main thread's loader, so it registers it first.
  const tsx = import.meta.resolve('tsx/esm/api');
  const entry = new URL('./batch-search-worker.ts', here).href;
  const code = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(code, { eval: true, workerData: setup });
}

function errorOf(e: { code: string; message: string }): QuiverError {
  const code = e.code as QuiverErrorCode;
  return new QuiverError(code, e.message);
}

/** Answers `queries` on `jobs` worker threads, calling `write` with each line in input order. */
export async function searchInWorkers(
  queries: readonly BatchQuery[],
  setup: BatchSetup,
  jobs: number,
  write: (line: Uint8Array) => void,
  signal: AbortSignal,
): Promise<void> {
  const workers: Worker[] = [];
  const done = new Map<number, Uint8Array>();
  let next = 0; // the next query to hand out
  let written = 0; // the next line to write
  try {
    await new Promise<void>((resolve, reject) => {
      const stop = (e: Error): void => reject(e);
      const onAbort = (): void => stop(new QuiverError('ABORTED', 'quiver search: stopped by a signal'));
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      const give = (w: Worker): void => {
        if (next < queries.length) {
          const q = queries[next]!;
          w.postMessage({ i: next++, id: q.id, text: q.text } satisfies QueryMessage);
        }
      };
      const count = Math.max(1, Math.min(jobs, queries.length));
      for (let n = 0; n < count; n++) {
        const w = startWorker(setup);
        workers.push(w);
        w.on('error', (e) =>
          stop(new QuiverError('INTERNAL', `quiver search: a worker failed: ${e.message}`)),
        );
        w.on('message', (m: ReplyMessage) => {
          if (m.error !== undefined) return stop(errorOf(m.error));
          if (m.i === -1) {
            for (let k = 0; k < IN_FLIGHT; k++) give(w);
            return;
          }
          done.set(m.i, m.line!);
          while (done.has(written)) {
            write(done.get(written)!);
            done.delete(written++);
          }
          if (written === queries.length) {
            signal.removeEventListener('abort', onAbort);
            resolve();
          } else give(w);
        });
      }
      if (queries.length === 0) resolve();
    });
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}
