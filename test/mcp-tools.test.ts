// `quiver mcp` end to end with the SDK's own client, over both transports: stdio against a real
// `quiver mcp` child process, and Streamable HTTP against a real server on 127.0.0.1 (`/mcp` of
// `quiver serve`'s app), on the demo vault. Every tool is called; every structured result is
// checked against the output schema the server advertises; every resource link is followed.
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport, type Tool } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Vault } from '../src/index.js';
import { sectionUri } from '../src/mcp/links.js';
import { createApp } from '../src/server/app.js';
import { startServer, type Served } from '../src/server/serve.js';
import { createToken } from '../src/server/tokens.js';
import { tempDir } from './helpers.js';

const tmp = tempDir('quiver-mcp-');
const path = join(tmp.dir, 'demo.db');
const BIN = join(process.cwd(), 'bin/quiver.js');
let writer: Vault;
let reader: Vault;
let served: Served;
const token: Record<'read' | 'write' | 'admin', string> = { read: '', write: '', admin: '' };

beforeAll(async () => {
  // Limits high enough for the suites' bursts of calls; the rate-limit test builds its own app.
  writer = await Vault.open({
    overrides: { vault: path, 'server.ratePerSecond': 100_000, 'server.burst': 100_000 },
    env: {},
  });
  await writer.add(['demo/corpus']);
  reader = await Vault.open({ overrides: { vault: path }, readonly: true, env: {} });
  served = await startServer({ reader, writer }, { host: '127.0.0.1', port: 0 });
  token.admin = served.firstToken!;
  token.read = (await createToken(writer.store, 'read')).token;
  token.write = (await createToken(writer.store, 'write')).token;
}, 120_000);

afterAll(async () => {
  await served?.close();
  await reader?.close();
  await writer?.close();
  tmp.cleanup();
});

type Role = 'read' | 'write' | 'admin';

/** A connected client: over stdio (a `quiver mcp` child with `--role`) or over HTTP with a token of the role. */
async function connect(
  transport: 'stdio' | 'http',
  role: Role,
  era: 'legacy' | 'auto' = 'legacy',
): Promise<Client> {
  const client = new Client({ name: 'quiver-test', version: '1.0.0' }, { versionNegotiation: { mode: era } });
  if (transport === 'stdio')
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'mcp', '--vault', path, '--role', role, '--quiet'],
        env: getDefaultEnvironment(),
        stderr: 'ignore',
      }),
    );
  else
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token[role]}` } },
      }),
    );
  return client;
}

type Content = { type: string; text?: string; uri?: string };
type Result = { content?: Content[]; structuredContent?: Record<string, unknown>; isError?: boolean };

const ajv = new AjvJsonSchemaValidator();
const READ_TOOLS = ['ask', 'context', 'noise_suggest', 'read', 'search'];
const ALL_TOOLS = [...READ_TOOLS, 'add', 'noise_mark', 'rate', 'undo'].sort();
const norm = (s: string): string => s.replace(/\s+/g, ' ').trim();

describe.each(['stdio', 'http'] as const)('quiver MCP over %s', (transport) => {
  let client: Client;
  let tools: Map<string, Tool>;
  /** Every resource link any call returned, followed at the end. */
  const links = new Set<string>();

  /**
   * Call a tool; a success's structured content must match the advertised output schema. Its
   * links are kept to follow at the end (`follow: false` for a document about to be undone).
   */
  async function call(name: string, args: Record<string, unknown>, follow = true): Promise<Result> {
    const r = (await client.callTool({ name, arguments: args })) as Result;
    if (r.isError === true) return r;
    const schema = tools.get(name)?.outputSchema;
    expect(schema, name).toBeDefined();
    const check = ajv.getValidator(schema as Record<string, unknown>)(r.structuredContent);
    expect(check.errorMessage ?? '', `${name}: structuredContent vs outputSchema`).toBe('');
    expect(check.valid).toBe(true);
    if (follow) for (const c of r.content ?? []) if (c.type === 'resource_link') links.add(c.uri!);
    return r;
  }

  beforeAll(async () => {
    client = await connect(transport, 'admin');
    tools = new Map((await client.listTools()).tools.map((t) => [t.name, t]));
  }, 60_000);
  afterAll(async () => client?.close());

  it('lists every tool with a description for a model, schemas and hints', () => {
    expect([...tools.keys()].sort()).toEqual(ALL_TOOLS);
    for (const t of tools.values()) {
      expect(t.description?.length ?? 0, t.name).toBeGreaterThan(80);
      expect(t.inputSchema.type).toBe('object');
      expect(t.outputSchema?.type, t.name).toBe('object');
      expect(typeof t.annotations?.readOnlyHint, t.name).toBe('boolean');
      expect(t.annotations?.readOnlyHint, t.name).toBe(READ_TOOLS.includes(t.name));
    }
    expect(tools.get('undo')?.annotations?.destructiveHint).toBe(true);
    expect(tools.get('search')?.annotations?.idempotentHint).toBe(true);
  });

  it('lists the section and document resources and the two prompts', async () => {
    const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    expect(templates.sort()).toEqual(['quiver://document/{id}', 'quiver://section/{id}']);
    const docs = (await client.listResources()).resources;
    expect(docs.length).toBeGreaterThanOrEqual(25);
    for (const d of docs.slice(0, 3)) links.add(d.uri);
    const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
    expect(prompts.sort()).toEqual(['answer_with_citations', 'review_suspected_junk']);
  });

  it('search, then read the top hit, then ask: the ids chain together', async () => {
    const q = 'how long should an espresso shot take';
    const s = await call('search', { query: q, limit: 5 });
    const hits = s.structuredContent!.results as { section_id: string; doc_id: string; breadcrumb: string }[];
    expect(hits.length).toBe(5);
    const top = hits[0]!;
    // The hit's link is the section's resource address.
    expect((s.content ?? []).filter((c) => c.type === 'resource_link').map((c) => c.uri)).toContain(
      sectionUri(top.section_id),
    );
    const read = await call('read', { id: top.section_id });
    const section = read.structuredContent!.section as { id: string; doc_id: string; breadcrumb: string };
    expect([section.id, section.doc_id, section.breadcrumb]).toEqual([
      top.section_id,
      top.doc_id,
      top.breadcrumb,
    ]);
    const doc = await call('read', { id: top.doc_id });
    const outline = doc.structuredContent!.outline as { sections: { id: string }[] };
    expect(outline.sections.map((x) => x.id)).toContain(top.section_id);
    const a = await call('ask', { question: q });
    const answer = a.structuredContent!;
    const cited = answer.cited as { n: number; section_id: string }[];
    const context = answer.context as { n: number; section_id: string }[];
    expect(cited.length).toBeGreaterThan(0);
    // Every cited number is a context section, and the answer draws on the document search found.
    for (const c of cited) expect(context.find((x) => x.n === c.n)?.section_id).toBe(c.section_id);
    expect(cited.some((c) => c.section_id.startsWith(`${top.doc_id}#`))).toBe(true);
  });

  it('ask: each valid citation points at a section whose text holds the cited sentence', async () => {
    const a = await call('ask', { question: 'What temperature kills a sourdough starter?' });
    const grounding = a.structuredContent!.grounding as {
      claims: { text: string; citations: { n: number; section_id: string | null; valid: boolean }[] }[];
    };
    expect(a.structuredContent!.invalid_citations).toEqual([]);
    let checked = 0;
    for (const claim of grounding.claims)
      for (const c of claim.citations.filter((x) => x.valid)) {
        const res = await client.readResource({ uri: sectionUri(c.section_id!) });
        const text = norm(String((res.contents[0] as { text: string }).text));
        // The extractive answerer may lead a quoted list item with its section's title ("Title: - item").
        const title = /^# (.*)$/m
          .exec(String((res.contents[0] as { text: string }).text))?.[1]
          ?.split(' › ')
          .pop();
        const sentence = norm(claim.text.replace(title === undefined ? /^$/ : `${title}: `, ''));
        expect(text, `claim "${claim.text}" cites ${c.section_id}`).toContain(sentence);
        checked += 1;
      }
    expect(checked).toBeGreaterThan(0);
  });

  it('context numbers its sections and links each one', async () => {
    const r = await call('context', { query: 'greenhouse gases', limit: 3 });
    const sections = r.structuredContent!.sections as { n: number; section_id: string }[];
    expect(sections.map((x) => x.n)).toEqual([1, 2, 3]);
    expect(r.content![0]!.text).toContain('[1] ');
    expect(r.content!.filter((c) => c.type === 'resource_link')).toHaveLength(3);
  });

  it('noise_suggest, noise_mark, rate, add and undo change the vault as the CLI would', async () => {
    const suggest = await call('noise_suggest', { k: 3, minScore: -10 });
    const suspects = suggest.structuredContent!.suggestions as { doc_id: string }[];
    expect(suspects).toHaveLength(3);
    const mark = await call('noise_mark', {
      document: suspects[0]!.doc_id,
      noisy: false,
      reason: `kept (${transport})`,
    });
    expect(mark.structuredContent).toMatchObject({ doc_id: suspects[0]!.doc_id, noisy: false });
    const hit = (await call('search', { query: 'sourdough starter', limit: 1 })).structuredContent!
      .results as {
      section_id: string;
    }[];
    const rate = await call('rate', {
      question: 'sourdough starter',
      sectionId: hit[0]!.section_id,
      signal: 'up',
    });
    expect(rate.structuredContent).toMatchObject({ section_id: hit[0]!.section_id, signal: 'up' });
    const text = `# Kettle care (${transport})\n\nDescale the kettle every month with citric acid.`;
    const add = await call('add', { text, source: `note:kettle-${transport}` });
    const job = add.structuredContent!.job as { state: string; result: { added: number; batch: string } };
    expect(job.state).toBe('done');
    expect(job.result.added).toBe(1);
    const found = await call('search', { query: 'descale kettle citric acid', limit: 1 }, false);
    expect((found.structuredContent!.results as { source: string }[])[0]?.source).toBe(
      `note:kettle-${transport}`,
    );
    const undo = await call('undo', { batch: job.result.batch });
    expect(undo.structuredContent).toMatchObject({ batchId: job.result.batch, removed: 1 });
  });

  it('prompts come filled from the vault', async () => {
    const p = await client.getPrompt({
      name: 'answer_with_citations',
      arguments: { question: 'How do I true a bicycle wheel?' },
    });
    const text = (p.messages[0]!.content as { text: string }).text;
    expect(text).toContain('[1] ');
    expect(text).toContain('cite');
    const j = await client.getPrompt({ name: 'review_suspected_junk', arguments: { count: '3' } });
    expect((j.messages[0]!.content as { text: string }).text).toMatch(/noise_mark|nothing to review/);
  });

  it('errors carry the library code and a next step; bad arguments are refused by the schema', async () => {
    const missing = await call('read', { id: 'nope#1' });
    expect(missing.isError).toBe(true);
    const error = JSON.parse(missing.content![0]!.text!) as {
      error: { code: string; message: string; next: string };
    };
    expect(error.error.code).toBe('NOT_FOUND');
    expect(error.error.message).toContain('nope#1');
    expect(error.error.next.length).toBeGreaterThan(10);
    const bad = await client
      .callTool({ name: 'search', arguments: { query: 'x', limit: 1000 } })
      .catch((e: Error) => e);
    expect(bad instanceof Error || (bad as Result).isError === true).toBe(true);
    const unknown = await client
      .callTool({ name: 'search', arguments: { query: 'x', limti: 3 } })
      .catch((e: Error) => e);
    expect(unknown instanceof Error || (unknown as Result).isError === true).toBe(true);
  });

  it('every resource link resolves', async () => {
    expect(links.size).toBeGreaterThan(10);
    for (const uri of links) {
      const r = await client.readResource({ uri });
      expect(r.contents.length, uri).toBe(1);
      expect(String((r.contents[0] as { text?: string }).text ?? '').length, uri).toBeGreaterThan(10);
    }
  });

  it('a read session is not given the write tools, and cannot call them', async () => {
    const ro = await connect(transport, 'read');
    try {
      expect((await ro.listTools()).tools.map((t) => t.name).sort()).toEqual(READ_TOOLS);
      for (const name of ['add', 'rate', 'noise_mark', 'undo']) {
        const r = await ro.callTool({ name, arguments: { text: 'x' } }).catch((e: Error) => e);
        expect(r instanceof Error || (r as Result).isError === true, name).toBe(true);
      }
    } finally {
      await ro.close();
    }
  });
});

describe.each(['stdio', 'http'] as const)('quiver MCP over %s, protocol 2026-07-28', (transport) => {
  it('a client that negotiates the current revision gets the same tools, results and links', async () => {
    const client = await connect(transport, 'read', 'auto');
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(READ_TOOLS);
      const steps: number[] = [];
      const r = (await client.callTool(
        { name: 'ask', arguments: { question: 'How long should an espresso shot take?' } },
        { onprogress: (p) => steps.push(p.progress) },
      )) as Result;
      expect((r.structuredContent!.cited as unknown[]).length).toBeGreaterThan(0);
      expect(steps.at(-1)).toBe(4);
      const link = r.content!.find((c) => c.type === 'resource_link')!;
      const read = await client.readResource({ uri: link.uri! });
      expect(String((read.contents[0] as { text: string }).text)).toContain('espresso');
    } finally {
      await client.close();
    }
  });
});

describe('quiver MCP over HTTP: the server rules', () => {
  it('refuses a request without a valid token (401), as every API route does', async () => {
    const res = await fetch(`${served.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('UNAUTHORIZED');
  });

  it("counts MCP requests against the token's rate limit (429 with Retry-After)", async () => {
    const app = createApp({ reader, writer, limits: { ratePerSecond: 0.01, burst: 2 } });
    const list = (): Promise<Response> =>
      Promise.resolve(
        app.request('/mcp', {
          method: 'POST',
          headers: {
            authorization: `Bearer ${token.read}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        }),
      );
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await list()).status);
    expect(statuses.slice(0, 2)).not.toContain(429);
    const refused = await list();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('a write token adds but is not given undo', async () => {
    const client = await connect('http', 'write');
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain('add');
      expect(names).not.toContain('undo');
      const paths = (await client
        .callTool({
          name: 'add',
          arguments: { paths: ['/etc'] },
        })
        .catch((e: Error) => e)) as Result | Error;
      // Server paths are an admin's: not even in a write session's schema.
      expect(paths instanceof Error || paths.isError === true).toBe(true);
    } finally {
      await client.close();
    }
  });
});
