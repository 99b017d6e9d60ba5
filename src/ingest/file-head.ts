import { open } from 'node:fs/promises';
import { QuiverError } from '../errors.js';

/** Up to `n` bytes of a file from `position` (defaults to its start); file-system errors are thrown as they are. */
export async function readHead(path: string, n: number, position = 0): Promise<Uint8Array> {
  const handle = await open(path, 'r');
  try {
    const buffer = new Uint8Array(n);
    const { bytesRead } = await handle.read(buffer, 0, n, position);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** The errno code of a file-system error (`EACCES`), else the error's message. */
function codeOf(e: unknown): string {
  if (typeof e === 'object' && e !== null && 'code' in e && typeof e.code === 'string') return e.code;
  return e instanceof Error ? e.message : String(e);
}

/** The one UNREADABLE error for a path a file-system call failed on: `cannot read PATH (CODE)`. */
export function unreadable(path: string, cause: unknown): QuiverError {
  return new QuiverError('UNREADABLE', `quiver: cannot read ${path} (${codeOf(cause)})`, {
    cause,
    details: { path },
  });
}
