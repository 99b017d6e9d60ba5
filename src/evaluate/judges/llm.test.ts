// The LLM judge against a real OpenAI-compatible HTTP server on 127.0.0.1 (node:http), started here.
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isQuiverError } from '../../errors.js';
import { createLlmJudge, parseYesNo, verdictKey } from './llm.js';
import type { VerdictCache } from './llm.js';

interface Seen {
  model: string;
  temperature: number;
  messages: { role: string; content: string }[];
}

/** Scripted replies: each request takes the next one; `429` answers Too Many Requests. */
let script: (string | 429)[] = [];
let requests: Seen[] = [];
let server: Server;
let baseURL = '';

function reply(res: ServerResponse, content: string): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({
      id: 'x',
      object: 'chat.completion',
      created: 0,
      model: 'm',
      choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    }),
  );
}

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      requests.push(JSON.parse(body) as Seen);
      const next = script.shift() ?? 'no';
      if (next === 429) {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after-ms': '5' });
        res.end(JSON.stringify({ error: { message: 'slow down', type: 'rate_limit' } }));
        return;
      }
      reply(res, next);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  script = [];
  requests = [];
});

const source = { id: 'D1', text: 'The museum opens Tuesday at 10:00.' };
const claim = { text: 'The museum opens on Tuesday.' };

describe('createLlmJudge (real loopback server)', () => {
  it('asks once per pair at temperature 0 and reads "yes" as support', async () => {
    script = ['Yes.'];
    const judge = createLlmJudge({ model: 'judge-m', baseURL, apiKey: 'k' });
    expect(judge.id).toBe('llm:judge-m');
    expect(judge.proxy).toBe(false);
    expect(await judge.supports(source, claim)).toBe(true);
    expect(requests).toHaveLength(1);
    expect(requests[0]!.model).toBe('judge-m');
    expect(requests[0]!.temperature).toBe(0);
    const user = requests[0]!.messages.find((m) => m.role === 'user')!.content;
    expect(user).toContain(source.text);
    expect(user).toContain(claim.text);
  });

  it('reads "no" as no support', async () => {
    script = ['no'];
    const judge = createLlmJudge({ model: 'm', baseURL });
    expect(await judge.supports(source, { text: 'The museum opens on Monday.' })).toBe(false);
  });

  it('retries after a 429 and then succeeds', async () => {
    script = [429, 'yes'];
    const judge = createLlmJudge({ model: 'm', baseURL, maxRetries: 2 });
    expect(await judge.supports(source, claim)).toBe(true);
    expect(requests).toHaveLength(2);
  });

  it('a cache hit makes no second request, also for concurrent identical calls', async () => {
    script = ['yes', 'no'];
    const judge = createLlmJudge({ model: 'm', baseURL });
    const [a, b] = await Promise.all([judge.supports(source, claim), judge.supports(source, claim)]);
    expect([a, b]).toEqual([true, true]);
    expect(await judge.supports({ id: 'other id, same text', text: source.text }, claim)).toBe(true);
    expect(requests).toHaveLength(1);
    expect(judge.stats).toEqual({ requests: 1, cacheHits: 2 });
  });

  it('uses an injected persistent cache keyed by SHA-256 of (model, source, claim)', async () => {
    const store = new Map<string, boolean>();
    const cache: VerdictCache = {
      get: (k) => Promise.resolve(store.get(k)),
      set: (k, v) => {
        store.set(k, v);
        return Promise.resolve();
      },
    };
    script = ['yes'];
    await createLlmJudge({ model: 'm', baseURL, cache }).supports(source, claim);
    const key = verdictKey('m', source.text, claim.text);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(store.get(key)).toBe(true);
    // A new judge over the same cache asks nothing; another model is a different key.
    await createLlmJudge({ model: 'm', baseURL, cache }).supports(source, claim);
    expect(requests).toHaveLength(1);
    expect(verdictKey('m2', source.text, claim.text)).not.toBe(key);
  });

  it('an unparseable reply is a REMOTE error and is not cached', async () => {
    script = ['maybe', 'yes'];
    const cache = new Map<string, boolean>();
    const judge = createLlmJudge({ model: 'm', baseURL, cache });
    const err = await judge.supports(source, claim).catch((e: unknown) => e);
    expect(isQuiverError(err, 'REMOTE')).toBe(true);
    expect(cache.size).toBe(0);
    expect(await judge.supports(source, claim)).toBe(true);
  });

  it('a persistent 429 becomes a REMOTE error after the retries', async () => {
    script = [429, 429];
    const judge = createLlmJudge({ model: 'm', baseURL, maxRetries: 1 });
    const err = await judge.supports(source, claim).catch((e: unknown) => e);
    expect(isQuiverError(err, 'REMOTE')).toBe(true);
    expect(requests).toHaveLength(2);
  });

  it('an aborted signal gives ABORTED', async () => {
    const judge = createLlmJudge({ model: 'm', baseURL });
    const controller = new AbortController();
    controller.abort();
    const err = await judge.supports(source, claim, { signal: controller.signal }).catch((e: unknown) => e);
    expect(isQuiverError(err, 'ABORTED')).toBe(true);
  });

  it('rejects an empty model name', () => {
    expect(() => createLlmJudge({ model: ' ', baseURL })).toThrow(/judge model/);
  });
});

describe('parseYesNo', () => {
  it.each([
    ['yes', true],
    ['No.', false],
    ['**Yes** — the source states it.', true],
    ['"no"', false],
    ['<think>maybe yes, maybe no</think>\nNo', false],
    ['reasoning… </think> yes', true],
    ['The answer is yes.', true],
    ['I would say no', false],
  ])('%j → %s', (text, want) => {
    expect(parseYesNo(text)).toBe(want);
  });

  it.each(['', 'maybe', 'It could be yes or no', 'Nobody knows', 'yesterday'])('%j → null', (text) => {
    expect(parseYesNo(text)).toBeNull();
  });
});
