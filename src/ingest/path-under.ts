import { realpathSync } from 'node:fs';
import { sep } from 'node:path';

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

/** The configured roots resolved through links; roots that do not exist are left out. */
export function realRoots(roots: readonly string[]): string[] {
  return roots.flatMap((r) => {
    try {
      return [realpathSync(r)];
    } catch {
      return [];
    }
  });
}
