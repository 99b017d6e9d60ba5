import { realpathSync } from 'node:fs';
import { QuiverError } from '../errors.js';
import type { AddInput } from '../ingest/ingest.js';
import { isUnder } from '../ingest/path-under.js';
import type { JobRecord } from '../store/store.js';
import type { Vault } from '../vault.js';
import { runEvalJob } from './eval-job.js';
import { ingestPayload, isJobKind } from './job-kinds.js';

/** What a handler is given besides the job: progress reports and a stop signal. */
export interface JobContext {
  progress: (p: Record<string, unknown>) => void;
  signal: AbortSignal;
}

/**
 * Run one job against a vault opened for writing and return its result (JSON for `ackJob`).
 * Every handler is safe to run again after a worker died half-way: an ingest skips documents
 * whose content hash is already stored (a redelivered job writes nothing twice), a reindex
 * resumes, an index build reconciles, a fit replaces the saved model.
 */
export async function runJob(
  vault: Vault,
  job: JobRecord,
  ctx: JobContext,
): Promise<Record<string, unknown>> {
  if (!isJobKind(job.kind))
    throw new QuiverError('BAD_INPUT', `quiver: no handler for job kind "${job.kind}"`);
  const signal = ctx.signal;
  switch (job.kind) {
    case 'ingest': {
      const p = ingestPayload(job.payload);
      if (p.roots !== undefined) for (const path of p.paths ?? []) checkUnder(path, p.roots);
      const inputs: AddInput[] = [...(p.paths ?? []), ...(p.texts ?? [])];
      for (const u of p.uploads ?? []) {
        const bytes = await vault.store.getBlob(u.blob);
        if (bytes === null)
          throw new QuiverError(
            'NOT_FOUND',
            `quiver: the upload ${u.name} is gone from the vault (blob ${u.blob})`,
          );
        inputs.push({ bytes, source: u.name });
      }
      const r = await vault.add(inputs, {
        signal,
        ...(p.include === undefined ? {} : { include: p.include }),
        ...(p.exclude === undefined ? {} : { exclude: p.exclude }),
        ...(p.sync === undefined ? {} : { sync: p.sync }),
        ...(p.roots === undefined ? {} : { within: p.roots }),
        onProgress: (x) => ctx.progress({ done: x.done, total: x.total, source: x.source }),
      });
      // The report as stored JSON (the faces show it through wire/jobs.ts, as `add` shows it).
      return JSON.parse(JSON.stringify(r)) as Record<string, unknown>;
    }
    case 'reindex':
    case 'refit': {
      const r = await vault.reindex({
        signal,
        refit: job.kind === 'refit',
        onProgress: (done: number, total: number) => ctx.progress({ done, total }),
      });
      return { ...r };
    }
    case 'index':
      return { ...(await vault.prepareIndexes()) };
    case 'noise-fit': {
      return JSON.parse(JSON.stringify(await vault.quality.fitNoise({ save: true }))) as Record<
        string,
        unknown
      >;
    }
    case 'eval':
      return runEvalJob(vault, job, ctx);
  }
}

/** A path still really under one of `roots` when the job runs (FORBIDDEN, dead at once, if not). */
function checkUnder(path: string, roots: readonly string[]): void {
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    return; // gone: the ingest itself says NOT_FOUND
  }
  if (!roots.some((r) => isUnder(real, r)))
    throw new QuiverError(
      'FORBIDDEN',
      `quiver: ${path} now leads outside the server's roots; nothing was added`,
    );
}

/**
 * Failures that another attempt cannot mend (the input itself is wrong): the job goes to the dead
 * letter at once, with the error. Anything else (busy vault, full disk, a remote embedder down, a
 * crash) is retried with backoff.
 */
export function isPermanent(e: unknown): boolean {
  if (!(e instanceof QuiverError)) return false;
  return ['BAD_INPUT', 'NOT_FOUND', 'CONFIG', 'SCHEMA', 'EMBEDDER_MISMATCH', 'UNSUPPORTED_FILE'].includes(
    e.code,
  );
}
