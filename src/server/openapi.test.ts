import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AskRequest, SearchRequest } from '../wire/requests.js';
import { honoPath, openApiDocument, openApiPath, operationId, pathParams } from './openapi.js';
import type { Route } from './route.js';
import { ROUTES } from './routes/index.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const doc = openApiDocument(ROUTES, { version: '9.9.9' }) as Json;
const opOf = (r: Route): Json => doc.paths[openApiPath(r.path)][r.method.toLowerCase()] as Json;
const key = (r: Route): string => `${r.method} ${r.path}`;
const PUBLIC = ['/healthz', '/openapi.json', '/docs'];

/** A valid body for every route that takes JSON (a new route with a body must add one here). */
const SAMPLES: Record<string, Record<string, unknown>> = {
  'POST /v1/tokens': { role: 'read', label: 'ci' },
  'POST /v1/search': {
    query: 'teapot',
    limit: 5,
    mode: 'all',
    legs: 'both',
    filter: { kinds: ['md'], addedAfter: '2024-01-01T00:00:00Z', includeNoisy: false },
    select: { method: 'mmr', lambda: 0.5 },
  },
  'POST /v1/context': { query: 'teapot', rrfK: 60 },
  'POST /v1/selection-map': { query: 'teapot', limit: 5, select: { oversample: 4 } },
  'POST /v1/ask': { question: 'How warm?', generator: 'extractive', stream: false },
  'POST /v1/documents': { texts: [{ text: 'Hello', source: 'a.md' }], async: true },
  'POST /v1/undo': {},
  'POST /v1/jobs': { kind: 'index' },
  'POST /v1/feedback': { question: 'q', sectionId: 's#0', signal: 'up' },
  'POST /v1/learning': { on: true },
  'POST /v1/noise/accept': { k: 5, minScore: 0.5, reason: 'footer' },
  'POST /v1/noise/fit': { save: true },
  'POST /v1/noise/use': { on: false },
  'POST /v1/ranker/fit': {},
  'POST /v1/ranker/use': { on: true },
  'POST /v1/noise/marks': { document: 'd', noisy: true, reason: 'junk' },
  'POST /v1/evals/beir': { path: 'data/scifact', split: 'test', limit: 10, answer: false },
};

/**
 * Whether `v` satisfies a JSON Schema, for the keywords zod writes (each keyword checked is named
 * in KNOWN; an unknown one fails the test, so the check never silently passes over a keyword).
 */
const KNOWN = new Set([
  ...['type', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'anyOf', 'format'],
  ...['minLength', 'maxLength', 'minimum', 'maximum', 'exclusiveMinimum', 'minItems', 'maxItems'],
  'pattern',
]);
function satisfies(s: Json, v: unknown): boolean {
  for (const k of Object.keys(s)) if (!KNOWN.has(k)) throw new Error(`unchecked keyword ${k}`);
  if (s.anyOf !== undefined && !(s.anyOf as Json[]).some((sub) => satisfies(sub, v))) return false;
  if (s.enum !== undefined && !(s.enum as unknown[]).includes(v)) return false;
  switch (s.type) {
    case 'object': {
      if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
      const o = v as Json;
      const props = (s.properties ?? {}) as Json;
      if (!((s.required ?? []) as string[]).every((k) => k in o)) return false;
      if (s.additionalProperties === false && Object.keys(o).some((k) => !(k in props))) return false;
      return Object.entries(o).every(([k, x]) => props[k] === undefined || satisfies(props[k] as Json, x));
    }
    case 'array':
      return (
        Array.isArray(v) &&
        v.length >= (s.minItems ?? 0) &&
        v.length <= (s.maxItems ?? Infinity) &&
        v.every((x) => s.items === undefined || satisfies(s.items as Json, x))
      );
    case 'string':
      return (
        typeof v === 'string' &&
        v.length >= (s.minLength ?? 0) &&
        v.length <= (s.maxLength ?? Infinity) &&
        (s.pattern === undefined || new RegExp(s.pattern as string, 'u').test(v))
      );
    case 'integer':
    case 'number':
      return (
        typeof v === 'number' &&
        (s.type === 'number' || Number.isInteger(v)) &&
        v >= (s.minimum ?? -Infinity) &&
        v <= (s.maximum ?? Infinity) &&
        (s.exclusiveMinimum === undefined || v > s.exclusiveMinimum)
      );
    case 'boolean':
      return typeof v === 'boolean';
    case undefined:
      return true;
    default:
      throw new Error(`unchecked type ${String(s.type)}`);
  }
}

describe('openApiDocument', () => {
  it('describes every route exactly once, with unique operation ids', () => {
    const ops: { where: string; id: string }[] = [];
    for (const [path, item] of Object.entries(doc.paths as Json))
      for (const [method, op] of Object.entries(item as Json))
        ops.push({ where: `${method.toUpperCase()} ${honoPath(path)}`, id: (op as Json).operationId });
    const expected = [...ROUTES.map(key), ...PUBLIC.map((p) => `GET ${p}`)];
    expect(ops.map((o) => o.where).sort()).toEqual(expected.sort());
    const ids = ops.map((o) => o.id);
    expect(ids.every((id) => /^[a-z][A-Za-z0-9]*$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('9.9.9');
  });

  it('declares each {parameter} of a path, and only those', () => {
    for (const [path, item] of Object.entries(doc.paths as Json)) {
      const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      expect(path).not.toContain(':');
      for (const op of Object.values(item as Json)) {
        const declared = ((op as Json).parameters ?? []) as Json[];
        const pathDeclared = declared.filter((p) => p.in === 'path');
        expect(pathDeclared.map((p) => p.name)).toEqual(inPath);
        expect(pathDeclared.every((p) => p.required === true)).toBe(true);
        const names = declared.map((p) => `${p.in}:${p.name}`);
        expect(new Set(names).size).toBe(names.length);
      }
    }
  });

  it('lists the query parameters of each route, and every tag it uses', () => {
    const tags = new Set((doc.tags as Json[]).map((t) => t.name));
    for (const r of ROUTES) {
      const op = opOf(r);
      const query = ((op.parameters ?? []) as Json[]).filter((p) => p.in === 'query');
      expect(Object.fromEntries(query.map((p) => [p.name, p.description]))).toEqual(r.query ?? {});
      expect(op.tags).toEqual([r.tag]);
      expect(tags.has(r.tag)).toBe(true);
      expect(op.summary).toBe(r.summary);
    }
  });

  it('needs a bearer token of the route’s role everywhere but the public routes', () => {
    expect(doc.components.securitySchemes.bearer).toEqual({ type: 'http', scheme: 'bearer' });
    for (const r of ROUTES) {
      const op = opOf(r);
      expect(op.security).toEqual([{ bearer: [] }]);
      expect(op.description).toMatch(new RegExp(`^Needs an? ${r.role} token`));
    }
    for (const p of PUBLIC) expect(doc.paths[p].get.security).toEqual([]);
  });

  it('answers the success status (and a stream when the route streams), and the errors as Error', () => {
    for (const r of ROUTES) {
      const responses = opOf(r).responses as Json;
      const ok = responses[String(r.status ?? 200)] as Json;
      expect(Object.keys(ok.content).sort()).toEqual(
        r.stream === true ? ['application/json', 'text/event-stream'] : ['application/json'],
      );
      for (const s of ['400', '401', '403', '404', '413', '429'])
        expect(responses[s].content['application/json'].schema).toEqual({
          $ref: '#/components/schemas/Error',
        });
    }
    expect(doc.components.schemas.Error.properties.error.required).toEqual(['code', 'message']);
  });

  it('gives each JSON body the schema the server checks it with: a valid sample passes both', () => {
    const withBody = ROUTES.filter((r) => r.body !== undefined);
    expect(withBody.map(key).sort()).toEqual(Object.keys(SAMPLES).sort());
    for (const r of withBody) {
      const zod = r.body!;
      const sample = SAMPLES[key(r)]!;
      const body = opOf(r).requestBody as Json;
      expect(body.required).toBe(true);
      expect(Object.keys(body.content)).toEqual(['application/json']);
      const schema = body.content['application/json'].schema as Json;
      expect(schema.$schema).toBeUndefined();
      expect(zod.safeParse(sample).success, key(r)).toBe(true);
      expect(satisfies(schema, sample), key(r)).toBe(true);
      // The required keys are exactly the keys zod will not do without.
      const shape = (zod as unknown as z.ZodObject).shape;
      const needed = Object.keys(shape).filter((k) => !shape[k]!.safeParse(undefined).success);
      expect([...((schema.required ?? []) as string[])].sort(), key(r)).toEqual(needed.sort());
      expect(Object.keys(schema.properties).sort()).toEqual(Object.keys(shape).sort());
      // Both refuse an unknown key and a missing required one.
      const extra = { ...sample, surprise: 1 };
      expect(zod.safeParse(extra).success).toBe(false);
      expect(satisfies(schema, extra)).toBe(false);
      for (const k of needed) {
        const { [k]: _gone, ...without } = sample;
        expect(zod.safeParse(without).success).toBe(false);
        expect(satisfies(schema, without)).toBe(false);
      }
    }
  });

  it('agrees with zod on generated search bodies, valid or not', () => {
    const schema = doc.paths['/v1/search'].post.requestBody.content['application/json'].schema as Json;
    const body = fc.record(
      {
        query: fc.oneof(fc.string({ maxLength: 4 }), fc.integer()),
        limit: fc.oneof(fc.integer({ min: -2, max: 120 }), fc.double({ noNaN: true, min: 0, max: 3 })),
        mode: fc.constantFrom('any', 'all', 'phrase', 'some'),
        minSimilarity: fc.double({ min: -2, max: 2, noNaN: true }),
        select: fc.record(
          {
            method: fc.constantFrom('topk', 'mmr', 'best'),
            sigma: fc.double({ min: -1, max: 11, noNaN: true }),
          },
          { requiredKeys: [] },
        ),
        filter: fc.record(
          { kinds: fc.array(fc.constantFrom('md', 'doc'), { maxLength: 12 }) },
          { requiredKeys: [] },
        ),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(body, (b) => SearchRequest.safeParse(b).success === satisfies(schema, b)),
      { seed: 7, numRuns: 500 },
    );
  });

  it('describes uploads as multipart files and the ask stream as events', () => {
    const upload = doc.paths['/v1/uploads'].post as Json;
    const form = upload.requestBody.content['multipart/form-data'].schema as Json;
    expect(form.properties.file).toEqual({ type: 'array', items: { type: 'string', format: 'binary' } });
    expect(form.required).toEqual(['file']);
    expect(upload.responses['202']).toBeDefined();
    const ask = doc.paths['/v1/ask'].post as Json;
    expect(Object.keys(ask.requestBody.content['application/json'].schema.properties).sort()).toEqual(
      Object.keys(AskRequest.shape).sort(),
    );
    expect(ask.responses['200'].content['text/event-stream']).toBeDefined();
  });
});

describe('paths and operation ids', () => {
  it('turns :name into {name} and back', () => {
    expect(openApiPath('/v1/jobs/:id/retry')).toBe('/v1/jobs/{id}/retry');
    expect(honoPath('/v1/jobs/{id}/retry')).toBe('/v1/jobs/:id/retry');
    expect(openApiPath('/readyz')).toBe('/readyz');
    expect(pathParams('/v1/documents/:id/outline')).toEqual(['id']);
    expect(operationId('POST', '/v1/jobs/:id/retry')).toBe('postJobsByIdRetry');
    expect(operationId('GET', '/v1/noise/suggestions')).toBe('getNoiseSuggestions');
  });

  const segment = fc.oneof(
    fc.stringMatching(/^[a-z][a-z0-9._-]{0,7}$/),
    fc.stringMatching(/^:[A-Za-z_][A-Za-z0-9_]{0,7}$/),
  );
  const honoPaths = fc.array(segment, { minLength: 1, maxLength: 6 }).map((s) => `/${s.join('/')}`);

  it('round-trips: honoPath(openApiPath(p)) is p, keeping the parameters in order', () => {
    fc.assert(
      fc.property(honoPaths, (path) => {
        const open = openApiPath(path);
        expect(honoPath(open)).toBe(path);
        expect(openApiPath(honoPath(open))).toBe(open);
        expect(open).not.toContain(':');
        expect([...open.matchAll(/\{([^}]+)\}/g)].map((m) => m[1])).toEqual(pathParams(path));
      }),
      { seed: 11, numRuns: 500 },
    );
  });
});
