import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SKIPPED_DIRS, walkFiles, type WalkError, type WalkFile } from './walk.js';

let root: string;

async function collect(dir: string, options = {}): Promise<{ files: string[]; errors: WalkError[] }> {
  const files: string[] = [];
  const errors: WalkError[] = [];
  for await (const e of walkFiles(dir, options)) {
    if ('error' in e) errors.push(e);
    else files.push((e as WalkFile).relPath);
  }
  return { files, errors };
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
