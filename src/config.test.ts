import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CONFIG_KEYS, loadConfig, shownValue, storeLocation } from './config.js';
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

describe('the store key (issue 20)', () => {
  it('defaults to empty (the vault file), is set from $QUIVER_STORE, and sits beside store.busyTimeoutMs', () => {
    expect(loadConfig({ cwd: dir, env: {} }).config.store).toBe('');
    const fromEnv = loadConfig({ cwd: dir, env: { QUIVER_STORE: 'postgres://quiver@db/notes' } });
    expect(fromEnv.config.store).toBe('postgres://quiver@db/notes');
    expect(fromEnv.sources.store).toBe('env');
    const f = join(dir, 'store.json');
    // `store` is a key and a group (`store.busyTimeoutMs`): an object under it is the group.
    writeFileSync(f, JSON.stringify({ store: { busyTimeoutMs: 100 } }));
    const grouped = loadConfig({ cwd: dir, env: {}, file: f });
    expect([grouped.config.store, grouped.config['store.busyTimeoutMs']]).toEqual(['', 100]);
    writeFileSync(f, JSON.stringify({ store: 'sqlite:/srv/notes.db', 'store.busyTimeoutMs': 200 }));
    const flat = loadConfig({ cwd: dir, env: {}, file: f });
    expect([flat.config.store, flat.config['store.busyTimeoutMs']]).toEqual(['sqlite:/srv/notes.db', 200]);
    expect(flat.sources.store).toBe('file');
    rmSync(f);
  });

  it('the data lives at `store` when set, unless `vault` came from a later layer (a --vault flag)', () => {
    const pg = 'postgres://quiver@db/notes';
    expect(storeLocation(loadConfig({ cwd: dir, env: {} }))).toBe('.quiver/vault.db');
    expect(storeLocation(loadConfig({ cwd: dir, env: { QUIVER_STORE: pg } }))).toBe(pg);
    // Both from the environment: the store.
    expect(storeLocation(loadConfig({ cwd: dir, env: { QUIVER_STORE: pg, QUIVER_VAULT: 'a.db' } }))).toBe(pg);
    // A flag (or a throwaway vault's override) names a file: that file, whatever QUIVER_STORE says.
    expect(
      storeLocation(loadConfig({ cwd: dir, env: { QUIVER_STORE: pg }, overrides: { vault: 'b.db' } })),
    ).toBe('b.db');
    expect(
      storeLocation(loadConfig({ cwd: dir, env: { QUIVER_STORE: pg }, overrides: { store: 'sqlite:c.db' } })),
    ).toBe('sqlite:c.db');
  });

  it('shows a URL with its password redacted, and other values as they are', () => {
    expect(shownValue('postgres://quiver:s3cret@db:5432/notes')).toBe('postgres://quiver:***@db:5432/notes');
    expect(shownValue('postgres://db/notes?password=s3cret&sslmode=require')).toBe(
      'postgres://db/notes?password=***&sslmode=require',
    );
    expect(shownValue('.quiver/vault.db')).toBe('.quiver/vault.db');
    expect(shownValue(5000)).toBe(5000);
  });
});
