import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CONFIG_KEYS, loadConfig } from './config.js';
import { isQuiverError } from './errors.js';

const dir = mkdtempSync(join(tmpdir(), 'quiver-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function configError(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (isQuiverError(e, 'CONFIG')) return e.message;
    throw e;
  }
  throw new Error('expected CONFIG');
}

describe('loadConfig', () => {
  it('gives every key its default, marked as such', () => {
    const { config, sources, file } = loadConfig({ env: {}, cwd: dir });
    for (const [k, spec] of Object.entries(CONFIG_KEYS))
      expect(config[k as keyof typeof config]).toBe(spec.default);
    expect(new Set(Object.values(sources))).toEqual(new Set(['default']));
    expect(file).toBeNull();
  });

  it('layers file < environment < overrides, typed, and says where each value came from', () => {
    const f = join(dir, 'quiver.config.json');
    writeFileSync(f, JSON.stringify({ select: { method: 'mmr', sigma: 0.4 }, search: { limit: 3 } }));
    const { config, sources } = loadConfig({
      cwd: dir,
      env: { QUIVER_SIGMA: '0.3', QUIVER_ANN_NATIVE: 'off' },
      overrides: { 'search.limit': 9 },
    });
    expect(config['select.method']).toBe('mmr');
    expect(config['select.sigma']).toBe(0.3);
    expect(config['ann.native']).toBe(false);
    expect(config['search.limit']).toBe(9);
    expect([sources['select.method'], sources['select.sigma'], sources['search.limit']]).toEqual([
      'file',
      'env',
      'flag',
    ]);
    rmSync(f);
  });

  it('bad values name the key, where it came from and what it must be', () => {
    expect(configError(() => loadConfig({ cwd: dir, env: { QUIVER_SELECT: 'best' } }))).toBe(
      'quiver: config key "select.method" (from $QUIVER_SELECT) must be one of topk, mmr, dartboard, got "best"',
    );
    expect(configError(() => loadConfig({ cwd: dir, env: {}, overrides: { 'search.limit': 0 } }))).toMatch(
      /"search\.limit" \(from command line\) must be an integer from 1 to 1000, got 0/,
    );
    expect(configError(() => loadConfig({ cwd: dir, env: { QUIVER_ANN_NATIVE: 'maybe' } }))).toMatch(
      /must be true or false/,
    );
  });

  it('an unknown key in the file is an error listing the known keys', () => {
    const f = join(dir, 'bad.json');
    writeFileSync(f, JSON.stringify({ selct: { method: 'mmr' } }));
    expect(configError(() => loadConfig({ cwd: dir, env: {}, file: f }))).toMatch(
      /unknown config key "selct\.method".*known keys: vault,/,
    );
  });
});
