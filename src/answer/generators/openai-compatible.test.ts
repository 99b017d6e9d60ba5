import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isQuiverError, QuiverError } from '../../errors.js';
import { extractClaims } from '../citations.js';
import type { ContextSection } from '../context-section.js';
import { generateWithShrink } from '../generator.js';
import { buildPrompt } from '../prompt.js';
import { createOpenAIGenerator, isContextWindowMessage, toQuiverError } from './openai-compatible.js';

interface Recorded {
  headers: IncomingMessage['headers'];
  body: {
    model: string;
    messages: { role: string; content: string }[];
    temperature: number;
    max_tokens: number;
    stream?: boolean;
  };
  raw: string;
}
type Handler = (req: Recorded, res: ServerResponse) => void;

let server: Server;
let baseURL = '';
const requests: Recorded[] = [];
let handlers: Handler[] = [];

function completion(content: string, usage: boolean = true): string {
  return JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'test-model',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    ...(usage ? { usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 } } : {}),
  });
}

const ok =
  (content: string, usage = true): Handler =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(completion(content, usage));
  };

const error =
  (status: number, message: string, headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify({ error: { message, type: 'invalid_request_error', code: null } }));
  };

const sse =
  (pieces: string[]): Handler =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const p of pieces) {
      const chunk = {
        id: 'c',
        object: 'chat.completion.chunk',
        created: 1,
        model: 'test-model',
        choices: [{ index: 0, delta: { content: p }, finish_reason: null }],
      };
      res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    }
    const last = {
      id: 'c',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'test-model',
      choices: [],
      usage: { prompt_tokens: 21, completion_tokens: 5, total_tokens: 26 },
    };
    res.write(`data: ${JSON.stringify(last)}\n\n`);
    res.end('data: [DONE]\n\n');
  };

/** Never answers (until the server closes the connection). */
const hang: Handler = () => undefined;

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (raw += c));
    req.on('end', () => {
      if (req.url !== '/v1/chat/completions' || req.method !== 'POST') {
        res.writeHead(404).end();
        return;
      }
      const rec: Recorded = { headers: req.headers, body: JSON.parse(raw) as Recorded['body'], raw };
      requests.push(rec);
      const h = handlers.shift();
      if (h === undefined) error(500, 'no handler queued')(rec, res);
      else h(rec, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  requests.length = 0;
  handlers = [];
});

function section(n: number, text: string): ContextSection {
  return {
    n,
    sectionId: `d${n}#1`,
    docId: `d${n}`,
    title: `T${n}`,
    breadcrumb: `Doc ${n}`,
    source: `f${n}.md`,
    pages: null,
    text,
    score: 1,
  };
}
const SECTIONS = [section(1, 'Boil the eggs for ten minutes.'), section(2, 'Water boils at 100 °C.')];
const PROMPT = buildPrompt('How long do I boil eggs?', SECTIONS);
const make = (extra: Partial<Parameters<typeof createOpenAIGenerator>[0]> = {}) =>
  createOpenAIGenerator({
    baseURL,
    model: 'test-model',
    env: { OPENAI_API_KEY: 'sk-test' },
    maxRetries: 0,
    ...extra,
  });

describe('openai-compatible generator (real HTTP server)', () => {
  it('sends model, messages and temperature, and returns text and reported usage', async () => {
    handlers.push(ok('Boil them for ten minutes [1].'));
    const gen = make({ temperature: 0.2, maxTokens: 64 });
    const r = await gen.generate(PROMPT);
    expect(r).toEqual({
      text: 'Boil them for ten minutes [1].',
      usage: { promptTokens: 11, completionTokens: 7 },
    });
    expect(requests).toHaveLength(1);
    const body = requests[0]!.body;
    expect(body.model).toBe('test-model');
    expect(body.temperature).toBe(0.2);
    expect(body.max_tokens).toBe(64);
    expect(body.messages).toEqual([
      { role: 'system', content: PROMPT.system },
      { role: 'user', content: PROMPT.user },
    ]);
    expect(body.stream).toBe(false);
    expect(gen.id).toBe(`openai:test-model@${baseURL}:t0.2`);
  });

  it('per-call maxTokens overrides the default', async () => {
    handlers.push(ok('x'));
    await make().generate(PROMPT, { maxTokens: 9 });
    expect(requests[0]!.body.max_tokens).toBe(9);
    expect(requests[0]!.body.temperature).toBe(0);
  });

  it('estimates usage when the reply has none', async () => {
    handlers.push(ok('abcdefghi', false));
    const r = await make().generate(PROMPT);
    expect(r.usage.completionTokens).toBe(3);
    expect(r.usage.promptTokens).toBe(Math.ceil([...`${PROMPT.system}\n${PROMPT.user}`].length / 4));
  });

  it('streams when onToken is given: pieces arrive in order and the full text is returned', async () => {
    handlers.push(sse(['Boil ', 'them for ', 'ten minutes ', '[1].']));
    const got: string[] = [];
    const r = await make().generate(PROMPT, { onToken: (t) => got.push(t) });
    expect(got).toEqual(['Boil ', 'them for ', 'ten minutes ', '[1].']);
    expect(r.text).toBe('Boil them for ten minutes [1].');
    expect(r.usage).toEqual({ promptTokens: 21, completionTokens: 5 });
    expect(requests[0]!.body.stream).toBe(true);
  });

  it('retries a 429 and then succeeds', async () => {
    handlers.push(error(429, 'rate limited', { 'retry-after-ms': '5' }), ok('Done [2].'));
    const r = await make({ maxRetries: 2 }).generate(PROMPT);
    expect(r.text).toBe('Done [2].');
    expect(requests).toHaveLength(2);
  });

  it('gives up after maxRetries on 5xx with a REMOTE error carrying the status', async () => {
    handlers.push(
      error(503, 'busy', { 'retry-after-ms': '1' }),
      error(503, 'busy', { 'retry-after-ms': '1' }),
    );
    try {
      await make({ maxRetries: 1 }).generate(PROMPT);
      expect.unreachable();
    } catch (e) {
      expect(isQuiverError(e, 'REMOTE')).toBe(true);
      expect((e as QuiverError).details).toMatchObject({ status: 503, contextWindow: false });
    }
    expect(requests).toHaveLength(2);
  });

  it('turns a timeout into TIMEOUT', async () => {
    handlers.push(hang);
    const started = Date.now();
    try {
      await make({ timeoutMs: 150 }).generate(PROMPT);
      expect.unreachable();
    } catch (e) {
      expect(isQuiverError(e, 'TIMEOUT')).toBe(true);
    }
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('passes the AbortSignal through: aborting gives ABORTED', async () => {
    handlers.push(hang);
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    try {
      await make().generate(PROMPT, { signal: ac.signal });
      expect.unreachable();
    } catch (e) {
      expect(isQuiverError(e, 'ABORTED')).toBe(true);
    }
  });

  it('a reply with out-of-range citations: extractClaims reports them', async () => {
    handlers.push(ok('Boil for ten minutes [1]. Use a timer [4]. Water boils at 100 °C [2][0].'));
    const r = await make().generate(PROMPT);
    const claims = extractClaims(r.text, PROMPT.sections.length);
    expect(claims.cited).toEqual([1, 2]);
    expect(claims.invalid).toEqual([4, 0]);
    expect(claims.claims).toHaveLength(3);
  });

  it('strips <think> blocks from the returned text, including citations inside them', async () => {
    handlers.push(
      ok('<think>\nThe user asks about eggs. Maybe [7]?\n</think>\n\nBoil them ten minutes [1].'),
    );
    const r = await make().generate(PROMPT);
    expect(r.text).toBe('Boil them ten minutes [1].');
    expect(extractClaims(r.text, 2).invalid).toEqual([]);
  });

  it('strips reasoning from streamed text at the end', async () => {
    handlers.push(sse(['<thi', 'nk>hmm [9]</th', 'ink>', 'Ten minutes [1].']));
    const got: string[] = [];
    const r = await make().generate(PROMPT, { onToken: (t) => got.push(t) });
    expect(got.join('')).toBe('<think>hmm [9]</think>Ten minutes [1].');
    expect(r.text).toBe('Ten minutes [1].');
  });

  it('surfaces a context-window 400 as REMOTE with details.contextWindow', async () => {
    handlers.push(
      error(400, "This model's maximum context length is 64 tokens. However, you requested 900 tokens."),
    );
    try {
      await make().generate(PROMPT);
      expect.unreachable();
    } catch (e) {
      expect(isQuiverError(e, 'REMOTE')).toBe(true);
      expect((e as QuiverError).details).toMatchObject({ status: 400, contextWindow: true });
    }
  });

  it('generateWithShrink retries once with fewer, shorter sections after a context-window error', async () => {
    const limit = 700; // user-message characters the fake model accepts
    const gate: Handler = (req, res) => {
      const user = req.body.messages[1]!.content;
      if (user.length > limit)
        error(400, `the request exceeds the available context size (${user.length} chars)`)(req, res);
      else ok('Boil for ten minutes [1].')(req, res);
    };
    handlers.push(gate, gate);
    const long = 'Boil the eggs for ten minutes, then cool them in cold water for a while. '.repeat(8);
    const sections = [section(1, long), section(2, long), section(3, long), section(4, long)];
    const out = await generateWithShrink(make(), 'How long do I boil eggs?', sections, { sectionChars: 600 });
    expect(out.shrunk).toBe(true);
    expect(out.result.text).toBe('Boil for ten minutes [1].');
    expect(requests).toHaveLength(2);
    const first = requests[0]!.body.messages[1]!.content;
    const second = requests[1]!.body.messages[1]!.content;
    expect(second.length).toBeLessThan(first.length);
    expect(second.length).toBeLessThanOrEqual(limit);
    expect(out.prompt.sections).toHaveLength(2);
    expect(out.prompt.sections.every((s) => [...s.text].length <= 200)).toBe(true);
    expect(second).not.toContain('[3]');
  });

  it('generateWithShrink does not retry other errors, nor a second context-window error', async () => {
    handlers.push(error(401, 'bad key'));
    await expect(generateWithShrink(make(), 'q', SECTIONS)).rejects.toSatisfy(
      (e) => isQuiverError(e, 'REMOTE') && (e as QuiverError).details['status'] === 401,
    );
    expect(requests).toHaveLength(1);
    requests.length = 0;
    const ctx = error(400, 'maximum context length exceeded');
    handlers.push(ctx, ctx);
    await expect(generateWithShrink(make(), 'q', SECTIONS)).rejects.toSatisfy(
      (e) => isQuiverError(e, 'REMOTE') && (e as QuiverError).details['contextWindow'] === true,
    );
    expect(requests).toHaveLength(2);
  });

  it('sends the API key from the named environment variable as a bearer token', async () => {
    handlers.push(ok('a'), ok('b'), ok('c'));
    await make({ apiKeyEnv: 'QUIVER_LLM_KEY', env: { QUIVER_LLM_KEY: 'sk-from-env' } }).generate(PROMPT);
    expect(requests[0]!.headers.authorization).toBe('Bearer sk-from-env');
    process.env['QUIVER_TEST_OPENAI_KEY'] = 'sk-process-env';
    try {
      await createOpenAIGenerator({
        baseURL,
        model: 'm',
        apiKeyEnv: 'QUIVER_TEST_OPENAI_KEY',
        maxRetries: 0,
      }).generate(PROMPT);
    } finally {
      delete process.env['QUIVER_TEST_OPENAI_KEY'];
    }
    expect(requests[1]!.headers.authorization).toBe('Bearer sk-process-env');
    await make({ apiKeyEnv: 'UNSET_KEY_VAR', env: {} }).generate(PROMPT);
    expect(requests[2]!.headers.authorization).toBe('Bearer no-key');
  });

  it('rejects bad options', () => {
    expect(() => createOpenAIGenerator({ baseURL: '', model: 'm' })).toThrowError(/baseURL/);
    expect(() => createOpenAIGenerator({ baseURL, model: ' ' })).toThrowError(/model/);
    expect(() => createOpenAIGenerator({ baseURL, model: 'm', maxRetries: -1 })).toThrowError(/maxRetries/);
    expect(() => createOpenAIGenerator({ baseURL, model: 'm', timeoutMs: 0 })).toThrowError(/timeoutMs/);
    expect(() => createOpenAIGenerator({ baseURL, model: 'm', temperature: -1 })).toThrowError(/temperature/);
  });
});

describe('context-window detection', () => {
  it.each([
    "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
    'the request exceeds the available context size, try increasing it',
    'Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. Too many tokens.',
    'prompt is too long: 210000 tokens > 200000 maximum',
    'context_length_exceeded',
  ])('recognises %s', (m) => {
    expect(isContextWindowMessage(m)).toBe(true);
  });
  it.each(['Invalid API key', 'model not found', 'temperature must be between 0 and 2'])(
    'ignores %s',
    (m) => {
      expect(isContextWindowMessage(m)).toBe(false);
    },
  );
  it('toQuiverError keeps QuiverErrors and wraps unknown errors as REMOTE', () => {
    const q = new QuiverError('BUDGET', 'x');
    expect(toQuiverError(q, 'here')).toBe(q);
    expect(toQuiverError(new Error('boom'), 'here').code).toBe('REMOTE');
  });
});
