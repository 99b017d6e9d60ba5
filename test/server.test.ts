// quiver serve end to end: a real HTTP server on 127.0.0.1 over a real vault of the demo corpus (a
// SQLite file, and a PostgreSQL database when a server is configured), real tokens, real requests.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Vault } from '../src/index.js';
import { ROUTES } from '../src/server/app.js';
import { startServer, type Served } from '../src/server/serve.js';
import { createToken } from '../src/server/tokens.js';
import {
  createTestDatabase,
  describePostgres,
  type TestDatabase,
} from '../src/store/postgres/_test-database.js';
import { tempDir } from './helpers.js';

const tmp = tempDir('quiver-serve-');
/** Where a suite's vault lives: a SQLite file, or a fresh PostgreSQL database. */
interface SuiteStore {
  /** Create it; the overrides that open it. */
  open(): Promise<Record<string, string>>;
  /** The same overrides again (for the read-only vault). */
  overrides(): Record<string, string>;
  drop(): Promise<void>;
}

/** The served-vault suite, run on each backend: the same routes, tokens and answers on both. */
function serveSuite(name: string, store: SuiteStore): void {
  let writer: Vault;
  let reader: Vault;
  let served: Served;
  const token: Record<'read' | 'write' | 'admin', string> = { read: '', write: '', admin: '' };

  beforeAll(async () => {
    writer = await Vault.open({
      overrides: { ...(await store.open()), 'server.burst': 1000, 'server.ratePerSecond': 1000 },
    });
    await writer.add(['demo/corpus']);
    reader = await Vault.open({ overrides: store.overrides(), readonly: true });
    served = await startServer({ reader, writer }, { host: '127.0.0.1', port: 0 });
    token.admin = served.firstToken!;
    token.read = (await createToken(writer.store, 'read')).token;
    token.write = (await createToken(writer.store, 'write')).token;
  }, 60_000);

  afterAll(async () => {
    await served.close();
    await reader.close();
    await writer.close();
    await store.drop();
  });

  async function call(
    method: string,
    route: string,
    options: { token?: string; body?: unknown; raw?: string } = {},
  ): Promise<{ status: number; json: Record<string, unknown>; headers: Headers }> {
    const res = await fetch(`${served.url}${route}`, {
      method,
      headers: {
        ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
        ...(options.body === undefined && options.raw === undefined
          ? {}
          : { 'content-type': 'application/json' }),
      },
      ...(options.raw !== undefined
        ? { body: options.raw }
        : options.body === undefined
          ? {}
          : { body: JSON.stringify(options.body) }),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown>, headers: res.headers };
  }

  const concrete = (p: string): string => p.replace(':id', 'none');
  const counts = async (): Promise<string> => JSON.stringify(await writer.stats());

  describe(`quiver serve (${name})`, () => {
    it('answers /healthz without a token, and nothing else', async () => {
      expect((await call('GET', '/healthz')).json).toEqual({ ok: true });
      for (const r of ROUTES) {
        const res = await call(r.method, concrete(r.path), r.method === 'POST' ? { body: {} } : {});
        expect([r.path, res.status]).toEqual([r.path, 401]);
        expect((res.json.error as { code: string }).code).toBe('UNAUTHORIZED');
      }
      expect((await call('GET', '/readyz', { token: 'qv_not-a-token' })).status).toBe(401);
    });

    it('refuses a token whose role is too low with 403, for every route', async () => {
      for (const r of ROUTES) {
        const lower = r.role === 'admin' ? token.write : r.role === 'write' ? token.read : null;
        if (lower === null) continue;
        const res = await call(r.method, concrete(r.path), {
          token: lower,
          ...(r.method === 'POST' ? { body: {} } : {}),
        });
        expect([r.path, res.status]).toEqual([r.path, 403]);
      }
    });

    it('a read token cannot change the vault: every write route leaves it as it was', async () => {
      const before = await counts();
      for (const r of ROUTES.filter((x) => x.role !== 'read')) {
        const res = await call(r.method, concrete(r.path), {
          token: token.read,
          ...(r.method === 'POST' ? { body: { text: 'A new note about kettles.', role: 'admin' } } : {}),
        });
        expect(res.status).toBe(403);
      }
      expect(await counts()).toBe(before);
    });

    it('searches, asks and reads with the wire format the CLI prints', async () => {
      const s = await call('POST', '/v1/search', {
        token: token.read,
        body: { query: 'espresso extraction time', limit: 3 },
      });
      expect(s.status).toBe(200);
      const results = s.json.results as { source: string; section_id: string; snippets: string[] }[];
      expect(results.length).toBeGreaterThan(0);
      expect(results[0]!.source).toMatch(/coffee/);
      const section = await call('GET', `/v1/sections/${encodeURIComponent(results[0]!.section_id)}`, {
        token: token.read,
      });
      expect(section.json.id).toBe(results[0]!.section_id);
      const a = await call('POST', '/v1/ask', {
        token: token.read,
        body: { question: 'How long should espresso extraction take?' },
      });
      expect(a.status).toBe(200);
      expect((a.json.cited as unknown[]).length).toBeGreaterThan(0);
      expect(a.json).toHaveProperty('abstained', null);
      // Each context section says where retrieval and selection put it, as a search hit does.
      const context = a.json.context as {
        selection_rank: number;
        retrieval_rank: number;
        leg_ranks: object;
      }[];
      // In selection order (a repeated section is skipped, so ranks may jump).
      const ranks = context.map((c) => c.selection_rank);
      expect(ranks).toEqual([...ranks].sort((x, y) => x - y));
      expect(ranks[0]).toBe(0);
      for (const c of context) {
        expect(Number.isInteger(c.retrieval_rank)).toBe(true);
        expect(c.leg_ranks).toHaveProperty('lexical');
      }
      expect(s.headers.get('x-request-id')).toMatch(/^[0-9a-f]{12}$/);
      // A token can ask what it may do.
      expect((await call('GET', '/v1/tokens/self', { token: token.read })).json).toMatchObject({
        role: 'read',
      });
      expect((await call('GET', '/v1/tokens/self', { token: token.admin })).json).toMatchObject({
        role: 'admin',
      });
    });

    it('a write token adds and removes a document; an admin token manages tokens', async () => {
      const added = await call('POST', '/v1/documents', {
        token: token.write,
        body: { text: 'The moka pot brews at about 1.5 bar.', source: 'notes/moka.md' },
      });
      expect(added.status).toBe(201);
      expect(added.json.added).toBe(1);
      const s = await call('POST', '/v1/search', { token: token.read, body: { query: 'moka pot bar' } });
      const hit = (s.json.results as { doc_id: string; source: string }[])[0]!;
      expect(hit.source).toBe('notes/moka.md');
      expect((await call('DELETE', `/v1/documents/${hit.doc_id}`, { token: token.write })).status).toBe(200);
      expect((await call('DELETE', `/v1/documents/${hit.doc_id}`, { token: token.write })).status).toBe(404);
      const created = await call('POST', '/v1/tokens', {
        token: token.admin,
        body: { role: 'read', label: 'phone' },
      });
      expect(created.status).toBe(201);
      const fresh = created.json.token as string;
      expect((await call('GET', '/readyz', { token: fresh })).status).toBe(200);
      const list = await call('GET', '/v1/tokens', { token: token.admin });
      expect(JSON.stringify(list.json)).not.toContain(fresh);
      expect(
        (await call('DELETE', `/v1/tokens/${created.json.id as string}`, { token: token.admin })).status,
      ).toBe(200);
      expect((await call('GET', '/readyz', { token: fresh })).status).toBe(401);
    });

    it('bad input is a 400 with {error: {code, message}}, an unknown route a 404, a big body a 413', async () => {
      const bad = await call('POST', '/v1/search', { token: token.read, body: { query: '' } });
      expect(bad.status).toBe(400);
      expect(bad.json).toEqual({ error: { code: 'BAD_INPUT', message: expect.stringContaining('"query"') } });
      expect((await call('POST', '/v1/search', { token: token.read, raw: '{not json' })).status).toBe(400);
      expect(
        (await call('POST', '/v1/search', { token: token.read, body: { query: 'x', limit: 1000 } })).status,
      ).toBe(400);
      expect((await call('GET', '/v1/nothing', { token: token.read })).status).toBe(404);
      expect((await call('GET', '/v1/sections/nope%231', { token: token.read })).status).toBe(404);
      const big = await call('POST', '/v1/documents', {
        token: token.write,
        raw: JSON.stringify({ text: 'x'.repeat(1_100_000) }),
      });
      expect(big.status).toBe(413);
    });
  });
}

serveSuite('SQLite', {
  open: async () => ({ vault: join(tmp.dir, 'demo.db') }),
  overrides: () => ({ vault: join(tmp.dir, 'demo.db') }),
  drop: async () => undefined,
});

describePostgres('quiver serve on PostgreSQL', () => {
  let db: TestDatabase | null = null;
  serveSuite('PostgreSQL', {
    open: async () => {
      db = await createTestDatabase();
      return { store: db.url };
    },
    overrides: () => ({ store: db!.url }),
    drop: async () => db?.drop(),
  });
});

afterAll(() => tmp.cleanup());

describe('rate limits', () => {
  it('a token over its limit gets 429 with Retry-After; other tokens are not slowed', async () => {
    const path2 = join(tmp.dir, 'limited.db');
    const w = await Vault.open({
      overrides: { vault: path2, 'server.burst': 3, 'server.ratePerSecond': 0.5 },
    });
    const r = await Vault.open({ overrides: { vault: path2 }, readonly: true });
    const s = await startServer({ reader: r, writer: w }, { host: '127.0.0.1', port: 0 });
    const other = (await createToken(w.store, 'read')).token;
    const get = (t: string) => fetch(`${s.url}/readyz`, { headers: { authorization: `Bearer ${t}` } });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await get(s.firstToken!)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const limited = await get(s.firstToken!);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await get(other)).status).toBe(200);
    await s.close();
    await r.close();
    await w.close();
  });
});

describe('quiver serve (the command)', () => {
  it('prints its address and first admin token, serves, and stops cleanly on SIGTERM', async () => {
    const vault = join(tmp.dir, 'cli.db');
    const child = spawn(
      process.execPath,
      ['bin/quiver.js', 'serve', '--port', '0', '--json', '--quiet', '--vault', vault],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`serve exited ${code}`)));
    });
    const { url, token: first } = JSON.parse(line) as { url: string; token: string };
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await fetch(`${url}/readyz`, { headers: { authorization: `Bearer ${first}` } });
    expect(await res.json()).toEqual({ ready: true, documents: 0 });
    const code = await new Promise<number | null>((resolve) => {
      child.once('exit', resolve);
      child.kill('SIGTERM');
    });
    expect(code).toBe(0);
  }, 60_000);

  it('prints a link that opens the page with the first admin token, as Jupyter does', async () => {
    const vault = join(tmp.dir, 'cli-link.db');
    const child = spawn(process.execPath, ['bin/quiver.js', 'serve', '--port', '0', '--vault', vault], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const link = await new Promise<string>((resolve, reject) => {
        const lines = createInterface({ input: child.stdout });
        lines.on('line', (l) => {
          const m = /^\s+(http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)$/.exec(l);
          if (m !== null) resolve(m[1]!);
        });
        child.once('exit', (code) => reject(new Error(`serve exited ${code}`)));
      });
      const url = new URL(link);
      const token = url.searchParams.get('token')!;
      const page = await fetch(link);
      expect(page.status).toBe(200);
      expect(page.headers.get('referrer-policy')).toBe('no-referrer');
      const res = await fetch(`${url.origin}/readyz`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
  }, 60_000);
});

describe('quiver token', () => {
  it('creates a token printed once, lists it without the token, and revokes it', async () => {
    const { runCli } = await import('./helpers.js');
    const { verifyToken } = await import('../src/server/tokens.js');
    const vault = join(tmp.dir, 'tokens.db');
    const made = await runCli([
      'token',
      'create',
      '--role',
      'write',
      '--label',
      'ci',
      '--json',
      '--vault',
      vault,
    ]);
    expect(made.code, made.stderr).toBe(0);
    const { token: t, id } = made.json<{ token: string; id: string }>();
    const list = await runCli(['token', 'list', '--json', '--vault', vault]);
    expect(list.stdout).toContain(id);
    expect(list.stdout).not.toContain(t);
    const v = await Vault.open({ overrides: { vault }, readonly: true });
    expect((await verifyToken(v.store, t))?.role).toBe('write');
    expect((await runCli(['token', 'revoke', id, '--vault', vault])).code).toBe(0);
    expect(await verifyToken(v.store, t)).toBeNull();
    await v.close();
    expect((await runCli(['token', 'revoke', id, '--vault', vault])).code).toBe(3);
    expect((await runCli(['token', 'create', '--role', 'root', '--vault', vault])).code).toBe(2);
  });
});
