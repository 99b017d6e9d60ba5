import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isQuiverError } from '../errors.js';
import { ingestRoot } from '../ingest/vault-root.js';
import { Vault } from '../vault.js';
import { createTestDatabase, describePostgres, type TestDatabase } from './postgres/_test-database.js';
import { parseStoreLocation, redactLocation } from './location.js';
import { isMissingPackage, openStore } from './open-store.js';
import { SqliteStore } from './sqlite/sqlite-store.js';

const dir = mkdtempSync(join(tmpdir(), 'quiver-open-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function rejection(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await p;
  } catch (e) {
    if (isQuiverError(e)) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error('expected a QuiverError');
}

describe('openStore (issue 20)', () => {
  it('opens a file path as a SQLite store, with the SQLite section and the neutral knobs', async () => {
    const path = join(dir, 'plain.db');
    const s = await openStore(path, { sqlite: { busyTimeoutMs: 100 } });
    expect(s).toBeInstanceOf(SqliteStore);
    expect([s.kind, s.location]).toEqual(['sqlite', path]);
    expect(s.backup).toBeTypeOf('function');
    expect(s.indexes).toBeDefined();
    await s.close();
    const ro = await openStore(path, { readonly: true });
    await expect(ro.setMeta('k', 'v')).rejects.toThrow();
    await ro.close();
  });

  it('opens sqlite:PATH and sqlite:///ABSOLUTE as the same file, and :memory:', async () => {
    const path = join(dir, 'url.db');
    const a = await openStore(`sqlite:${path}`);
    await a.setMeta('k', 'v');
    expect(a.location).toBe(path);
    await a.close();
    const b = await openStore(`sqlite://${path}`);
    expect(await b.getMeta('k')).toBe('v');
    await b.close();
    const m = await openStore(':memory:');
    expect(m.location).toBe(':memory:');
    await m.close();
  });

  it('a missing file opened read-only is NOT_FOUND, as SqliteStore says', async () => {
    expect((await rejection(openStore(join(dir, 'absent.db'), { readonly: true }))).code).toBe('NOT_FOUND');
  });

  it('an unknown scheme is CONFIG naming the schemes it knows, with the password redacted', async () => {
    const e = await rejection(openStore('mysql://quiver:s3cret@db.example/notes'));
    expect(e.code).toBe('CONFIG');
    expect(e.message).toContain('mysql://quiver:***@db.example/notes');
    expect(e.message).toMatch(/unknown scheme "mysql:".*sqlite:.*postgres:\/\/.*postgresql:\/\//);
    expect(e.message).not.toContain('s3cret');
    expect((await rejection(openStore(''))).code).toBe('CONFIG');
    expect((await rejection(openStore('sqlite:'))).code).toBe('CONFIG');
  });
});

describe('parseStoreLocation', () => {
  it('reads paths, sqlite: URLs and postgres URLs', () => {
    expect(parseStoreLocation('.quiver/vault.db')).toEqual({ backend: 'sqlite', path: '.quiver/vault.db' });
    expect(parseStoreLocation('C:\\vaults\\notes.db')).toEqual({
      backend: 'sqlite',
      path: 'C:\\vaults\\notes.db',
    });
    expect(parseStoreLocation('notes:2024.db')).toEqual({ backend: 'sqlite', path: 'notes:2024.db' });
    expect(parseStoreLocation('sqlite:notes.db')).toEqual({ backend: 'sqlite', path: 'notes.db' });
    expect(parseStoreLocation('SQLite:///srv/notes.db')).toEqual({
      backend: 'sqlite',
      path: '/srv/notes.db',
    });
    expect(parseStoreLocation('sqlite::memory:')).toEqual({ backend: 'sqlite', path: ':memory:' });
    for (const url of ['postgres://quiver@db/notes', 'postgresql://quiver:pw@db:5432/notes?sslmode=require'])
      expect(parseStoreLocation(url)).toEqual({ backend: 'postgres', url });
  });

  it('a postgres location that is not a URL is CONFIG, redacted', () => {
    expect(() => parseStoreLocation('postgres:quiver:pw@db')).toThrow(
      expect.objectContaining({ code: 'CONFIG', message: expect.stringMatching(/is not a URL/) }),
    );
  });
});

describe('redactLocation', () => {
  it("replaces a URL's password (in the user info or a parameter) by ***", () => {
    expect(redactLocation('postgres://quiver:s3cret@db:5432/notes')).toBe(
      'postgres://quiver:***@db:5432/notes',
    );
    expect(redactLocation('postgresql://:s3cret@db/notes')).toBe('postgresql://:***@db/notes');
    // An unescaped @ or / in the password does not leak its end.
    expect(redactLocation('postgres://quiver:p@ss/w@db/notes')).toBe('postgres://quiver:***@db/notes');
    expect(redactLocation('postgres://db/notes?sslmode=require&password=s3cret')).toBe(
      'postgres://db/notes?sslmode=require&password=***',
    );
  });

  it('leaves locations without a password as they are', () => {
    for (const l of [
      'postgres://quiver@db:5432/notes',
      'postgres://db:5432/notes',
      '/srv/notes.db',
      ':memory:',
    ])
      expect(redactLocation(l)).toBe(l);
  });
});

describe('the driver of an optional backend', () => {
  it("recognises Node's error for a package that is not installed", () => {
    const out = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "import('pg-not-installed-here').catch((e) => console.log(JSON.stringify({ code: e.code, message: e.message })))",
      ],
      { cwd: dir, encoding: 'utf8' },
    );
    const err = Object.assign(new Error((JSON.parse(out) as { message: string }).message), JSON.parse(out));
    expect(isMissingPackage(err, 'pg-not-installed-here')).toBe(true);
    expect(isMissingPackage(err, 'pg')).toBe(false);
    expect(isMissingPackage(new Error('connection refused'), 'pg')).toBe(false);
  });
});

describe('ingestRoot', () => {
  it("is a SQLite vault's project folder, else the config file's folder, else cwd", () => {
    expect(ingestRoot({ backend: 'sqlite', path: '/srv/notes/.quiver/vault.db' }, null, '/x')).toBe(
      '/srv/notes',
    );
    expect(ingestRoot({ backend: 'sqlite', path: '/srv/notes/vault.db' }, '/etc/q.json', '/x')).toBe(
      '/srv/notes',
    );
    const pg = { backend: 'postgres', url: 'postgres://db/notes' } as const;
    expect(ingestRoot(pg, '/srv/notes/quiver.config.json', '/x')).toBe('/srv/notes');
    expect(ingestRoot(pg, null, '/work/notes')).toBe('/work/notes');
  });
});

describePostgres('openStore with a postgres:// URL', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  /** The test database's URL with a password in it (the test cluster trusts loopback, so any works). */
  const withPassword = () => {
    const u = new URL(db.url);
    u.username ||= 'postgres';
    u.password = 's3cret';
    return u.toString();
  };

  it('opens the PostgreSQL store, its location redacted, without the SQLite-only capabilities', async () => {
    const s = await openStore(withPassword());
    try {
      expect(s.kind).toBe('postgres');
      expect(s.location).not.toContain('s3cret');
      expect(s.location).toContain(':***@');
      expect(s.backup).toBeUndefined();
    } finally {
      await s.close();
    }
  });

  it("a vault on it (QUIVER_STORE) takes its ingest root from the config file's folder", async () => {
    const project = mkdtempSync(join(dir, 'pg-project-'));
    const configFile = join(project, 'quiver.config.json');
    writeFileSync(configFile, JSON.stringify({ search: { limit: 5 } }));
    const v = await Vault.open({ configFile, env: { QUIVER_STORE: withPassword() } });
    try {
      expect(v.store.kind).toBe('postgres');
      expect(v.root).toBe(project);
    } finally {
      await v.close();
    }
  });
});
