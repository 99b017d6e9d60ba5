import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { isQuiverError } from '../errors.js';
import { isUnder } from '../ingest/path-under.js';
import { pathUnderRoots } from './roots.js';

describe('isUnder', () => {
  it('takes the root itself and what is inside it', () => {
    expect(isUnder('/srv/notes', '/srv/notes')).toBe(true);
    expect(isUnder('/srv/notes/a/b.md', '/srv/notes')).toBe(true);
  });
  it('refuses a sibling that shares the prefix', () => {
    expect(isUnder('/srv/notes-private/x', '/srv/notes')).toBe(false);
    expect(isUnder('/srv', '/srv/notes')).toBe(false);
  });
  it('reads a root ending in a separator as given', () => {
    expect(isUnder('/anything', '/')).toBe(true);
    expect(isUnder('/srv/notes/x', '/srv/notes/')).toBe(true);
  });
  it('never takes a path with a different first segment', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z]{1,8}$/), fc.stringMatching(/^[a-z]{1,8}$/), (a, b) => {
        fc.pre(a !== b && !b.startsWith(a));
        return !isUnder(`/${b}/x`, `/${a}`);
      }),
    );
  });
});

describe('pathUnderRoots (real files)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'quiver-roots-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const root = join(dir, 'notes');
  const outside = join(dir, 'secret');
  mkdirSync(join(root, 'sub'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(root, 'sub', 'a.md'), '# a');
  writeFileSync(join(outside, 'key.txt'), 'k');
  symlinkSync(outside, join(root, 'escape'));
  const code = (f: () => unknown): string | null => {
    try {
      f();
      return null;
    } catch (e) {
      return isQuiverError(e) ? e.code : 'OTHER';
    }
  };

  it('resolves a file under a root', () => {
    expect(pathUnderRoots(join(root, 'sub', 'a.md'), [root])).toBe(join(root, 'sub', 'a.md'));
  });
  it('refuses `..` and symbolic links that lead out', () => {
    expect(code(() => pathUnderRoots(join(root, '..', 'secret', 'key.txt'), [root]))).toBe('FORBIDDEN');
    expect(code(() => pathUnderRoots(join(root, 'escape', 'key.txt'), [root]))).toBe('FORBIDDEN');
  });
  it('refuses relative paths and every path when no root is configured', () => {
    expect(code(() => pathUnderRoots('notes/sub', [root]))).toBe('BAD_INPUT');
    expect(code(() => pathUnderRoots(join(root, 'sub'), []))).toBe('FORBIDDEN');
  });
  it('says NOT_FOUND only inside the roots', () => {
    expect(code(() => pathUnderRoots(join(root, 'nope.md'), [root]))).toBe('NOT_FOUND');
    expect(code(() => pathUnderRoots(join(outside, 'nope.md'), [root]))).toBe('FORBIDDEN');
  });
});
