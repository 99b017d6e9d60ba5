import { realpathSync } from 'node:fs';
import { isAbsolute, sep } from 'node:path';
import { QuiverError } from '../errors.js';

/**
 * Whether `child` is `root` itself or inside it, both absolute and already resolved (no `..`, no
 * symbolic links): equal, or `root` followed by a separator is a prefix of `child`. The separator
 * keeps `/srv/notes-private` out of `/srv/notes`; a root that ends in a separator (`/`) is used as
 * given. Comparison is by code units (case-sensitive, as on Linux).
 */
export function isUnder(child: string, root: string): boolean {
  if (child === root) return true;
  const prefix = root.endsWith(sep) ? root : root + sep;
  return child.startsWith(prefix);
}

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
  const resolvedRoots = roots.flatMap((r) => {
    try {
      return [realpathSync(r)];
    } catch {
      return [];
    }
  });
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    // Say "not found" only for paths that would be allowed, so probing outside the roots learns nothing.
    if (resolvedRoots.some((r) => isUnder(path, r)))
      throw new QuiverError('NOT_FOUND', `quiver: no file or folder ${path}`);
    throw new QuiverError('FORBIDDEN', `quiver: ${path} is not under the server's roots`);
  }
  if (!resolvedRoots.some((r) => isUnder(real, r)))
    throw new QuiverError('FORBIDDEN', `quiver: ${path} is not under the server's roots`);
  return real;
}
