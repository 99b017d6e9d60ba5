import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SKIPPED_DIRS, walkFiles, type WalkError, type WalkOptions } from './walk.js';

let root: string;

async function collect(
  dir: string,
  options: WalkOptions = {},
): Promise<{ files: string[]; errors: WalkError[]; skipped: [string, string][] }> {
  const files: string[] = [];
  const errors: WalkError[] = [];
  const skipped: [string, string][] = [];
  for await (const e of walkFiles(dir, options)) {
    if ('error' in e) errors.push(e);
    else if ('skipped' in e) skipped.push([e.relPath, e.skipped]);
    else files.push(e.relPath);
  }
  return { files, errors, skipped };
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'quiver-walk-'));
  const files = [
    'b.md',
    'a.txt',
    'Z.html',
    'docs/guide.md',
    'docs/deep/x.md',
    'docs/drafts/wip.md',
    '.hidden.md',
    '.obsidian/config.md',
    'node_modules/pkg/readme.md',
    'dist/out.md',
    '__pycache__/x.txt',
    'vendor/lib.md',
  ];
  for (const f of files) {
    await mkdir(join(root, f, '..'), { recursive: true });
    await writeFile(join(root, f), `# ${f}\n`);
  }
  await symlink(root, join(root, 'docs', 'loop')); // a symlinked folder: never followed
  await symlink(join(root, 'a.txt'), join(root, 'link.txt')); // a symlinked file: yielded
  await symlink(join(root, 'nowhere'), join(root, 'dangling.md')); // reported as an error
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('walkFiles', () => {
  it('lists files sorted, skipping hidden, dependency and build folders and linked folders', async () => {
    const { files, errors } = await collect(root);
    expect(files).toEqual([
      'Z.html',
      'a.txt',
      'b.md',
      'docs/deep/x.md',
      'docs/drafts/wip.md',
      'docs/guide.md',
      'link.txt',
    ]);
    expect(errors.map((e) => [e.relPath, e.error.code])).toEqual([['dangling.md', 'UNREADABLE']]);
    expect(SKIPPED_DIRS.has('node_modules')).toBe(true);
  });

  it('applies include and exclude globs to the relative path', async () => {
    expect((await collect(root, { include: ['**/*.md'] })).files).toEqual([
      'b.md',
      'docs/deep/x.md',
      'docs/drafts/wip.md',
      'docs/guide.md',
    ]);
    expect((await collect(root, { include: ['**/*.md'], exclude: ['docs/drafts/**'] })).files).toEqual([
      'b.md',
      'docs/deep/x.md',
      'docs/guide.md',
    ]);
    expect((await collect(root, { exclude: ['*.txt', 'docs'] })).files).toEqual(['Z.html', 'b.md']);
  });

  it('yields a file root as itself and a missing root as an error', async () => {
    const single = await collect(join(root, 'b.md'));
    expect(single.files).toEqual(['b.md']);
    const missing = await collect(join(root, 'nope'));
    expect(missing.files).toEqual([]);
    expect(missing.errors[0]?.error.code).toBe('UNREADABLE');
  });

  it.skipIf(process.getuid?.() === 0)('reports an unreadable folder instead of throwing', async () => {
    const locked = join(root, 'locked');
    await mkdir(locked);
    await writeFile(join(locked, 'secret.md'), 'x');
    await chmod(locked, 0o000);
    try {
      const { errors } = await collect(root);
      expect(errors.some((e) => e.relPath === 'locked')).toBe(true);
    } finally {
      await chmod(locked, 0o755);
      await rm(locked, { recursive: true });
    }
  });
});

describe('walkFiles skips what ingest should not read', () => {
  let dir: string;
  const sqlite = new Uint8Array([...new TextEncoder().encode('SQLite format 3\0'), 1, 2, 3]);
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'quiver-walk-skip-'));
    const files: [string, string | Uint8Array][] = [
      ['notes.md', '# Notes\n'],
      ['vault.db', sqlite],
      ['vault.db-wal', new Uint8Array([0x37, 0x7f, 0x06, 0x82, 0, 0])],
      ['vault.db-shm', new Uint8Array(64)],
      ['vault.db.hnsw.bin', new Uint8Array([1, 0, 2])],
      ['vault.db.lexical.json', '{"terms":[]}'],
      ['script.js', 'console.log(1);\n'],
      ['data.csv', 'a,b\n1,2\n'],
      ['Makefile', 'all:\n\techo hi\n'],
      ['photo.png', new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d])],
      ['nul.txt', new Uint8Array([0x68, 0x69, 0, 0x21])],
      ['db-as.md', sqlite],
      ['paper.pdf', new Uint8Array([...new TextEncoder().encode('%PDF-1.7\n'), 0, 0, 0xff, 0])],
      ['blob.bin', new Uint8Array([0, 1, 2, 3])],
    ];
    for (const [name, body] of files) await writeFile(join(dir, name), body);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("skips the vault's own files (the database and anything named after it) as vault-file", async () => {
    const { files, skipped } = await collect(dir, { ownFiles: [join(dir, 'vault.db')] });
    expect(files).toEqual(['notes.md', 'paper.pdf']);
    expect(skipped.filter(([, why]) => why === 'vault-file').map(([f]) => f)).toEqual([
      'vault.db',
      'vault.db-shm',
      'vault.db-wal',
      'vault.db.hnsw.bin',
      'vault.db.lexical.json',
    ]);
  });

  it('skips unknown extensions and files without one as unknown-type, and binary files as binary', async () => {
    const { files, skipped, errors } = await collect(dir);
    expect(errors).toEqual([]);
    expect(files).toEqual(['notes.md', 'paper.pdf']); // a PDF with its magic is not binary
    expect(skipped).toEqual([
      ['Makefile', 'unknown-type'],
      ['blob.bin', 'unknown-type'],
      ['data.csv', 'unknown-type'],
      ['db-as.md', 'binary'], // SQLite header under a text name
      ['nul.txt', 'binary'],
      ['photo.png', 'unknown-type'],
      ['script.js', 'unknown-type'],
      ['vault.db', 'unknown-type'],
      ['vault.db-shm', 'unknown-type'],
      ['vault.db-wal', 'unknown-type'],
      ['vault.db.hnsw.bin', 'unknown-type'],
      ['vault.db.lexical.json', 'unknown-type'],
    ]);
  });

  it('takes a file of any extension that an include glob matches, still sniffing for binary', async () => {
    const { files, skipped } = await collect(dir, { include: ['*.js', '*.csv', 'Makefile', '*.bin'] });
    expect(files).toEqual(['Makefile', 'data.csv', 'script.js']);
    expect(skipped).toEqual([
      ['blob.bin', 'binary'],
      ['vault.db.hnsw.bin', 'binary'],
    ]);
  });

  it('never skips a file named directly as the root', async () => {
    const own = join(dir, 'vault.db');
    expect((await collect(own, { ownFiles: [own] })).files).toEqual(['vault.db']);
    expect((await collect(join(dir, 'script.js'))).files).toEqual(['script.js']);
  });
});
