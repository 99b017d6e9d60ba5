import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isQuiverError } from '../errors.js';
import { norm } from '../math/vector.js';
import { startFakeEmbeddingsServer } from './_fake-embeddings-server.js';
import type { FakeEmbeddingsServer } from './_fake-embeddings-server.js';
import { runEmbedderContract } from './embedder.contract.js';
import { createOpenAIEmbedder, openAIEmbedderId, parseEmbeddingReply } from './openai-compatible.js';
import type { OpenAIEmbedderOptions } from './openai-compatible.js';

let server: FakeEmbeddingsServer;
beforeAll(async () => {
  server = await startFakeEmbeddingsServer(32);
});
afterAll(async () => {
  await server.close();
});

const make = (extra: Partial<OpenAIEmbedderOptions> = {}) =>
  createOpenAIEmbedder({ baseURL: server.url, model: 'fake-embed', env: {}, ...extra });

/** Retry quickly: the SDK honours `retry-after-ms`. */
const FAST = { 'retry-after-ms': '1' };

async function failure(p: Promise<unknown>): Promise<Error & { code?: string }> {
  const e: unknown = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  if (!(e instanceof Error)) throw new Error('expected a rejection');
  return e;
}

runEmbedderContract('openai-compatible (loopback server)', () => make({ dims: 32 }));
runEmbedderContract('openai-compatible (dims probed, batch 2)', () => make({ batchSize: 2 }));

describe('createOpenAIEmbedder', () => {
  beforeEach(() => {
    server.requests.length = 0;
  });

  it('learns dims from one probe call when not given, and none when given', async () => {
    const e = await make();
    expect(e.dims).toBe(32);
    expect(e.id).toBe('openai:fake-embed:32:v1');
    expect(server.requests).toHaveLength(1);
    await make({ dims: 32 });
    expect(server.requests).toHaveLength(1);
  });

  it('sends model, input and encoding_format "float" to /v1/embeddings', async () => {
    const e = await make({ dims: 32 });
    await e.embed(['alpha beta', 'gamma']);
    expect(server.requests).toHaveLength(1);
    const r = server.requests[0]!;
    expect(r.method).toBe('POST');
    expect(r.path).toBe('/v1/embeddings');
    expect(r.body).toMatchObject({
      model: 'fake-embed',
      input: ['alpha beta', 'gamma'],
      encoding_format: 'float',
    });
  });

  it('returns unit vectors in the direction the server gave', async () => {
    const e = await make({ dims: 32 });
    const [v] = await e.embed(['alpha beta']);
    const raw = (server.answer(['alpha beta']) as { data: { embedding: number[] }[] }).data[0]!.embedding;
    expect(norm(v!)).toBeCloseTo(1, 6);
    expect(norm(raw)).toBeCloseTo(3, 5);
    for (let i = 0; i < 32; i++) expect(v![i]).toBeCloseTo(raw[i]! / 3, 6);
  });

  it('splits inputs into batches of batchSize and reports progress', async () => {
    const e = await make({ dims: 32, batchSize: 4 });
    const seen: [number, number][] = [];
    const texts = Array.from({ length: 10 }, (_, i) => `text ${i}`);
    const vs = await e.embed(texts, { onProgress: (d, t) => seen.push([d, t]) });
    expect(vs).toHaveLength(10);
    expect(server.requests.map((r) => (r.body as { input: string[] }).input.length)).toEqual([4, 4, 2]);
    expect(seen).toEqual([
      [4, 10],
      [8, 10],
      [10, 10],
    ]);
  });

  it('does not send empty texts and gives them zero vectors', async () => {
    const e = await make({ dims: 32 });
    const vs = await e.embed(['', 'real text', '  ']);
    expect((server.requests[0]!.body as { input: string[] }).input).toEqual(['real text']);
    expect(vs[0]!.every((x) => x === 0) && vs[2]!.every((x) => x === 0)).toBe(true);
    expect(norm(vs[1]!)).toBeCloseTo(1, 6);
  });

  it('prepends the query or document prefix and names the prefixes in the id', async () => {
    const e = await make({ dims: 32, queryPrefix: 'search_query: ', documentPrefix: 'search_document: ' });
    await e.embed(['q'], { purpose: 'query' });
    await e.embed(['d']);
    expect(server.requests.map((r) => (r.body as { input: string[] }).input[0])).toEqual([
      'search_query: q',
      'search_document: d',
    ]);
    expect(e.id).toMatch(/^openai:fake-embed:32:v1:p-[0-9a-f]{8}$/);
    expect(openAIEmbedderId('m', 8)).toBe('openai:m:8:v1');
  });

  it('sends the key from the named variable as a bearer token, or a placeholder', async () => {
    await (
      await make({ dims: 32, apiKeyEnv: 'QUIVER_TEST_KEY', env: { QUIVER_TEST_KEY: 'sk-test-123' } })
    ).embed(['x']);
    await (await make({ dims: 32, apiKeyEnv: 'QUIVER_TEST_KEY', env: {} })).embed(['x']);
    expect(server.requests.map((r) => r.headers.authorization)).toEqual([
      'Bearer sk-test-123',
      'Bearer none',
    ]);
  });

  it('retries a 429 and succeeds', async () => {
    const e = await make({ dims: 32 });
    server.enqueue({ status: 429, json: { error: { message: 'slow down' } }, headers: FAST });
    const [v] = await e.embed(['retry me']);
    expect(server.requests).toHaveLength(2);
    expect(norm(v!)).toBeCloseTo(1, 6);
  });

  it('retries a 500 and succeeds', async () => {
    const e = await make({ dims: 32 });
    server.enqueue({ status: 500, json: { error: { message: 'boom' } }, headers: FAST });
    expect(await e.embed(['retry me'])).toHaveLength(1);
    expect(server.requests).toHaveLength(2);
  });

  it('gives up after maxRetries with REMOTE naming the status and URL, never the key', async () => {
    const e = await make({ dims: 32, maxRetries: 1, env: { OPENAI_API_KEY: 'sk-secret-xyz' } });
    server.enqueue(
      { status: 503, json: { error: { message: 'down' } }, headers: FAST },
      { status: 503, json: { error: { message: 'down' } }, headers: FAST },
    );
    const err = await failure(e.embed(['x']));
    expect(isQuiverError(err, 'REMOTE')).toBe(true);
    expect(err.message).toContain('HTTP 503');
    expect(err.message).toContain(server.url);
    expect(err.message).not.toContain('sk-secret-xyz');
    expect(server.requests).toHaveLength(2);
  });

  it('does not retry a 400', async () => {
    const e = await make({ dims: 32 });
    server.enqueue({ status: 400, json: { error: { message: 'bad model' } } });
    expect(isQuiverError(await failure(e.embed(['x'])), 'REMOTE')).toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  it('times out with TIMEOUT within the configured time when the server never answers', async () => {
    const e = await make({ dims: 32, timeoutMs: 200, maxRetries: 0 });
    server.enqueue('hang');
    const t0 = performance.now();
    const err = await failure(e.embed(['x']));
    const elapsed = performance.now() - t0;
    expect(isQuiverError(err, 'TIMEOUT')).toBe(true);
    expect(err.message).toContain('200 ms');
    expect(elapsed).toBeGreaterThanOrEqual(150);
    expect(elapsed).toBeLessThan(2000);
  });

  it('rejects with ABORTED when the signal aborts during a request', async () => {
    const e = await make({ dims: 32, timeoutMs: 10_000 });
    server.enqueue('hang');
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    expect(isQuiverError(await failure(e.embed(['x'], { signal: ac.signal })), 'ABORTED')).toBe(true);
  });

  it.each([
    ['no data array', { status: 200, json: { object: 'list' } }, 'no `data` array'],
    ['a non-JSON body', { status: 200, text: 'hello' }, 'expected a JSON object'],
    [
      'too few embeddings',
      { status: 200, json: { data: [{ index: 0, embedding: Array(32).fill(1) }] } },
      '1 embeddings for 2 inputs',
    ],
    [
      'a non-number',
      {
        status: 200,
        json: { data: [0, 1].map((index) => ({ index, embedding: ['a', ...Array(31).fill(1)] })) },
      },
      'embedding[0] is "a"',
    ],
    [
      'wrong dims',
      { status: 200, json: { data: [0, 1].map((index) => ({ index, embedding: Array(16).fill(1) })) } },
      '16 dimensions, expected 32',
    ],
    [
      'a base64 string',
      { status: 200, json: { data: [0, 1].map((index) => ({ index, embedding: 'AAAA' })) } },
      'a string (base64?)',
    ],
  ])('rejects a reply with %s as REMOTE with a clear message', async (_name, reply, what) => {
    const e = await make({ dims: 32 });
    server.enqueue(reply);
    const err = await failure(e.embed(['one', 'two']));
    expect(isQuiverError(err, 'REMOTE')).toBe(true);
    expect(err.message).toContain(`${server.url}/embeddings`);
    expect(err.message).toContain(what);
  });

  it('rejects a later reply whose dims differ from the probed ones', async () => {
    const e = await make();
    server.enqueue({ status: 200, json: { data: [{ index: 0, embedding: Array(64).fill(0.1) }] } });
    const err = await failure(e.embed(['x']));
    expect(isQuiverError(err, 'REMOTE')).toBe(true);
    expect(err.message).toContain('64 dimensions, expected 32');
  });

  it('puts vectors back in input order using each item index', async () => {
    const e = await make({ dims: 32 });
    server.enqueue((_req, inputs) => {
      const body = server.answer(inputs) as { data: unknown[] };
      return { status: 200, json: { ...body, data: [...body.data].reverse() } };
    });
    const shuffled = await e.embed(['first text', 'second text']);
    const straight = await e.embed(['first text', 'second text']);
    expect(shuffled.map((v) => Array.from(v))).toEqual(straight.map((v) => Array.from(v)));
  });

  it('refuses to connect to nothing: a closed port gives REMOTE', async () => {
    const err = await failure(
      createOpenAIEmbedder({
        baseURL: 'http://127.0.0.1:9/v1',
        model: 'm',
        env: {},
        maxRetries: 0,
        timeoutMs: 2000,
      }),
    );
    expect(isQuiverError(err, 'REMOTE')).toBe(true);
  });

  it.each([
    [{ baseURL: 'ftp://x' }, 'baseURL'],
    [{ model: ' ' }, 'model'],
    [{ batchSize: 0 }, 'batchSize'],
    [{ dims: -1 }, 'dims'],
    [{ maxRetries: 1.5 }, 'maxRetries'],
  ])('rejects %o with BAD_INPUT', async (bad, field) => {
    const err = await failure(make(bad));
    expect(isQuiverError(err, 'BAD_INPUT')).toBe(true);
    expect(err.message).toContain(field);
  });
});

describe('parseEmbeddingReply', () => {
  it('rejects repeated indices', () => {
    const reply = { data: [0, 0].map((index) => ({ index, embedding: [1, 2] })) };
    expect(() => parseEmbeddingReply(reply, 2, 2, 'u')).toThrow(/index 0 is out of range or repeated/);
  });

  it('uses list order when indices are missing and fixes dims from the first item', () => {
    expect(
      parseEmbeddingReply({ data: [{ embedding: [1, 2] }, { embedding: [3, 4] }] }, 2, undefined, 'u'),
    ).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(() =>
      parseEmbeddingReply({ data: [{ embedding: [1, 2] }, { embedding: [3] }] }, 2, undefined, 'u'),
    ).toThrow(/1 dimensions, expected 2/);
  });

  it('rejects empty and non-finite embeddings', () => {
    expect(() => parseEmbeddingReply({ data: [{ embedding: [] }] }, 1, undefined, 'u')).toThrow(
      /0 dimensions/,
    );
    expect(() => parseEmbeddingReply({ data: [{ embedding: [1, null] }] }, 1, 2, 'u')).toThrow(
      /embedding\[1\] is null/,
    );
  });
});
