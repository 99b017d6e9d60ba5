// On-disk sizes: a folder's files, or a file and its sidecars (same basename prefix).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** Total bytes of the regular files under `dir`. */
export function dirBytes(dir: string): number {
  if (!existsSync(dir)) return 0;
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) total += dirBytes(p);
    else if (e.isFile()) total += statSync(p).size;
  }
  return total;
}

/** Bytes of `file` plus every file beside it whose name starts with its name (`-wal`, sidecars). */
export function fileWithSidecarsBytes(file: string): number {
  const dir = dirname(file);
  const name = basename(file);
  if (!existsSync(dir)) return 0;
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (!e.name.startsWith(name)) continue;
    total += e.isDirectory() ? dirBytes(p) : statSync(p).size;
  }
  return total;
}

/** UTF-8 byte length of a serialised index. */
export function utf8Bytes(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}
