import { basename, dirname, resolve } from 'node:path';

/** The project root of a vault file: the folder holding `.quiver/`, or the file's own folder. */
export function vaultRoot(vaultPath: string): string {
  const dir = dirname(resolve(vaultPath));
  return basename(dir) === '.quiver' ? dirname(dir) : dir;
}
