import { createReadStream, createWriteStream, existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import { QuiverError } from '../errors.js';
import type { Store } from '../store/store.js';
import { exportVault, type ExportOptions, type ExportReport } from './export.js';
import { importVault, type ImportOptions, type ImportReport } from './import.js';

/**
 * Exports and imports as files or streams. A file whose name ends in `.gz` is written gzipped; a
 * gzipped input is recognised by its first bytes whatever its name. An export to a file is written
 * beside it under a temporary name and renamed at the end, so a failed export leaves no half file.
 */

/** Where an export goes: a file path, or a stream (standard output; written to, not ended). */
export type ExportTarget = string | NodeJS.WritableStream;
/** Where an import comes from: a file path, or a stream (standard input). */
export type ImportSource = string | NodeJS.ReadableStream;

/** A line writer over a stream that waits for 'drain' when the stream's buffer is full. */
function lineWriter(stream: Writable): (line: string) => Promise<void> {
  return async (line) => {
    if (!stream.write(line))
      await new Promise<void>((ok, fail) => {
        const onDrain = (): void => {
          stream.off('error', onError);
          ok();
        };
        const onError = (e: Error): void => {
          stream.off('drain', onDrain);
          fail(e);
        };
        stream.once('drain', onDrain);
        stream.once('error', onError);
      });
  };
}

/** {@link exportVault} into a file (gzipped when it ends in `.gz`) or a stream. */
export async function exportVaultTo(
  store: Store,
  target: ExportTarget,
  options: ExportOptions = {},
): Promise<ExportReport> {
  // A stream is the caller's: written to (with its backpressure), never ended.
  if (typeof target !== 'string') return exportVault(store, lineWriter(target as Writable), options);
  const path = resolve(target);
  if (!existsSync(dirname(path)))
    throw new QuiverError('NOT_FOUND', `quiver export: folder ${dirname(path)} does not exist`);
  const temp = `${path}.tmp-${process.pid}`;
  const file = createWriteStream(temp);
  const gzip = path.endsWith('.gz') ? createGzip() : null;
  const head: Writable = gzip ?? file;
  const piped = gzip === null ? finished(file) : pipeline(gzip, file);
  try {
    const report = await exportVault(store, lineWriter(head), options);
    head.end();
    await piped;
    renameSync(temp, path);
    return report;
  } catch (e) {
    head.destroy();
    await piped.catch(() => undefined);
    rmSync(temp, { force: true });
    if ((e as NodeJS.ErrnoException).code === 'ENOSPC')
      throw new QuiverError('NO_SPACE', `quiver export: the disk is full writing ${path}; no file was left`, {
        cause: e,
      });
    throw e;
  }
}

/** Lines of a file, un-gzipped when it starts with gzip's magic bytes. */
async function* fileLines(path: string): AsyncGenerator<string> {
  const magic = await firstBytes(path, 2);
  const raw = createReadStream(path);
  const text: Readable = magic[0] === 0x1f && magic[1] === 0x8b ? raw.pipe(createGunzip()) : raw;
  raw.on('error', (e) => text.destroy(e));
  const rl = createInterface({ input: text, crlfDelay: Infinity });
  try {
    for await (const line of rl) yield line;
  } catch (e) {
    if (
      (e as NodeJS.ErrnoException).code === 'Z_DATA_ERROR' ||
      (e as NodeJS.ErrnoException).code === 'Z_BUF_ERROR'
    )
      throw new QuiverError('BAD_INPUT', `quiver import: ${path} is damaged gzip: ${(e as Error).message}`, {
        cause: e,
      });
    throw e;
  } finally {
    rl.close();
    raw.destroy();
  }
}

async function firstBytes(path: string, n: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let got = 0;
  for await (const c of createReadStream(path, { start: 0, end: n - 1 })) {
    chunks.push(c as Buffer);
    got += (c as Buffer).length;
    if (got >= n) break;
  }
  return Buffer.concat(chunks);
}

/**
 * {@link importVault} from a file or a stream. A stream is read once into a temporary file (the
 * import reads its input twice: to check every line, then to write).
 */
export async function importVaultFrom(
  store: Store,
  source: ImportSource,
  options: ImportOptions = {},
): Promise<ImportReport> {
  if (typeof source !== 'string') {
    const dir = mkdtempSync(join(tmpdir(), 'quiver-import-'));
    try {
      const spool = join(dir, 'export.jsonl');
      await pipeline(source, createWriteStream(spool));
      return await importVaultFrom(store, spool, options);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const path = resolve(source);
  if (!existsSync(path)) throw new QuiverError('NOT_FOUND', `quiver import: no file ${source}`);
  return importVault(store, () => fileLines(path), options);
}
