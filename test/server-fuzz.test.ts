// Fuzzing the served vault: generated requests against a real server on 127.0.0.1 over the demo
// vault. Bodies start from each route's own JSON Schema (valid ones, so handlers run) and are then
// broken: wrong types, nulls, unknown keys, missing keys, huge numbers, long strings, deep nesting,
// broken JSON, bad UTF-8, oversized bodies, hostile multipart uploads. Paths are the route paths
// with real, random, traversal-like, unicode and very long ids, or junk; tokens are none, read,
// write, admin or garbage. No response may be a 5xx; every non-2xx is `{error: {code, message}}`;
// a read token never changes the vault (documents, batches, tokens). The seeds are fixed, so a
// failure repeats.
//
// Destruction: with a valid write or admin token a few requests would wipe what the rest of the
// run needs, so they are not sent (everything else is, with every token): undo of the newest batch
// or of a real batch (it rolls back the corpus), DELETE of a real document or of a source prefix
// (`…/`), and DELETE of one of the fuzzer's own tokens. Each is still sent with the other tokens,
// and undo and DELETE with random ids go through with valid tokens too (404). Adds, token
// creation, learning switches and queued jobs are sent and kept: the corpus only grows.
import { request } from 'node:http';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Vault } from '../src/index.js';
import type { Route } from '../src/server/route.js';
import { ROUTES } from '../src/server/routes/index.js';
import { startServer, type Served } from '../src/server/serve.js';
import { createToken, listTokens } from '../src/server/tokens.js';
import { UndoRequest } from '../src/wire/requests.js';
import { tempDir } from './helpers.js';

const tmp = tempDir('quiver-fuzz-');
let writer: Vault;
let reader: Vault;
let served: Served;
const tokens: Record<'read' | 'write' | 'admin', string> = { read: '', write: '', admin: '' };
/** Ids that exist in the vault at the start: documents, sources, sections, batches, tokens. */
const real = {
  docs: [] as string[],
  sources: [] as string[],
  sections: [] as string[],
  batches: [] as string[],
};
const tokenIds = new Set<string>();

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
  tokens.write = (await createToken(writer.store, 'write', 'fuzz')).token;
  tokens.read = (await createToken(writer.store, 'read', 'fuzz')).token;
  for (const t of await listTokens(writer.store)) tokenIds.add(t.id);
  const docs = await writer.docs({ limit: 1000 });
  real.docs = docs.map((d) => d.id);
  real.sources = docs.map((d) => d.source);
  for (const d of docs.slice(0, 5))
    real.sections.push(...(await writer.outline(d.id)).sections.slice(0, 3).map((s) => s.id));
  real.batches = (await writer.store.listBatches(100)).map((b) => b.id);
}, 60_000);

afterAll(async () => {
  await served.close();
  await reader.close();
  await writer.close();
  tmp.cleanup();
});

type TokenKind = 'none' | 'read' | 'write' | 'admin' | 'garbage';
interface Req {
  method: string;
  path: string;
  token: TokenKind;
  /** The Authorization header for a garbage token. */
  garbage: string;
  body: Buffer | null;
  contentType: string;
  accept: string;
}

/**
 * Send one raw request (bytes as given, so bad UTF-8 and broken JSON reach the server as such).
 * Requests share keep-alive connections, except those with a body over a limit: the server answers
 * those 413 with `Connection: keep-alive` and then closes the connection (the body-limit middleware
 * cancels the unread body, which destroys the socket), so the next request on it would fail with
 * "socket hang up". Reported; they go on a connection of their own until the 413 says `close`.
 */
function send(r: Req): Promise<{ status: number; body: string; type: string }> {
  const url = new URL(served.url);
  const auth =
    r.token === 'none' ? undefined : r.token === 'garbage' ? r.garbage : `Bearer ${tokens[r.token]}`;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        ...(r.body !== null && r.body.length > 65_536 ? { agent: false } : {}),
        host: url.hostname,
        port: url.port,
        method: r.method,
        path: r.path,
        headers: {
          ...(auth === undefined ? {} : { authorization: auth }),
          ...(r.accept === '' ? {} : { accept: r.accept }),
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

// ---- Bodies: valid from each route's JSON Schema, then mutated ------------------------------

type Schema = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Words the demo corpus has, and text full search engines choke on, for strings that are queries. */
const words = fc.constantFrom(
  'teapot',
  'sourdough starter',
  'bees swarm in spring',
  'NEAR(a b)',
  '"unclosed',
  'a AND OR NOT',
  '*',
  '^',
  'col:term',
  '-',
  '💥 ünïcödé 日本語',
  '\u202e\u0000',
);

/** Fields that name something in the vault: often a real one, so the handler gets past its lookup. */
const REAL_FIELDS: Record<string, () => string[]> = {
  sectionId: () => real.sections,
  document: () => real.docs,
  docIds: () => real.docs,
};

/** A value that satisfies `s` (the JSON Schema zod writes for a request body); `key` names the field. */
function valid(s: Schema, key = ''): fc.Arbitrary<unknown> {
  const known = REAL_FIELDS[key]?.() ?? [];
  if (known.length > 0 && s.type === 'string') return fc.oneof(fc.constantFrom(...known), valid(s));
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  switch (s.type) {
    case 'object': {
      const props = Object.fromEntries(
        Object.entries((s.properties ?? {}) as Record<string, Schema>).map(([k, v]) => [k, valid(v, k)]),
      );
      return fc.record(props, { requiredKeys: (s.required ?? []) as string[] });
    }
    case 'array':
      return fc.array(valid(s.items as Schema, key), {
        minLength: s.minItems ?? 0,
        maxLength: Math.min(s.maxItems ?? 3, 3),
      });
    case 'string': {
      if (s.format === 'date-time')
        return fc
          .date({ min: new Date('2000-01-01'), max: new Date('2030-12-31'), noInvalidDate: true })
          .map((d) => d.toISOString());
      const min = (s.minLength ?? 0) as number;
      const max = Math.min((s.maxLength ?? 60) as number, 60);
      return fc
        .oneof(words, fc.string({ unit: 'grapheme', minLength: min, maxLength: max }))
        .filter((x) => x.length >= min && x.length <= max);
    }
    case 'integer':
      return fc.integer({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6 });
    case 'number':
      return fc.double({
        min: s.exclusiveMinimum ?? s.minimum ?? -1e6,
        max: s.maximum ?? 1e6,
        minExcluded: s.exclusiveMinimum !== undefined,
        noNaN: true,
      });
    case 'boolean':
      return fc.boolean();
    default:
      return fc.constant(null);
  }
}

/** Arbitrary JSON, with the values that break parsers and bounds. */
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double(),
    fc.constantFrom(1e308, -1e308, 2 ** 53 + 1, -(2 ** 63), 1e-320, 0.1),
    fc.string({ unit: 'grapheme', maxLength: 40 }),
    words,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 8 }), tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** A value that no schema field accepts as given. */
const hostile = fc.oneof(
  json,
  fc.constantFrom('x'.repeat(10_001), 'y'.repeat(200_000), '\ud800', '', ' ', '__proto__'),
  fc.constantFrom(
    JSON.parse('['.repeat(2000) + ']'.repeat(2000)) as unknown,
    JSON.parse('{"a":'.repeat(500) + '1' + '}'.repeat(500)) as unknown,
    Array.from({ length: 5000 }, (_, i) => i),
    { constructor: { prototype: { polluted: true } } },
  ),
);

/** Every path to a value inside `v` (objects and arrays), the root included. */
function paths(v: unknown, at: (string | number)[] = []): (string | number)[][] {
  const out = [at];
  if (Array.isArray(v)) v.forEach((x, i) => out.push(...paths(x, [...at, i])));
  else if (typeof v === 'object' && v !== null)
    for (const [k, x] of Object.entries(v)) out.push(...paths(x, [...at, k]));
  return out;
}

/** `v` with the value at `path` changed by `f` (a copy; `f` returning undefined deletes it). */
function change(v: unknown, path: (string | number)[], f: (x: unknown) => unknown): unknown {
  if (path.length === 0) return f(v);
  const [head, ...rest] = path;
  const copy = (Array.isArray(v) ? [...v] : { ...(v as object) }) as Record<string | number, unknown>;
  const next = change(copy[head!], rest, f);
  if (next === undefined) delete copy[head!];
  else copy[head!] = next;
  return copy;
}

type Mutation = 'none' | 'replace' | 'extra' | 'drop' | 'wrap';
/** A valid body for `schema`, then broken in one place (or not at all). */
function bodyFor(schema: Schema): fc.Arbitrary<unknown> {
  return fc
    .record({
      value: valid(schema),
      how: fc.constantFrom<Mutation>(
        'none',
        'none',
        'none',
        'none',
        'replace',
        'replace',
        'replace',
        'extra',
        'drop',
        'wrap',
      ),
      where: fc.nat(),
      with: hostile,
      key: fc.oneof(fc.constantFrom('__proto__', 'constructor', 'limit ', 'Query', ''), fc.string()),
    })
    .map(({ value, how, where, with: w, key }) => {
      const all = paths(value);
      const at = all[where % all.length]!;
      switch (how) {
        case 'none':
          return value;
        case 'replace':
          return change(value, at, () => w);
        case 'extra':
          return change(value, at, (x) =>
            typeof x === 'object' && x !== null && !Array.isArray(x) ? { ...x, [key]: w } : { [key]: w },
          );
        case 'drop':
          return at.length === 0 ? {} : change(value, at, () => undefined);
        case 'wrap':
          return [value];
      }
    });
}

const schemaOf = (r: Route): Schema =>
  z.toJSONSchema(r.body!, { io: 'input', unrepresentable: 'any' }) as Schema;

/** Bytes of a multipart body with the given parts (file name and content as given). */
function multipart(parts: { field: string; name: string; type: string; bytes: Uint8Array }[]): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts)
    chunks.push(
      Buffer.from(
        `--fuzzbound\r\nContent-Disposition: form-data; name="${p.field}"; filename="${p.name}"\r\nContent-Type: ${p.type}\r\n\r\n`,
      ),
      Buffer.from(p.bytes),
      Buffer.from('\r\n'),
    );
  chunks.push(Buffer.from('--fuzzbound--\r\n'));
  return Buffer.concat(chunks);
}

const upload = fc
  .array(
    fc.record({
      field: fc.constantFrom('file', 'file', 'files', ''),
      name: fc.oneof(
        fc.constantFrom(
          'notes.md',
          'a.txt',
          '../../etc/passwd',
          '..\\..\\boot.ini',
          '',
          '.md',
          'x'.repeat(600) + '.md',
          'CON.txt',
          'évé 日本.md',
          'a\u0000b.md',
          'a.pdf',
          'page.html',
          'data.jsonl',
          'run.exe',
        ),
        fc.string({ maxLength: 20 }).map((s) => `${s.replace(/["\r\n]/g, '')}.md`),
      ),
      type: fc.constantFrom('text/markdown', 'application/octet-stream', 'application/pdf', ''),
      bytes: fc.oneof(
        fc.string({ unit: 'grapheme', maxLength: 200 }).map((s) => new TextEncoder().encode(`# T\n\n${s}\n`)),
        fc.uint8Array({ maxLength: 200 }),
        fc.constantFrom(
          new Uint8Array(0),
          new TextEncoder().encode('%PDF-1.7\n%broken'),
          new Uint8Array([0xff, 0xfe, 0x00, 0x41]),
          new Uint8Array(70_000).fill(0x61),
        ),
      ),
    }),
    { minLength: 0, maxLength: 3 },
  )
  .map(multipart);

/** Bodies that are not what any route reads. */
const rawBody = fc.oneof(
  json.map((v) => Buffer.from(JSON.stringify(v) ?? 'null')),
  fc.string({ maxLength: 80 }).map((s) => Buffer.from(s)),
  fc.uint8Array({ maxLength: 80 }).map((a) => Buffer.from(a)),
  fc.constantFrom(
    Buffer.from([0x7b, 0x22, 0x71, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), // {"q":"<bad UTF-8>"}
    Buffer.from('['.repeat(5000)),
    Buffer.from('{"query": "a", "query": 5}'),
    Buffer.from(''),
    Buffer.from(`{"query":"${'q'.repeat(1_100_000)}"}`), // over the 1 MiB body limit
  ),
);

// ---- Paths and tokens -------------------------------------------------------------------------

const ids = fc.oneof(
  fc.constantFrom(
    '..',
    '.',
    '%2e%2e',
    '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
    '..%5c..%5c',
    'a#0',
    '%00',
    '%E2%80%AE',
    '%ff%fe',
    '%',
    'dead',
    'x'.repeat(3000),
    'z'.repeat(8000),
    '0123456789abcdef',
    '%2F',
    'demo%2F',
  ),
  fc.string({ unit: 'grapheme', maxLength: 20 }).map(encodeURIComponent),
  fc
    .string({ unit: 'binary', maxLength: 10 })
    .map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, ''))),
  fc.constantFrom(...(['docs', 'sources', 'sections', 'batches'] as const)).chain((k) =>
    fc.nat().map((i) => {
      const list = real[k];
      return list.length === 0 ? 'none' : encodeURIComponent(list[i % list.length]!);
    }),
  ),
  fc.nat().map((i) => encodeURIComponent([...tokenIds][i % tokenIds.size] ?? 'none')),
);

const garbage = fc.oneof(
  fc.constantFrom(
    'Bearer qv_x\u00e9',
    'Bearer',
    'Bearer ',
    'Basic YWRtaW46YWRtaW4=',
    'bearer  qv_',
    'Bearer null',
    'Bearer ' + 'a'.repeat(5000),
  ),
  fc.string({ maxLength: 40 }).map((s) => `Bearer ${s.replace(/[^\x21-\x7e]/g, '')}`),
  fc.nat().map(() => `Bearer ${tokens.read.slice(0, -1)}${tokens.read.endsWith('a') ? 'b' : 'a'}`),
);

const query = fc.oneof(
  { weight: 3, arbitrary: fc.constant('') },
  fc.constantFrom(
    '?limit=-1',
    '?limit=0',
    '?limit=1e9',
    '?limit=99999999999999999999',
    '?limit=abc',
    '?limit=',
    '?limit=5&limit=6',
    '?state=nope',
    '?state=dead',
    '?kind=ingest',
    '?k=0',
    '?k=500',
    '?source=%ff',
    '?source=demo%2F',
    '?doc=%00',
    '?limit=10&source=',
  ),
);

function arbitraryRequest(
  tokenArb: fc.Arbitrary<TokenKind>,
  routes: readonly Route[] = ROUTES,
): fc.Arbitrary<Req> {
  const forRoute = (r: Route): fc.Arbitrary<Req> =>
    fc
      .record({
        id: ids,
        query,
        method: fc.oneof(
          { weight: 8, arbitrary: fc.constant(r.method) },
          fc.constantFrom('GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'OPTIONS', 'HEAD'),
        ),
        token: tokenArb,
        garbage,
        body: fc.oneof(
          {
            weight: 8,
            arbitrary:
              r.body === undefined
                ? fc.constant(null)
                : bodyFor(schemaOf(r)).map((b) => Buffer.from(JSON.stringify(b))),
          },
          { weight: r.multipart === true ? 16 : 0, arbitrary: upload },
          { weight: 1, arbitrary: rawBody },
          { weight: 1, arbitrary: fc.constant(null) },
        ),
        contentType: fc.oneof(
          {
            weight: 10,
            arbitrary: fc.constant(
              r.multipart === true ? 'multipart/form-data; boundary=fuzzbound' : 'application/json',
            ),
          },
          fc.constantFrom(
            'text/plain',
            'multipart/form-data; boundary=x',
            'application/json; charset=latin1',
            '',
          ),
        ),
        accept: fc.constantFrom('', '', 'application/json', 'text/event-stream', '*/*'),
      })
      .map((g) => ({
        method: g.method,
        path: r.path.replace(/:id/g, g.id) + g.query,
        token: g.token,
        garbage: g.garbage,
        body: g.body,
        contentType: g.contentType,
        accept: g.accept,
      }));
  const junk: fc.Arbitrary<Req> = fc.record({
    method: fc.constantFrom('GET', 'POST', 'DELETE', 'PUT'),
    // A request line needs a path starting with "/" (Node's parser answers anything else itself).
    path: fc
      .oneof(
        fc.constantFrom(
          '/v1',
          '/v1/',
          '//v1/search',
          '/v1/search/',
          '/V1/SEARCH',
          '/%ff',
          '/docs/../openapi.json',
          '/v1/documents/',
          '/v1/jobs/dead/retry',
          '/v1/./tokens',
          '/v1/%2e%2e/readyz',
        ),
        fc.webPath(),
      )
      .map((p) => (p.startsWith('/') ? p : `/${p}`)),
    token: tokenArb,
    garbage,
    body: fc.option(rawBody, { nil: null }),
    contentType: fc.constantFrom('application/json', 'text/plain'),
    accept: fc.constantFrom('', 'text/event-stream'),
  });
  return fc.oneof(
    { weight: 12, arbitrary: fc.constantFrom(...routes).chain(forRoute) },
    { weight: 1, arbitrary: junk },
  );
}

/** The ids in a request path, decoded as the server decodes them. */
function pathId(path: string, prefix: string): string | null {
  if (!path.startsWith(prefix)) return null;
  const raw = path.slice(prefix.length).split('?')[0]!;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** Whether a request would destroy what the rest of the run needs (see the top of the file). */
function destructive(r: Req): boolean {
  if (r.token !== 'write' && r.token !== 'admin') return false;
  if (r.method === 'POST' && r.path.split('?')[0] === '/v1/undo') {
    let body: unknown;
    try {
      body = JSON.parse(r.body?.toString('utf8') ?? '');
    } catch {
      return false;
    }
    const u = UndoRequest.safeParse(body);
    return u.success && (u.data.batch === undefined || real.batches.includes(u.data.batch));
  }
  if (r.method !== 'DELETE') return false;
  const doc = pathId(r.path, '/v1/documents/');
  if (doc !== null) return doc.endsWith('/') || real.docs.includes(doc) || real.sources.includes(doc);
  const token = pathId(r.path, '/v1/tokens/');
  return token !== null && tokenIds.has(token);
}

/** `{error: {code, message}}` with both strings, as JSON. */
function isErrorReply(res: { body: string; type: string }): boolean {
  if (!res.type.startsWith('application/json')) return false;
  try {
    const e = (JSON.parse(res.body) as { error?: { code?: unknown; message?: unknown } }).error;
    return typeof e?.code === 'string' && typeof e.message === 'string';
  } catch {
    return false;
  }
}

/** What a read token must never change: the documents, the batches and the tokens. */
const snapshot = async (): Promise<string> => {
  const s = await writer.stats();
  return JSON.stringify({
    documents: s.documents,
    sections: s.sections,
    batches: s.batches,
    tokens: await listTokens(writer.store),
  });
};

interface Outcome {
  fives: string[];
  badErrors: string[];
  readChanged: string[];
  /** How many replies had each status. */
  statuses: Map<number, number>;
  /** Successful replies per route (`GET /v1/documents/:id`), to see the handlers were reached. */
  reached: Map<string, number>;
}

const describeReq = (r: Req): string =>
  `${r.method} ${r.path.slice(0, 100)} (${r.token}, ${r.body?.length ?? 0} bytes, ${r.contentType || 'no type'})`;

/** The route a request reaches, if any (method and path as the table has them). */
function routeOf(r: Req): Route | undefined {
  const path = r.path.split('?')[0]!;
  return ROUTES.find(
    (x) => x.method === r.method && new RegExp(`^${x.path.replace(/:id/g, '[^/]+')}$`).test(path),
  );
}

/** Send the requests one after another and collect what went wrong. */
async function run(requests: readonly Req[]): Promise<Outcome> {
  const out: Outcome = { fives: [], badErrors: [], readChanged: [], statuses: new Map(), reached: new Map() };
  let previous = '(none)';
  for (const r of requests) {
    const before = r.token === 'read' ? await snapshot() : '';
    const res = await send(r).catch((e: unknown) => {
      throw new Error(`${describeReq(r)}: ${String(e)}; the request before: ${previous}`);
    });
    const what = `${describeReq(r)} → ${res.status} ${res.body.slice(0, 160)}`;
    previous = what;
    out.statuses.set(res.status, (out.statuses.get(res.status) ?? 0) + 1);
    if (res.status < 300) {
      const route = routeOf(r);
      const key = route === undefined ? 'other' : `${route.method} ${route.path}`;
      out.reached.set(key, (out.reached.get(key) ?? 0) + 1);
    }
    if (res.status >= 500) out.fives.push(what);
    // A HEAD reply has no body to check.
    if (res.status >= 300 && r.method !== 'HEAD' && !isErrorReply(res)) out.badErrors.push(what);
    if (r.token === 'read' && (await snapshot()) !== before) out.readChanged.push(what);
  }
  return out;
}

/** `n` requests from `arb` (fixed seed), the destructive ones left out. */
function requestsOf(arb: fc.Arbitrary<Req>, n: number, seed: number): Req[] {
  const requests = fc
    .sample(arb, { numRuns: Math.ceil(n * 1.2), seed })
    .filter((r) => !destructive(r))
    .slice(0, n);
  expect(requests.length).toBe(n);
  return requests;
}

const alive = async (): Promise<number> =>
  (
    await send({
      method: 'GET',
      path: '/readyz',
      token: 'read',
      garbage: '',
      body: null,
      contentType: '',
      accept: '',
    })
  ).status;

describe('fuzzing quiver serve', () => {
  it('answers 2,000 generated requests without a 5xx, every refusal a JSON error; a read token changes nothing', async () => {
    const requests = requestsOf(
      arbitraryRequest(fc.constantFrom('none', 'read', 'write', 'admin', 'garbage')),
      2000,
      17,
    );
    const documentsBefore = (await writer.stats()).documents;
    const out = await run(requests);
    expect(out.fives).toEqual([]);
    expect(out.badErrors).toEqual([]);
    expect(out.readChanged).toEqual([]);
    // The run reached the handlers, not only the gate: successes, refusals of bodies, and 404s.
    const count = (s: number) => out.statuses.get(s) ?? 0;
    expect(count(200) + count(201) + count(202)).toBeGreaterThan(200);
    for (const s of [400, 401, 403, 404, 413]) expect(count(s), `status ${s}`).toBeGreaterThan(0);
    // Nothing destroyed the corpus, and the server still answers.
    expect((await writer.stats()).documents).toBeGreaterThanOrEqual(documentsBefore);
    expect(await alive()).toBe(200);
  }, 120_000);

  it('with a valid token, near-valid bodies run every route’s handler without a 5xx (60 more per body route, 30 per other)', async () => {
    // The same share for every route, however many there are: each route's handler is reached.
    const tokens = fc.constantFrom<TokenKind>('read', 'write', 'admin');
    const share = (r: Route): number => (r.body !== undefined || r.multipart === true ? 60 : 30);
    const requests = ROUTES.flatMap((r, i) => requestsOf(arbitraryRequest(tokens, [r]), share(r), 29 + i));
    const out = await run(requests);
    expect(out.fives).toEqual([]);
    expect(out.badErrors).toEqual([]);
    expect(out.readChanged).toEqual([]);
    // Each route with a JSON body or an upload answered with success at least once; but the fits
    // answer 404 until there are ratings or marks to learn from, which random bodies may not leave,
    // and an eval needs a file that parses as a question set or a BEIR folder under the roots,
    // which random bodies never are (test/eval-job.test.ts runs both).
    const mayNotSucceed = new Set([
      '/v1/undo',
      '/v1/ranker/fit',
      '/v1/noise/fit',
      '/v1/evals',
      '/v1/evals/beir',
    ]);
    for (const r of ROUTES.filter((x) => x.body !== undefined || x.multipart === true))
      if (!mayNotSucceed.has(r.path))
        expect(out.reached.get(`${r.method} ${r.path}`) ?? 0, r.path).toBeGreaterThan(0);
    expect(await alive()).toBe(200);
  }, 120_000);

  it('a read token changes nothing, whatever it sends (500 more, every route)', async () => {
    const before = JSON.stringify({ stats: await writer.stats(), tokens: await listTokens(writer.store) });
    const requests = fc.sample(arbitraryRequest(fc.constant('read')), { numRuns: 500, seed: 23 });
    const out = await run(requests);
    expect(out.fives).toEqual([]);
    expect(out.badErrors).toEqual([]);
    expect(JSON.stringify({ stats: await writer.stats(), tokens: await listTokens(writer.store) })).toBe(
      before,
    );
  }, 60_000);
});
