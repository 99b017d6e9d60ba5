import { lstatSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { QuiverError } from '../errors.js';
import { isUnder, realRoots } from '../ingest/path-under.js';

/**
 * A server-side path an admin asked to ingest, resolved through symbolic links and checked to lie
 * under one of the configured roots (`server.roots`, QUIVER_ROOTS). Not absolute → BAD_INPUT;
 * no roots configured or outside them → FORBIDDEN (the message never says what exists outside);
 * missing → NOT_FOUND.
 */
export function pathUnderRoots(path: string, roots: readonly string[]): string {
  if (!isAbsolute(path))
    throw new QuiverError('BAD_INPUT', `quiver: a server path must be absolute, got ${JSON.stringify(path)}`);
  if (roots.length === 0)
    throw new QuiverError(
      'FORBIDDEN',
      'quiver: this server ingests no server-side paths (set server.roots / QUIVER_ROOTS)',
    );
  const resolvedRoots = realRoots(roots);
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    // Say "not found" only for paths that would be allowed, so probing outside the roots learns
    // nothing: judged by where the part that exists really is (`root/../x`, a link out of a root).
    const existing = realAncestor(path);
    if (existing !== null && resolvedRoots.some((r) => isUnder(existing, r)))
      throw new QuiverError('NOT_FOUND', `quiver: no file or folder ${path}`);
    throw new QuiverError('FORBIDDEN', `quiver: ${path} is not under the server's roots`);
  }
  if (!resolvedRoots.some((r) => isUnder(real, r)))
    throw new QuiverError('FORBIDDEN', `quiver: ${path} is not under the server's roots`);
  return real;
}

/**
 * The real path of the longest leading part of `path` that exists, read as `realpathSync` reads
 * the whole path (so the two agree); null when that part ends in a link that cannot be followed
 * (where it leads is unknown, so nothing is said about it).
 */
function realAncestor(path: string): string | null {
  // `realpathSync` resolves `..` before it looks at links; `resolve` makes `lstatSync` do the same.
  for (let p = resolve(path); ;) {
    try {
      return realpathSync(p);
    } catch {
      try {
        if (lstatSync(p).isSymbolicLink()) return null;
      } catch {
        // Not there at all: look one level up.
      }
      const up = dirname(p);
      if (up === p) return null;
      p = up;
    }
  }
}
