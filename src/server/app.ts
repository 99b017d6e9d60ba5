/**
 * The HTTP face of a vault: `createApp(deps)` builds the routes (tests call it without a port;
 * `quiver serve` puts it on one). A thin shell over the public API and the shared wire format.
 *
 * Read-only by construction: requests whose token has the `read` role are only ever handed
 * `deps.reader`, a vault opened read-only (its SQLite connection cannot write); only `write` and
 * `admin` routes see `deps.writer`. Every route but `/healthz` needs a bearer token; each token
 * has its own rate limit (429 with Retry-After); bodies over `maxBodyBytes` are refused (413);
 * every failure is `{error: {code, message}}` with its status from `http-status.ts`.
 */
import { randomBytes } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { QuiverError } from '../errors.js';
import type { Vault } from '../vault.js';
import { askJson } from '../wire/answers.js';
import { searchJson } from '../wire/hits.js';
import { addJson, documentJson, readJson } from '../wire/ingest.js';
import { errorReply } from './http-status.js';
import { RateLimiter } from './rate-limit.js';
import { allows, createToken, listTokens, revokeToken, ROLES, type Role, verifyToken } from './tokens.js';

export interface AppDeps {
  /** The vault opened read-only: all that a `read` token's request can reach. */
  reader: Vault;
  /** The vault opened for writing: for `write` and `admin` routes only. */
  writer: Vault;
  limits?: { ratePerSecond?: number; burst?: number; maxBodyBytes?: number };
  /** Where request lines go (never a token or a body). */
  log?: (line: string) => void;
}

type Env = { Variables: { token: { id: string; role: Role }; requestId: string } };

/** The most results a search may ask for, and the longest query. */
export const MAX_LIMIT = 100;
export const MAX_QUERY_CHARS = 10_000;

/** A route: method, path, the role it needs, and what it does. */
interface Route {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  role: Role;
  handle: (c: Context<Env>, deps: AppDeps) => Promise<Response>;
}

async function body(c: Context<Env>): Promise<Record<string, unknown>> {
  let v: unknown;
  try {
    v = await c.req.json();
  } catch {
    throw new QuiverError('BAD_INPUT', 'quiver: the request body must be a JSON object');
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new QuiverError('BAD_INPUT', 'quiver: the request body must be a JSON object');
  return v as Record<string, unknown>;
}

function text(b: Record<string, unknown>, key: string): string {
  const v = b[key];
  if (typeof v !== 'string' || v.trim() === '')
    throw new QuiverError('BAD_INPUT', `quiver: "${key}" must be a non-empty string`);
  if (v.length > MAX_QUERY_CHARS)
    throw new QuiverError('BAD_INPUT', `quiver: "${key}" is longer than ${MAX_QUERY_CHARS} characters`);
  return v;
}

function limitOf(v: unknown, fallback: number): number {
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > MAX_LIMIT)
    throw new QuiverError(
      'BAD_INPUT',
      `quiver: "limit" must be an integer from 1 to ${MAX_LIMIT}, got ${JSON.stringify(v)}`,
    );
  return v;
}

/** Every route the server answers besides `/healthz`, with the role it needs. */
export const ROUTES: readonly Route[] = [
  {
    method: 'GET',
    path: '/readyz',
    role: 'read',
    handle: async (c, d) => c.json({ ready: true, documents: (await d.reader.stats()).documents }),
  },
  {
    method: 'GET',
    path: '/v1/documents',
    role: 'read',
    handle: async (c, d) => {
      const raw = c.req.query('limit');
      const limit = raw === undefined ? 100 : Number(raw);
      if (!Number.isInteger(limit) || limit < 1 || limit > 10_000)
        throw new QuiverError('BAD_INPUT', `quiver: limit must be an integer from 1 to 10000, got ${raw}`);
      return c.json({ documents: (await d.reader.docs({ limit })).map(documentJson) });
    },
  },
  {
    method: 'GET',
    path: '/v1/sections/:id',
    role: 'read',
    handle: async (c, d) => c.json(readJson(await d.reader.read(c.req.param('id')!))),
  },
  {
    method: 'POST',
    path: '/v1/search',
    role: 'read',
    handle: async (c, d) => {
      const b = await body(c);
      const query = text(b, 'query');
      const r = await d.reader.search(query, { limit: limitOf(b.limit, 10), signal: c.req.raw.signal });
      return c.json(searchJson(query, r));
    },
  },
  {
    method: 'POST',
    path: '/v1/ask',
    role: 'read',
    handle: async (c, d) => {
      const b = await body(c);
      const question = text(b, 'question');
      const limit = b.limit === undefined ? {} : { limit: limitOf(b.limit, 6) };
      return c.json(askJson(await d.reader.ask(question, { ...limit, signal: c.req.raw.signal })));
    },
  },
  {
    method: 'POST',
    path: '/v1/documents',
    role: 'write',
    handle: async (c, d) => {
      const b = await body(c);
      const doc = {
        text: text(b, 'text'),
        ...(typeof b.source === 'string' ? { source: b.source } : {}),
        ...(typeof b.title === 'string' ? { title: b.title } : {}),
      };
      // Literal text only: a path in the body never reaches the file system.
      return c.json(addJson(await d.writer.add([doc], { signal: c.req.raw.signal })), 201);
    },
  },
  {
    method: 'DELETE',
    path: '/v1/documents/:id',
    role: 'write',
    handle: async (c, d) => {
      const r = await d.writer.rm([c.req.param('id')!]);
      if (r.removed.length === 0)
        throw new QuiverError('NOT_FOUND', `quiver: no document ${c.req.param('id')}`);
      return c.json({ batch: r.batch.id, removed: r.removed.map(documentJson) });
    },
  },
  {
    method: 'GET',
    path: '/v1/tokens',
    role: 'admin',
    handle: async (c, d) => c.json({ tokens: await listTokens(d.reader.store) }),
  },
  {
    method: 'POST',
    path: '/v1/tokens',
    role: 'admin',
    handle: async (c, d) => {
      const b = await body(c);
      const role = b.role;
      if (typeof role !== 'string' || !ROLES.includes(role as Role))
        throw new QuiverError('BAD_INPUT', `quiver: "role" must be one of ${ROLES.join(', ')}`);
      const label = typeof b.label === 'string' ? b.label : '';
      const { record, token } = await createToken(d.writer.store, role as Role, label);
      return c.json({ ...record, token }, 201);
    },
  },
  {
    method: 'DELETE',
    path: '/v1/tokens/:id',
    role: 'admin',
    handle: async (c, d) => {
      if (!(await revokeToken(d.writer.store, c.req.param('id')!)))
        throw new QuiverError('NOT_FOUND', `quiver: no token ${c.req.param('id')}`);
      return c.json({ revoked: c.req.param('id') });
    },
  },
];

/** The app: authentication, limits and error replies around `ROUTES`. */
export function createApp(deps: AppDeps): Hono<Env> {
  const limiter = new RateLimiter(deps.limits?.ratePerSecond ?? 20, deps.limits?.burst ?? 40);
  const maxBody = deps.limits?.maxBodyBytes ?? 1_048_576;
  const app = new Hono<Env>();
  app.onError((e, c) => {
    const r = errorReply(e);
    if (r.status >= 500)
      deps.log?.(`${c.get('requestId') ?? '-'} ${c.req.method} ${c.req.path} failed: ${String(e)}`);
    return c.json(r.body, r.status as 400);
  });
  app.notFound((c) =>
    c.json({ error: { code: 'NOT_FOUND', message: `quiver: no route ${c.req.method} ${c.req.path}` } }, 404),
  );
  app.use('*', async (c, next) => {
    const id = randomBytes(6).toString('hex');
    c.set('requestId', id);
    c.header('x-request-id', id);
    await next();
    deps.log?.(`${id} ${c.req.method} ${c.req.path} ${c.res.status}`);
  });
  app.get('/healthz', (c) => c.json({ ok: true }));
  app.use(
    '*',
    bodyLimit({
      maxSize: maxBody,
      onError: (c) =>
        c.json(
          { error: { code: 'FILE_TOO_LARGE', message: `quiver: the request body is over ${maxBody} bytes` } },
          413,
        ),
    }),
  );
  for (const route of ROUTES) {
    app.on(route.method, route.path, async (c) => {
      const header = c.req.header('authorization') ?? '';
      const m = /^Bearer\s+(\S+)$/i.exec(header);
      const token = m === null ? null : await verifyToken(deps.reader.store, m[1]!);
      if (token === null)
        return c.json(
          { error: { code: 'UNAUTHORIZED', message: 'quiver: a valid bearer token is needed' } },
          401,
          {
            'WWW-Authenticate': 'Bearer',
          },
        );
      const rate = limiter.take(token.id);
      if (!rate.allowed)
        return c.json(
          { error: { code: 'RATE_LIMITED', message: 'quiver: too many requests for this token' } },
          429,
          {
            'Retry-After': String(rate.retryAfter),
          },
        );
      if (!allows(token.role, route.role))
        return c.json(
          {
            error: {
              code: 'FORBIDDEN',
              message: `quiver: this route needs a ${route.role} token, this one is ${token.role}`,
            },
          },
          403,
        );
      c.set('token', { id: token.id, role: token.role });
      return route.handle(c, deps);
    });
  }
  return app;
}
