import { createMcpHandler, type AuthInfo } from '@modelcontextprotocol/server';
import type { Hono } from 'hono';
import type { AppDeps, Ctx, Env } from '../server/route.js';
import { ROLES, type Role } from '../server/tokens.js';
import { createMcpServer } from './server.js';

/** The server's check of a request's bearer token, rate limit and role (`server/app.ts`): null when it may go on. */
export type Authorize = (c: Ctx, needed: Role) => Promise<Response | null>;

/** The role a request's token carries, as the handler is given it (`AuthInfo.scopes`). */
function roleOf(auth: AuthInfo | undefined): Role {
  const r = auth?.scopes[0];
  return ROLES.includes(r as Role) ? (r as Role) : 'read';
}

/**
 * MCP over Streamable HTTP at `/mcp` of `quiver serve`, behind the same bearer tokens, rate limits
 * and body limit as the API (`authorize`, from `app.ts`). Each request is served by a fresh MCP
 * server built for its token's role (the SDK's per-request handler): a `read` token sees and can
 * call only the read tools, and reaches only the read-only vault. Tool calls spend the token's own
 * answer budget.
 */
export function mountMcp(app: Hono<Env>, deps: AppDeps, authorize: Authorize, maxBodyBytes: number): void {
  const handler = createMcpHandler(
    (ctx) => {
      const role = roleOf(ctx.authInfo);
      return createMcpServer({
        reader: deps.reader,
        writer: role === 'read' ? deps.reader : deps.writer,
        role,
        roots: deps.roots ?? [],
        ...(ctx.authInfo === undefined ? {} : { account: ctx.authInfo.clientId }),
        ...(deps.log === undefined ? {} : { log: deps.log }),
      });
    },
    {
      maxRequestBodySize: maxBodyBytes,
      ...(deps.log === undefined ? {} : { onerror: (e: Error) => deps.log?.(`mcp: ${e.message}`) }),
    },
  );
  app.all('/mcp', async (c) => {
    const refused = await authorize(c, 'read');
    if (refused !== null) return refused;
    const { id, role } = c.get('token');
    return handler.fetch(c.req.raw, { authInfo: { token: '', clientId: id, scopes: [role] } });
  });
}
