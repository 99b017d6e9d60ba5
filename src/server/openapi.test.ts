import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AskRequest, SearchRequest } from '../wire/requests.js';
import { openApiDocument, openApiPath, operationId, pathParams } from './openapi.js';
import { ROUTES } from './routes/index.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const doc = openApiDocument(ROUTES, { version: '9.9.9' }) as Json;

describe('openApiDocument', () => {
  it('describes every route exactly once, with unique operation ids', () => {
    const ops: string[] = [];
    for (const [path, item] of Object.entries(doc.paths as Json))
      for (const [method, op] of Object.entries(item as Json))
        ops.push(`${method} ${path} ${(op as Json).operationId}`);
    expect(ops.length).toBe(ROUTES.length + 1); // + /healthz
    for (const r of ROUTES) expect(doc.paths[openApiPath(r.path)][r.method.toLowerCase()]).toBeDefined();
    const ids = ops.map((o) => o.split(' ')[2]);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('declares every path parameter, and needs a bearer token everywhere but /healthz', () => {
    for (const r of ROUTES) {
      const op = doc.paths[openApiPath(r.path)][r.method.toLowerCase()] as Json;
      const declared = (op.parameters ?? []).filter((p: Json) => p.in === 'path').map((p: Json) => p.name);
      expect(declared).toEqual(pathParams(r.path));
      expect(op.security).toEqual([{ bearer: [] }]);
      expect(op.description).toContain(`${r.role} token`);
    }
    expect(doc.paths['/healthz'].get.security).toEqual([]);
  });

  it('gives each JSON body the schema the server checks it with', () => {
    const search = doc.paths['/v1/search'].post.requestBody.content['application/json'].schema as Json;
    expect(search.required).toEqual(['query']);
    expect(search.additionalProperties).toBe(false);
    expect(Object.keys(search.properties).sort()).toEqual(Object.keys(SearchRequest.shape).sort());
    const ask = doc.paths['/v1/ask'].post as Json;
    expect(Object.keys(ask.requestBody.content['application/json'].schema.properties).sort()).toEqual(
      Object.keys(AskRequest.shape).sort(),
    );
    expect(ask.responses['200'].content['text/event-stream']).toBeDefined();
    expect(doc.paths['/v1/uploads'].post.requestBody.content['multipart/form-data']).toBeDefined();
    expect(doc.paths['/v1/uploads'].post.responses['202']).toBeDefined();
  });
});

describe('paths and operation ids', () => {
  it('turns :name into {name}', () => {
    expect(openApiPath('/v1/jobs/:id/retry')).toBe('/v1/jobs/{id}/retry');
    expect(openApiPath('/readyz')).toBe('/readyz');
    expect(pathParams('/v1/documents/:id/outline')).toEqual(['id']);
    expect(operationId('POST', '/v1/jobs/:id/retry')).toBe('postJobsByIdRetry');
    expect(operationId('GET', '/v1/noise/suggestions')).toBe('getNoiseSuggestions');
  });
  it('keeps the parameters it converts, in order', () => {
    const seg = fc.oneof(fc.stringMatching(/^[a-z]{1,6}$/), fc.stringMatching(/^:[a-z][a-z0-9]{0,5}$/));
    fc.assert(
      fc.property(fc.array(seg, { minLength: 1, maxLength: 6 }), (segs) => {
        const path = `/${segs.join('/')}`;
        const names = [...openApiPath(path).matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
        return JSON.stringify(names) === JSON.stringify(pathParams(path)) && !openApiPath(path).includes(':');
      }),
    );
  });
});
