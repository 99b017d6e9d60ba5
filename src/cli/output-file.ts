import { existsSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { QuiverError } from '../errors.js';

/** A report can be written to `path`: its folder exists (NOT_FOUND otherwise, before any work). */
export function checkWritable(path: string, command: string): void {
  const folder = dirname(path);
  if (!existsSync(folder))
    throw new QuiverError(
      'NOT_FOUND',
      `quiver ${command}: cannot write ${path}: folder ${folder} does not exist`,
    );
}

/**
 * Write a report file a command produces (`eval --out`, `--html`), with its failures as typed
 * errors: a missing folder NOT_FOUND, a full disk NO_SPACE, anything else (permissions) BAD_INPUT
 * naming the file.
 */
export function writeOutputFile(path: string, content: string, command: string): void {
  checkWritable(path, command);
  try {
    writeFileSync(path, content);
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (code === 'ENOSPC' || code === 'EDQUOT')
      throw new QuiverError('NO_SPACE', `quiver ${command}: the disk is full writing ${path}`, { cause: e });
    throw new QuiverError('BAD_INPUT', `quiver ${command}: cannot write ${path}: ${(e as Error).message}`, {
      cause: e,
    });
  }
}
