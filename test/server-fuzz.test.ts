// Fuzzing the served vault: generated malformed and hostile requests (bad JSON, wrong types, huge
// numbers, unknown fields, deep nesting, bad UTF-8, FTS syntax, odd paths and ids, garbage tokens)
// against a real server on 127.0.0.1. None may get a 5xx; every refusal is `{error: {code, message}}`;
// a read token changes nothing; the server keeps serving. The seed is fixed, so a failure repeats.
import { request } from 'node:http';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Vault } from '../src/index.js';
import { ROUTES } from '../src/server/routes/index.js';
import { startServer, type Served } from '../src/server/serve.js';
import { createToken } from '../src/server/tokens.js';
import { tempDir } from './helpers.js';

const tmp = tempDir('quiver-fuzz-');
let writer: Vault;
let reader: Vault;
let served: Served;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  const path = join(tmp.dir, 'demo.db');
  writer = await Vault.open({
    overrides: {
      vault: path,
      'server.burst': 1e6,
      'server.ratePerSecond': 1e6,
      'server.maxUploadBytes': 65_536,
    },
    env: {},
  });
  await writer.add(['demo/corpus']);
  reader = await Vault.open({ overrides: { vault: path }, readonly: true, env: {} });
  served = await startServer({ reader, writer }, { host: '127.0.0.1', port: 0 });
  tokens.admin = served.firstToken!;
  tokens.write = (await createToken(writer.store, 'write')).token;
  tokens.read = (await createToken(writer.store, 'read')).token;
}, 60_000);

afterAll(async () => {
  await served.close();
  await reader.close();
  await writer.close();
  tmp.cleanup();
});

interface Req {
  method: string;
  path: string;
  token: 'none' | 'read' | 'write' | 'admin' | 'garbage';
  body: Buffer | null;
  contentType: string;
}

/** Send one raw request (bytes as given, so bad UTF-8 and broken JSON reach the server as such). */
function send(r: Req): Promise<{ status: number; body: string; type: string }> {
  const url = new URL(served.url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method: r.method,
        path: r.path,
        headers: {
          ...(r.token === 'none'
            ? {}
            : { authorization: `Bearer ${r.token === 'garbage' ? 'qv_x\u00e9' : tokens[r.token]}` }),
          ...(r.body === null ? {} : { 'content-type': r.contentType, 'content-length': r.body.length }),
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body, type: String(res.headers['content-type'] ?? '') }),
        );
      },
    );
    req.on('error', reject);
    if (r.body !== null) req.write(r.body);
    req.end();
  });
}

const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double(),
    fc.constantFrom(1e308, -1e308, 2 ** 53 + 1, -0, 1e-320),
    fc.string({ maxLength: 40 }),
    fc.constantFrom(
      'NEAR(a b)',
      '"unclosed',
      'a AND OR NOT',
      '*',
      '^',
      'col:term',
      '\u0000',
      '\ud800',
      '💥'.repeat(50),
    ),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 8 }), tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** A plausible body for a route, then broken in one way or another. */
const bodyFor = fc.record(
  {
    query: fc.oneof(fc.string({ maxLength: 60 }), json),
    question: fc.oneof(fc.string({ maxLength: 60 }), json),
    limit: fc.oneof(fc.integer({ min: -5, max: 2000 }), json),
    select: fc.oneof(fc.record({ method: fc.constantFrom('topk', 'mmr', 'dartboard', 'best') }), json),
    filter: json,
    text: fc.oneof(fc.string({ maxLength: 60 }), json),
    paths: fc.oneof(fc.array(fc.constantFrom('/etc', '../..', 'rel', '/tmp'), { maxLength: 2 }), json),
    sectionId: json,
    signal: fc.oneof(fc.constantFrom('up', 'down', 'meh'), json),
    document: json,
    noisy: json,
    kind: fc.oneof(fc.constantFrom('index', 'reindex', 'nope'), json),
    role: fc.oneof(fc.constantFrom('read', 'root'), json),
    extra: json,
  },
  { requiredKeys: [] },
);

const rawBody = fc.oneof(
  bodyFor.map((b) => Buffer.from(JSON.stringify(b))),
  json.map((v) => Buffer.from(JSON.stringify(v) ?? 'null')),
  fc.string({ maxLength: 80 }).map((s) => Buffer.from(s)),
  fc.uint8Array({ maxLength: 80 }).map((a) => Buffer.from(a)),
  fc.constant(Buffer.from([0x7b, 0x22, 0x71, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])), // {"q":"<bad UTF-8>"}
  fc.constant(Buffer.from('['.repeat(5000))),
);

const ids = fc.oneof(
  fc.constantFrom(
    'none',
    '..',
    '%2e%2e%2f%2e%2e',
    'a#0',
    '%00',
    '%E2%80%AE',
    'x'.repeat(3000),
    '0123456789abcdef',
    'dead',
  ),
  fc.string({ maxLength: 20 }).map(encodeURIComponent),
);

const fuzzRequest = (tokenArb: fc.Arbitrary<Req['token']>): fc.Arbitrary<Req> =>
  fc
    .record({
      route: fc.constantFrom(...ROUTES, null),
      id: ids,
      junkPath: fc.oneof(
        fc.constantFrom('/v1', '/v1/', '//v1/search', '/v1/search/', '/%ff', '/docs/../openapi.json'),
        fc.webPath(),
      ),
      method: fc.constantFrom('GET', 'POST', 'DELETE', 'PUT', 'PATCH'),
      useRouteMethod: fc.boolean(),
      query: fc.oneof(
        fc.constant(''),
        fc.constantFrom(
          '?limit=-1',
          '?limit=1e9',
          '?limit=abc',
          '?state=nope',
          '?k=0',
          '?limit=5&limit=6',
          '?source=%ff',
        ),
      ),
      token: tokenArb,
      body: fc.option(rawBody, { nil: null }),
      contentType: fc.constantFrom(
        'application/json',
        'text/plain',
        'multipart/form-data; boundary=x',
        'application/json; charset=latin1',
      ),
    })
    .map((g) => ({
      method: g.route !== null && g.useRouteMethod ? g.route.method : g.method,
      // A request line needs a path starting with "/" (Node's parser answers anything else itself).
      path: `${g.route === null ? (g.junkPath.startsWith('/') ? g.junkPath : `/${g.junkPath}`) : g.route.path.replace(/:id/g, g.id)}${g.query}`,
      token: g.token,
      body: g.body,
      contentType: g.contentType,
    }));

/** Requests that would destroy the corpus with a valid token (undo, removals): left out, not fuzzed blind. */
const destructive = (r: Req): boolean =>
  (r.token === 'write' || r.token === 'admin') && (r.method === 'DELETE' || r.path.startsWith('/v1/undo'));

/** `{error: {code, message}}` with both strings. */
function isErrorReply(body: string): boolean {
  try {
    const e = (JSON.parse(body) as { error?: { code?: unknown; message?: unknown } }).error;
    return typeof e?.code === 'string' && typeof e.message === 'string';
  } catch {
    return false;
  }
}

const snapshot = async (): Promise<string> =>
  JSON.stringify({
    stats: await writer.stats(),
    tokens: (await writer.store.getMeta('server.tokens')) ?? '',
  });

describe('fuzzing quiver serve', () => {
  it('answers 2,000 malformed requests with 4xx JSON errors, never a 5xx, and keeps serving', async () => {
    const requests = fc
      .sample(fuzzRequest(fc.constantFrom('none', 'read', 'write', 'admin', 'garbage')), {
        numRuns: 2600,
        seed: 17,
      })
      .filter((r) => !destructive(r))
      .slice(0, 2000);
    expect(requests.length).toBe(2000);
    const fives: string[] = [];
    const badErrors: string[] = [];
    for (const r of requests) {
      const res = await send(r);
      const what = `${r.method} ${r.path.slice(0, 80)} (${r.token}) → ${res.status} ${res.body.slice(0, 120)}`;
      if (res.status >= 500) fives.push(what);
      if (res.status >= 400 && res.status !== 431) {
        if (!isErrorReply(res.body)) badErrors.push(what);
      }
    }
    expect(fives).toEqual([]);
    expect(badErrors).toEqual([]);
    const alive = await send({ method: 'GET', path: '/readyz', token: 'read', body: null, contentType: '' });
    expect(alive.status).toBe(200);
  }, 180_000);

  it('a read token changes nothing, whatever it sends', async () => {
    const before = await snapshot();
    const requests = fc.sample(fuzzRequest(fc.constant('read')), { numRuns: 500, seed: 23 });
    for (const r of requests) expect((await send(r)).status).toBeLessThan(500);
    expect(await snapshot()).toBe(before);
  }, 120_000);
});
