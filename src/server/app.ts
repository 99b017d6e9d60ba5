/**
 * The HTTP face of a vault: `createApp(deps)` builds the routes (tests call it without a port;
 * `quiver serve` puts it on one). A thin shell over the public API and the shared wire format.
 *
 * Read-only by construction: a route whose role is `read` is handed `deps` with the writer
 * replaced by `deps.reader`, a vault opened read-only (its SQLite connection cannot write), so no
 * read request can reach a writing connection whatever its handler does. Every route but
 * `/healthz` needs a bearer token; each token has its own rate limit (429 with Retry-After); JSON
 * bodies over `maxBodyBytes` and uploads over `maxUploadBytes` are refused (413); every failure is
 * `{error: {code, message}}` with its status from `http-status.ts`.
 */
import { randomBytes } from 'node:crypto';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { errorReply } from './http-status.js';
import { openApiDocument } from './openapi.js';
import { mountPage } from './page.js';
import { referencePage } from './reference-page.js';
import { VERSION } from '../version.js';
import { rateLimiterFor } from './rate-limit.js';
import { parseBody, type AppDeps, type Ctx, type Env, type Route } from './route.js';
import { ROUTES } from './routes/index.js';
import { mountEvalReports } from './routes/eval-routes.js';
import { allows, verifyToken } from './tokens.js';
import { mountMcp, type Authorize } from '../mcp/http.js';

export type { AppDeps } from './route.js';
export { ROUTES } from './routes/index.js';
export { MAX_LIMIT, MAX_QUERY_CHARS } from '../wire/requests.js';

function failure(
  c: Ctx,
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return c.json({ error: { code, message } }, status as 400, headers);
}

/** The app: authentication, limits and error replies around `ROUTES`. */
export function createApp(deps: AppDeps, routes: readonly Route[] = ROUTES): Hono<Env> {
  // Buckets in the store when several servers share it (each token's limit holds across them all).
  const limiter = rateLimiterFor(
    deps.writer.store,
    deps.limits?.ratePerSecond ?? 20,
    deps.limits?.burst ?? 40,
  );
  const maxBody = deps.limits?.maxBodyBytes ?? 1_048_576;
  const maxUpload = deps.limits?.maxUploadBytes ?? 50 * 1_048_576;
  const readDeps: AppDeps = { ...deps, writer: deps.reader };
  /** The request's bearer token, checked, counted against its rate limit and its role: null when it may go on. */
  const authorize: Authorize = async (c, needed) => {
    const m = /^Bearer\s+(\S+)$/i.exec(c.req.header('authorization') ?? '');
    const token = m === null ? null : await verifyToken(deps.reader.store, m[1]!);
    if (token === null)
      return failure(c, 401, 'UNAUTHORIZED', 'quiver: a valid bearer token is needed', {
        'WWW-Authenticate': 'Bearer',
      });
    const rate = await limiter.take(token.id);
    if (!rate.allowed)
      return failure(c, 429, 'RATE_LIMITED', 'quiver: too many requests for this token', {
        'Retry-After': String(rate.retryAfter),
      });
    if (!allows(token.role, needed))
      return failure(
        c,
        403,
        'FORBIDDEN',
        `quiver: this route needs a ${needed} token, this one is ${token.role}`,
      );
    c.set('token', { id: token.id, role: token.role });
    return null;
  };
  const app = new Hono<Env>();
  app.onError((e, c) => {
    const r = errorReply(e);
    if (r.status >= 500)
      deps.log?.(`${c.get('requestId') ?? '-'} ${c.req.method} ${c.req.path} failed: ${String(e)}`);
    return c.json(r.body, r.status as 400);
  });
  app.notFound((c) => failure(c, 404, 'NOT_FOUND', `quiver: no route ${c.req.method} ${c.req.path}`));
  app.use('*', async (c, next) => {
    const id = randomBytes(6).toString('hex');
    c.set('requestId', id);
    c.header('x-request-id', id);
    await next();
    deps.log?.(`${id} ${c.req.method} ${c.req.path} ${c.res.status}`);
  });
  if ((deps.corsOrigins ?? []).length > 0)
    app.use(
      '*',
      cors({
        origin: [...(deps.corsOrigins ?? [])],
        // The MCP headers too, so an MCP client in a browser on an allowed origin reaches /mcp.
        allowHeaders: [
          'authorization',
          'content-type',
          'accept',
          'last-event-id',
          'mcp-protocol-version',
          'mcp-session-id',
        ],
        allowMethods: ['GET', 'POST', 'DELETE'],
        exposeHeaders: ['x-request-id', 'retry-after', 'location', 'mcp-protocol-version', 'mcp-session-id'],
        maxAge: 600,
      }),
    );
  app.get('/healthz', (c) => c.json({ ok: true }));
  // The API's description is public (it holds no data): the JSON and a page to read it.
  const description = openApiDocument(routes, { version: VERSION });
  app.get('/openapi.json', (c) => c.json(description));
  const page = referencePage(description);
  app.get('/docs', (c) => c.html(page));
  // The web page and its assets (dist/web): public files; the page asks the API with a token.
  mountPage(app);
  // An eval report by its signed link (a frame cannot send the token); see eval-routes.ts.
  mountEvalReports(app, deps);
  // MCP over Streamable HTTP, behind the same tokens and limits; a token's role decides its tools.
  mountMcp(app, deps, authorize, maxBody);
  for (const route of routes) {
    const limit = route.multipart === true ? maxUpload : maxBody;
    app.on(
      route.method,
      route.path,
      bodyLimit({
        maxSize: limit,
        // The unread rest of the body is dropped with the socket: say so, so a keep-alive client reconnects.
        onError: (c) =>
          failure(c, 413, 'FILE_TOO_LARGE', `quiver: the request body is over ${limit} bytes`, {
            Connection: 'close',
          }),
      }),
      async (c) => {
        const refused = await authorize(c, route.role);
        if (refused !== null) return refused;
        const body = route.body === undefined ? undefined : await parseBody(c, route.body);
        return route.handle(c, route.role === 'read' ? readDeps : deps, body);
      },
    );
  }
  return app;
}
