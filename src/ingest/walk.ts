import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import picomatch from 'picomatch';
import { QuiverError } from '../errors.js';

/** Folder names never descended into: dependencies, build output, caches, VCS metadata. */
export const SKIPPED_DIRS: ReadonlySet<string> = new Set([
  'node_modules',
  'bower_components',
  'jspm_packages',
  'vendor',
  '__pycache__',
  'dist',
  'build',
  'target',
  'out',
  'coverage',
  'venv',
  'site-packages',
  '.git',
  '.hg',
  '.svn',
  '.quiver',
  '.venv',
  '.cache',
  '.next',
  '.tox',
]);

export interface WalkOptions {
  /** Glob patterns (picomatch) over the path relative to the root, POSIX separators; a file must match one. Defaults to all files. */
  include?: string[];
  /** Glob patterns; a file or folder matching any is skipped. */
  exclude?: string[];
}

/** A file found by {@link walkFiles}. */
export interface WalkFile {
  /** The path to open: `join(root, relPath)`. */
  path: string;
  /** Relative to the root, POSIX separators. */
  relPath: string;
}

/** An entry that could not be read; reported instead of thrown so a walk never stops half-way. */
export interface WalkError {
  path: string;
  relPath: string;
  error: QuiverError;
}

/**
 * Every file under `root`, recursively, in sorted order (names compared by UTF-16 code units, files
 * and folders together, depth first), so two walks of the same tree agree.
 *
 * Skips hidden files and folders (a leading `.`), folders in {@link SKIPPED_DIRS}, and symlinks to
 * folders (never followed, so loops are impossible); symlinks to files are yielded. `include` /
 * `exclude` globs match the relative path (`dot: true`, so patterns see hidden names if asked).
 * Entries that cannot be read (permissions, dangling links) are yielded as {@link WalkError}s. A
 * `root` that is a file yields that file alone.
 */
export async function* walkFiles(
  root: string,
  options: WalkOptions = {},
): AsyncGenerator<WalkFile | WalkError> {
  const include =
    options.include !== undefined && options.include.length > 0
      ? picomatch(options.include, { dot: true })
      : undefined;
  const exclude =
    options.exclude !== undefined && options.exclude.length > 0
      ? picomatch(options.exclude, { dot: true })
      : undefined;
  const wanted = (rel: string): boolean =>
    (include === undefined || include(rel)) && !(exclude?.(rel) ?? false);

  let rootStat;
  try {
    rootStat = await stat(root);
  } catch (cause) {
    yield { path: root, relPath: '', error: unreadable(root, cause) };
    return;
  }
  if (!rootStat.isDirectory()) {
    const rel = basename(root);
    if (wanted(rel)) yield { path: root, relPath: rel };
    return;
  }

  // Folders are visited depth first, entries in sorted order.
  async function* visit(dirRel: string): AsyncGenerator<WalkFile | WalkError> {
    const dirPath = dirRel === '' ? root : join(root, dirRel);
    let entries: Dirent[];
    try {
      entries = await readdir(dirPath, { withFileTypes: true });
    } catch (cause) {
      yield { path: dirPath, relPath: dirRel, error: unreadable(dirPath, cause) };
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const rel = dirRel === '' ? entry.name : `${dirRel}/${entry.name}`;
      const path = join(root, rel);
      let isDir = entry.isDirectory();
      let isFile = entry.isFile();
      if (entry.isSymbolicLink()) {
        try {
          const target = await stat(path);
          if (target.isDirectory()) continue; // never follow linked folders
          isDir = false;
          isFile = target.isFile();
        } catch (cause) {
          yield { path, relPath: rel, error: unreadable(path, cause) };
          continue;
        }
      }
      if (isDir) {
        if (SKIPPED_DIRS.has(entry.name) || (exclude?.(rel) ?? false) || (exclude?.(`${rel}/`) ?? false))
          continue;
        yield* visit(rel);
      } else if (isFile && wanted(rel)) {
        yield { path, relPath: rel };
      }
    }
  }
  yield* visit('');
}

function unreadable(path: string, cause: unknown): QuiverError {
  const code =
    typeof cause === 'object' && cause !== null && 'code' in cause ? String(cause.code) : String(cause);
  return new QuiverError('UNREADABLE', `quiver: cannot read ${path} (${code})`, { cause, details: { path } });
}
