import { QuiverError } from '../../errors.js';
import { jobCounts } from '../../jobs/queue.js';
import { TokenRequest } from '../../wire/requests.js';
import { param, route, type Route } from '../route.js';
import { createToken, listTokens, revokeToken } from '../tokens.js';

/** Readiness, the vault's health, and the tokens. */
export const ADMIN_ROUTES: readonly Route[] = [
  route({
    method: 'GET',
    path: '/readyz',
    role: 'read',
    tag: 'service',
    summary: 'Ready to answer: the vault opens and counts its documents',
    handle: async (c, d) => c.json({ ready: true, documents: (await d.reader.stats()).documents }),
  }),
  route({
    method: 'GET',
    path: '/v1/tokens/self',
    role: 'read',
    tag: 'service',
    summary: 'The calling token: its id and role (what a page shows or hides)',
    handle: async (c) => {
      const { id, role } = c.get('token');
      return c.json({ id, role });
    },
  }),
  route({
    method: 'GET',
    path: '/v1/doctor',
    role: 'admin',
    tag: 'service',
    summary: "The vault's health: embedder, writer, interrupted batches, index state, queue counts",
    handle: async (c, d) => {
      const [health, stats, jobs] = await Promise.all([
        d.writer.health(),
        d.writer.stats(),
        jobCounts(d.writer),
      ]);
      return c.json({ health, stats, jobs });
    },
  }),
  route({
    method: 'GET',
    path: '/v1/tokens',
    role: 'admin',
    tag: 'service',
    summary: 'The tokens (ids, roles, labels; never the secrets)',
    handle: async (c, d) => c.json({ tokens: await listTokens(d.writer.store) }),
  }),
  route({
    method: 'POST',
    path: '/v1/tokens',
    role: 'admin',
    tag: 'service',
    summary: 'Create a token; its secret is in this reply only',
    body: TokenRequest,
    status: 201,
    handle: async (c, d, b) => {
      const { record, token } = await createToken(d.writer.store, b.role, b.label ?? '');
      return c.json({ ...record, token }, 201);
    },
  }),
  route({
    method: 'DELETE',
    path: '/v1/tokens/:id',
    role: 'admin',
    tag: 'service',
    summary: 'Revoke a token',
    handle: async (c, d) => {
      const id = param(c, 'id');
      if (!(await revokeToken(d.writer.store, id)))
        throw new QuiverError('NOT_FOUND', `quiver: no token ${id}`);
      return c.json({ revoked: id });
    },
  }),
];
