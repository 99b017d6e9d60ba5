// MCP tool-call latency (issue 19): `search` and `ask` called through the SDK's own client over
// stdio (a real `quiver mcp` child) and over Streamable HTTP (a real `quiver serve` child, `/mcp`),
// beside the same calls in process (`vault.search`, `vault.ask`) and through MCP in process (the
// SDK's in-memory transport: protocol and schema checks without a transport), on the demo vault.
// One client, one call at a time, the demo queries in turn. `npm run bench -- mcp`.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client, InMemoryTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Vault } from '../src/index.js';
import { groundedAskJson } from '../src/wire/answers.js';
import { createMcpServer } from '../src/mcp/server.js';
import { mdTable, median, OUT_DIR, percentile, writeSection } from './lib.js';

/** Timed calls per row (after `WARMUP` untimed ones). */
const CALLS = Number(process.env.MCP_BENCH_CALLS ?? 300) || 300;
const WARMUP = 30;
/** The goal: search over MCP within this many ms of in-process search (median). */
const GOAL_MS = 2;

const lines = (file: string, key: string): string[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => String((JSON.parse(l) as Record<string, unknown>)[key]));

/** One way of calling: its search and its ask. */
interface Way {
  how: string;
  search: (query: string) => Promise<unknown>;
  ask: (question: string) => Promise<unknown>;
}

/**
 * Milliseconds of `CALLS` calls of each way (after `WARMUP` untimed ones), interleaved: call i of
 * every way runs before call i + 1 of any, so a busy machine slows them alike and the differences
 * to in process stay fair.
 */
async function time(
  ways: readonly Way[],
  kind: 'search' | 'ask',
  inputs: readonly string[],
): Promise<number[][]> {
  const ms = ways.map((): number[] => []);
  for (let i = 0; i < WARMUP + CALLS; i++)
    for (const [w, way] of ways.entries()) {
      const t = performance.now();
      await way[kind](inputs[i % inputs.length]!);
      if (i >= WARMUP) ms[w]!.push(performance.now() - t);
    }
  return ms;
}

/** A client's tool call that fails loudly on a tool error (a bench of errors measures nothing). */
function caller(client: Client): (name: string, args: Record<string, unknown>) => Promise<void> {
  return async (name, args) => {
    const r = await client.callTool({ name, arguments: args });
    if (r.isError === true) throw new Error(`mcp bench: ${name} failed: ${JSON.stringify(r.content)}`);
  };
}

/** `quiver serve` on `vault` in a child process: its URL and the admin token of its first start. */
async function serveChild(vault: string): Promise<{ url: string; token: string; stop: () => Promise<void> }> {
  const child = spawn(
    process.execPath,
    ['bin/quiver.js', 'serve', '--vault', vault, '--port', '0', '--json', '--quiet'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, QUIVER_RATE_PER_SECOND: '1000000', QUIVER_BURST: '1000000' },
    },
  );
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`mcp bench: quiver serve exited (${code})`)));
  });
  const { url, token } = JSON.parse(first) as { url: string; token: string | null };
  if (token === null) throw new Error('mcp bench: the fresh vault gave no admin token');
  return {
    url,
    token,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export async function benchMcp(): Promise<void> {
  const dir = join(OUT_DIR, 'mcp');
  mkdirSync(dir, { recursive: true });
  const vault = join(dir, 'demo.db');
  for (const s of ['', '-wal', '-shm']) rmSync(vault + s, { force: true });
  const setup = spawnSync(
    process.execPath,
    ['bin/quiver.js', 'add', 'demo/corpus', '--vault', vault, '--quiet'],
    {
      stdio: 'inherit',
    },
  );
  if (setup.status !== 0) throw new Error('mcp bench: demo ingest failed');
  const load = loadavg()[0] ?? 0;
  const queries = lines('demo/queries.jsonl', 'text');
  const questions = lines('demo/questions.jsonl', 'question');

  const reader = await Vault.open({ overrides: { vault }, readonly: true });
  const ways: Way[] = [
    {
      how: 'in process (`vault.search`; `vault.ask` + its grounding JSON)',
      search: (q) => reader.search(q),
      ask: async (q) => groundedAskJson(await reader.ask(q)),
    },
  ];
  const clients: Client[] = [];
  const via = (how: string, client: Client): void => {
    const call = caller(client);
    clients.push(client);
    ways.push({ how, search: (q) => call('search', { query: q }), ask: (q) => call('ask', { question: q }) });
  };

  const [a, b] = InMemoryTransport.createLinkedPair();
  await createMcpServer({ reader, writer: reader, role: 'read' }).connect(a);
  const memory = new Client({ name: 'quiver-bench', version: '1.0.0' });
  await memory.connect(b);
  via('MCP in process (in-memory transport)', memory);

  const stdio = new Client({ name: 'quiver-bench', version: '1.0.0' });
  await stdio.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['bin/quiver.js', 'mcp', '--vault', vault, '--role', 'read', '--quiet'],
      env: getDefaultEnvironment(),
      stderr: 'inherit',
    }),
  );
  via('MCP over stdio (`quiver mcp`)', stdio);

  const served = await serveChild(vault);
  const http = new Client({ name: 'quiver-bench', version: '1.0.0' });
  await http.connect(
    new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${served.token}` } },
    }),
  );
  via('MCP over Streamable HTTP (`quiver serve`, /mcp)', http);
  // The same server's JSON API, for what HTTP alone costs.
  const post = async (route: string, body: object): Promise<unknown> => {
    const res = await fetch(`${served.url}${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${served.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`mcp bench: ${route} answered ${res.status}`);
    return res.json();
  };
  ways.push({
    how: 'HTTP API, no MCP (`POST /v1/search`, `/v1/ask`)',
    search: (q) => post('/v1/search', { query: q }),
    ask: (q) => post('/v1/ask', { question: q }),
  });

  const search = await time(ways, 'search', queries);
  const ask = await time(ways, 'ask', questions);
  const rows = ways.map((w, i) => ({ how: w.how, search: search[i]!, ask: ask[i]! }));
  for (const c of clients) await c.close();
  await served.stop();
  await reader.close();

  const base = rows[0]!;
  const f = (ms: number): string => ms.toFixed(2);
  const diff = (ms: number): string => `${ms < 0 ? '−' : '+'}${f(Math.abs(ms))}`;
  const table = mdTable(
    [
      'calls',
      'search median ms',
      'search p95 ms',
      'search − in process',
      'ask median ms',
      'ask p95 ms',
      'ask − in process',
    ],
    rows.map((r) => [
      r.how,
      f(median(r.search)),
      f(percentile(r.search, 95)),
      r === base ? '' : diff(median(r.search) - median(base.search)),
      f(median(r.ask)),
      f(percentile(r.ask, 95)),
      r === base ? '' : diff(median(r.ask) - median(base.ask)),
    ]),
  );
  const over = (r: (typeof rows)[number]): number => median(r.search) - median(base.search);
  const stdioRow = rows.find((r) => r.how.includes('stdio'))!;
  const httpRow = rows.find((r) => r.how.includes('HTTP'))!;
  const verdict = (r: (typeof rows)[number]): string =>
    `${over(r) <= GOAL_MS ? 'met' : 'missed'} (${diff(over(r))} ms)`;
  writeSection(
    'mcp',
    `## MCP tool calls (\`npm run bench -- mcp\`)

Latency of one tool call from the SDK's own client (\`@modelcontextprotocol/client\`), one call at a
time, ${CALLS} timed calls per cell after ${WARMUP} untimed ones (the rows interleaved, call by call,
so a busy machine slows them alike), the ${queries.length} demo queries
(\`search\`, default options) and ${questions.length} demo questions (\`ask\`, extractive, with its
grounding measurements) in turn, on the demo vault. In process is the library call alone (for ask
with the grounding JSON every face sends); the MCP
rows add the tool's wire JSON, its text and links, the SDK's input and output schema checks, and the
transport (a \`quiver mcp\` child over pipes; a \`quiver serve\` child over HTTP on 127.0.0.1, a
fresh MCP server per request behind the token check). The client runs in this process; the last row
is the same server's JSON API without MCP, for what HTTP alone costs. Load average when the bench
started: ${load.toFixed(1)} (on ${cpus().length} cores; a busy machine widens every gap that crosses a process).

${table}

Goal: search within ${GOAL_MS} ms of in process at the median. Over stdio: ${verdict(stdioRow)}. Over HTTP: ${verdict(httpRow)}.
`,
  );
}
