import type { Dirent } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import picomatch from 'picomatch';
import type { QuiverError } from '../errors.js';
import { binaryReason, hasPdfMagic, KNOWN_EXTENSIONS, SNIFF_BYTES } from './detect.js';
import { readHead, unreadable } from './file-head.js';
import { isUnder } from './path-under.js';

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
  /**
   * Glob patterns (picomatch) over the path relative to the root, POSIX separators; a file must
   * match one. A matching file is taken whatever its extension (binary sniffing still applies).
   * Defaults to all files with a known extension.
   */
  include?: string[];
  /** Glob patterns; a file or folder matching any is skipped. */
  exclude?: string[];
  /**
   * Absolute paths of the vault's own files: a file whose absolute path is one of them, or starts
   * with one (`vault.db-wal`, `vault.db-shm`, `vault.db.hnsw…`, `vault.db.lexical…`), is skipped as
   * `'vault-file'`. Defaults to none.
   */
  ownFiles?: readonly string[];
  /**
   * Real (resolved) folders that a linked file must lead into to be read; one leading elsewhere is
   * skipped as `'outside-roots'` (a server ingesting under its configured roots). Unset: any.
   */
  within?: readonly string[];
}

/** A file found by {@link walkFiles}. */
export interface WalkFile {
  /** The path to open: `join(root, relPath)`. */
  path: string;
  /** Relative to the root, POSIX separators. */
  relPath: string;
}

/** Why a folder walk passed over a file. */
export type SkipReason = 'vault-file' | 'binary' | 'unknown-type' | 'outside-roots';

/** A file a folder walk found but will not have read, and why (reported so a caller can list them). */
export interface WalkSkipped {
  path: string;
  relPath: string;
  skipped: SkipReason;
}

const KNOWN: ReadonlySet<string> = new Set(KNOWN_EXTENSIONS);

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
 *
 * A file that passes the globs is still yielded as a {@link WalkSkipped}, in this order of checks:
 * - `'vault-file'`: its absolute path is, or starts with, one of `ownFiles`;
 * - `'unknown-type'`: its extension (case-insensitive) is not in `KNOWN_EXTENSIONS` and no `include`
 *   was given (a matching `include` takes any extension in);
 * - `'binary'`: its first `SNIFF_BYTES` look binary (`binaryReason`: a NUL byte, control bytes, a
 *   SQLite header), unless they hold the `%PDF-` magic.
 *
 * Entries that cannot be read (permissions, dangling links, a file that cannot be sniffed) are
 * yielded as {@link WalkError}s. A `root` that is a file yields that file alone, never skipped (its
 * reader gives its own error).
 */
export async function* walkFiles(
  root: string,
  options: WalkOptions = {},
): AsyncGenerator<WalkFile | WalkError | WalkSkipped> {
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
  const own = (options.ownFiles ?? []).map((f) => resolve(f));

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

  /** The file itself, or why it is skipped. */
  async function judge(path: string, rel: string): Promise<WalkFile | WalkError | WalkSkipped> {
    const abs = resolve(path);
    if (own.some((f) => abs.startsWith(f))) return { path, relPath: rel, skipped: 'vault-file' };
    if (include === undefined && !KNOWN.has(extensionOf(rel))) {
      return { path, relPath: rel, skipped: 'unknown-type' };
    }
    let head: Uint8Array;
    try {
      head = await readHead(path, SNIFF_BYTES);
    } catch (cause) {
      return { path, relPath: rel, error: unreadable(path, cause) };
    }
    if (!hasPdfMagic(head) && binaryReason(head) !== undefined) {
      return { path, relPath: rel, skipped: 'binary' };
    }
    return { path, relPath: rel };
  }

  // Folders are visited depth first, entries in sorted order.
  async function* visit(dirRel: string): AsyncGenerator<WalkFile | WalkError | WalkSkipped> {
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
          const within = options.within;
          if (isFile && within !== undefined) {
            const real = await realpath(path);
            if (!within.some((r) => isUnder(real, r))) {
              yield { path, relPath: rel, skipped: 'outside-roots' };
              continue;
            }
          }
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
        yield await judge(path, rel);
      }
    }
  }
  yield* visit('');
}

/** The lowercased extension of a path's last segment ('' for none or a leading dot only). */
function extensionOf(rel: string): string {
  const base = rel.slice(rel.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
}
