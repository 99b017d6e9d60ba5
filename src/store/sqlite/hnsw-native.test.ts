import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import stockHnswlib from 'hnswlib-node';
import { afterAll, describe, expect, it } from 'vitest';
import { hnswNative, NATIVE_BUILD_DIR, resolveHnswNative } from './hnsw-native.js';

const dir = mkdtempSync(join(tmpdir(), 'quiver-native-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const here = {
  cpu: cpus()[0]?.model ?? 'unknown',
  platform: process.platform,
  arch: process.arch,
  nodeAbi: process.versions.modules,
};

/** A build folder holding copies of the installed pieces and the given manifest. */
function buildDir(name: string, manifest: unknown, files: string[] = ['hnswlib.node', 'hnsw-build']): string {
  const d = join(dir, name);
  mkdirSync(d);
  for (const f of files) copyFileSync(join(NATIVE_BUILD_DIR, f), join(d, f));
  writeFileSync(join(d, 'manifest.json'), typeof manifest === 'string' ? manifest : JSON.stringify(manifest));
  return d;
}

const full = { ...here, addon: 'hnswlib.node', builder: 'hnsw-build' };

describe('choosing the hnswlib build', () => {
  it('the install (scripts/build-native.mjs) built both pieces for this machine, and they are used', () => {
    const installed = JSON.parse(readFileSync(join(NATIVE_BUILD_DIR, 'manifest.json'), 'utf8')) as unknown;
    expect(installed).toMatchObject(full);
    const n = hnswNative();
    expect(n).toMatchObject({ search: 'accelerated', note: null });
    expect(n.builder).toBe(join(NATIVE_BUILD_DIR, 'hnsw-build'));
    expect(n.lib).not.toBe(stockHnswlib);
  });

  it('a matching manifest loads the accelerated addon, and it answers like the stock one', () => {
    const n = resolveHnswNative(true, buildDir('ok', full));
    expect(n.search).toBe('accelerated');
    expect(n.builder).toBe(join(dir, 'ok', 'hnsw-build'));
    const answers = [n.lib, stockHnswlib].map((lib) => {
      const ix = new lib.HierarchicalNSW('ip', 4);
      ix.initIndex({ maxElements: 8, m: 4, efConstruction: 20, randomSeed: 1 });
      const rows = [
        [1, 0, 0, 0],
        [0, 1, 0, 0],
        [0, 0, 1, 0],
        [0.6, 0.8, 0, 0],
      ];
      rows.forEach((r, i) => ix.addPoint(r, i));
      return ix.searchKnn([0.8, 0.6, 0, 0], 2);
    });
    expect(answers[0]).toEqual(answers[1]);
  });

  it('ann.native = false, a missing or unreadable manifest, or another machine → the stock binding', () => {
    expect(resolveHnswNative(false, buildDir('off', full))).toMatchObject({
      lib: stockHnswlib,
      search: 'stock',
      builder: null,
      note: expect.stringMatching(/ann\.native/),
    });
    expect(resolveHnswNative(true, join(dir, 'nowhere')).note).toMatch(/not built/);
    expect(resolveHnswNative(true, buildDir('garbage', '{not json')).note).toMatch(/unreadable/);
    expect(resolveHnswNative(true, buildDir('schema', { cpu: 1 })).note).toMatch(/unreadable/);
    for (const [key, value] of [
      ['cpu', 'Some Other CPU'],
      ['platform', 'aix'],
      ['arch', 'mips'],
      ['nodeAbi', '1'],
    ] as const) {
      const n = resolveHnswNative(true, buildDir(`other-${key}`, { ...full, [key]: value }));
      expect(n).toMatchObject({ search: 'stock', builder: null });
      expect(n.note).toContain(`another ${key}`);
    }
  });

  it('uses what is there: a failed addon build leaves the builder, a failed builder leaves the addon', () => {
    const noAddon = resolveHnswNative(true, buildDir('no-addon', { ...full, addon: null }, ['hnsw-build']));
    expect(noAddon).toMatchObject({ lib: stockHnswlib, search: 'stock', note: 'no accelerated addon' });
    expect(noAddon.builder).not.toBeNull();
    const noBuilder = resolveHnswNative(
      true,
      buildDir('no-builder', { ...full, builder: null }, ['hnswlib.node']),
    );
    expect(noBuilder).toMatchObject({ search: 'accelerated', builder: null, note: 'no parallel builder' });
    const broken = buildDir('broken-addon', full, ['hnsw-build']);
    writeFileSync(join(broken, 'hnswlib.node'), 'not a shared object');
    const n = resolveHnswNative(true, broken);
    expect(n).toMatchObject({ lib: stockHnswlib, search: 'stock' });
    expect(n.note).toMatch(/did not load/);
  });
});
