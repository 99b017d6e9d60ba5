import { z } from 'zod';
import type { Route } from './route.js';

/**
 * The OpenAPI 3.1 description of the server, generated from the route table and the same zod
 * schemas the server checks bodies with, so the description cannot drift from what is enforced.
 */

/** `/v1/jobs/:id/retry` → `/v1/jobs/{id}/retry`; a path without parameters is unchanged. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}

/** The inverse of `openApiPath`: `/v1/jobs/{id}/retry` → `/v1/jobs/:id/retry`. */
export function honoPath(path: string): string {
  return path.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, ':$1');
}

/** The parameter names of a Hono path, in order (`/v1/documents/:id/outline` → `['id']`). */
export function pathParams(path: string): string[] {
  return [...path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!);
}

/**
 * A stable operation id from method and path: `POST /v1/jobs/:id/retry` → `postJobsByIdRetry`.
 * Segments are camel-cased after the `/v1` prefix; parameters read as `By<Name>`.
 */
export function operationId(method: string, path: string): string {
  const words = path
    .split('/')
    .filter((s) => s !== '' && s !== 'v1')
    .map((s) => (s.startsWith(':') ? `by-${s.slice(1)}` : s))
    .flatMap((s) => s.split(/[-_.]/))
    .filter((s) => s !== '');
  return method.toLowerCase() + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

const SUCCESS: Record<number, string> = {
  200: 'Success',
  201: 'Created',
  202: 'Accepted: a job was queued (Location names it)',
};

/** What each tag groups, for the reference page. */
const TAG_ABOUT: Record<string, string> = {
  service: 'Liveness, readiness, the vault’s health and the tokens.',
  search: 'Ranked sections and prompt context; every retrieval knob can be set per call.',
  ask: 'Answers with [n] citations, as one JSON reply or a stream of events.',
  documents: 'List, read and outline documents; add text, files or server folders; remove and undo.',
  jobs: 'The background queue: ingest and maintenance jobs, their progress, retries.',
  quality: 'Ratings, learning from them, junk suggestions and marks, answer transcripts.',
};

const ERROR = { $ref: '#/components/schemas/Error' };
const errorReply = (description: string) => ({
  description,
  content: { 'application/json': { schema: ERROR } },
});

/** JSON Schema of a body schema, as a request accepts it (no `$schema` inside OpenAPI). */
function bodySchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
  }) as Record<string, unknown>;
  return rest;
}

function operation(r: Route): Record<string, unknown> {
  const ok = r.status ?? 200;
  const content: Record<string, unknown> = { 'application/json': { schema: { type: 'object' } } };
  if (r.stream === true) content['text/event-stream'] = { schema: { type: 'string' } };
  const parameters = [
    ...pathParams(r.path).map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
    ...Object.entries(r.query ?? {}).map(([name, description]) => ({
      name,
      in: 'query',
      required: false,
      description,
      schema: { type: 'string' },
    })),
  ];
  const requestBody =
    r.body !== undefined
      ? { required: true, content: { 'application/json': { schema: bodySchema(r.body) } } }
      : r.multipart === true
        ? {
            required: true,
            content: {
              'multipart/form-data': {
                schema: {
                  type: 'object',
                  properties: { file: { type: 'array', items: { type: 'string', format: 'binary' } } },
                  required: ['file'],
                },
              },
            },
          }
        : undefined;
  return {
    operationId: operationId(r.method, r.path),
    tags: [r.tag],
    summary: r.summary,
    description: `Needs ${r.role === 'admin' ? 'an' : 'a'} ${r.role} token${r.role === 'read' ? ' (or any higher role)' : r.role === 'write' ? ' or an admin token' : ''}.`,
    security: [{ bearer: [] }],
    'x-quiver-role': r.role,
    ...(parameters.length === 0 ? {} : { parameters }),
    ...(requestBody === undefined ? {} : { requestBody }),
    responses: {
      [String(ok)]: { description: SUCCESS[ok] ?? 'Success', content },
      '400': errorReply('Bad input: nothing was changed'),
      '401': errorReply('No valid bearer token'),
      '403': errorReply('The token’s role is too low, or the path is outside the allowed roots'),
      '404': errorReply('Not found'),
      '413': errorReply('The body is over the limit'),
      ...(r.multipart === true
        ? {
            '415': errorReply('A file of a kind the vault does not read (or binary)'),
            '422': errorReply('A file that is empty, corrupt or not valid in its encoding'),
          }
        : {}),
      '429': errorReply('Over the token’s rate limit or budget (see Retry-After)'),
    },
  };
}

/** A route answered without a token (`/healthz`, the description itself). */
function publicOperation(operationId: string, summary: string, type: string): Record<string, unknown> {
  const schema = type === 'application/json' ? { type: 'object' } : { type: 'string' };
  return {
    operationId,
    tags: ['service'],
    summary,
    description: 'Public: no token needed.',
    security: [],
    responses: { '200': { description: 'Success', content: { [type]: { schema } } } },
  };
}

/** The whole document for a route table (plus the public routes: `/healthz`, `/openapi.json`, `/docs`). */
export function openApiDocument(
  routes: readonly Route[],
  info: { version: string },
): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {
    '/healthz': { get: publicOperation('getHealthz', 'Alive: the process answers', 'application/json') },
    '/openapi.json': {
      get: publicOperation('getOpenapiJson', 'This description (OpenAPI 3.1)', 'application/json'),
    },
    '/docs': { get: publicOperation('getDocs', 'The API reference page (HTML)', 'text/html') },
  };
  for (const r of routes) (paths[openApiPath(r.path)] ??= {})[r.method.toLowerCase()] = operation(r);
  return {
    openapi: '3.1.0',
    info: {
      title: 'quiver',
      version: info.version,
      description: [
        'A local-first RAG vault: search, context and answers with [n] citations, documents, jobs and the quality loop. Replies use the same JSON as the command line’s `--json` output.',
        'Every route but the public ones needs `Authorization: Bearer <token>`. Roles are ordered read < write < admin: a token may call every route of its role and of the roles below it. `quiver serve` prints an admin token on its first start; `POST /v1/tokens` makes more.',
        'A failure is `{"error": {"code", "message"}}` with the status below; bodies with unknown keys are refused, so a misspelt option is an error rather than a silent default.',
      ].join('\n\n'),
    },
    tags: [...new Set(['service', ...routes.map((r) => r.tag)])].map((name) => ({
      name,
      ...(TAG_ABOUT[name] === undefined ? {} : { description: TAG_ABOUT[name] }),
    })),
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: {
        Error: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['code', 'message'],
              properties: { code: { type: 'string' }, message: { type: 'string' } },
            },
          },
        },
      },
    },
  };
}
