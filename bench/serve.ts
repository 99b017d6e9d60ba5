// The HTTP server under load (issue 17): `quiver serve`'s app on the SciFact vault, driven by a
// bounded keep-alive client of this file (node:http, one socket per client) with the SciFact claims
// as queries: in-process `vault.search` beside HTTP search at 1, 8 and 32 clients and HTTP ask at 1
// and 8; search at 8 clients while a 5,000-note `quiver add` runs in another process on the same
// file; requests/s with the server pinned to 1 and to 2 cores (`taskset`); the server's memory after
// warm-up and after many requests. All in one run: `npm run bench -- serve`.
//
// The server runs in a child process (this file with `--serve-child`), as `quiver serve` would: the
// load generator is this process, so both share the machine's cores.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Vault } from '../src/index.js';
import { startServer } from '../src/server/serve.js';
import { createToken } from '../src/server/tokens.js';
import { dataPath, machine, mdTable, median, percentile, quiver, writeSection } from './lib.js';

const CHILD_FLAG = '--serve-child';
/** Requests after warm-up before the second memory reading ("an hour" at about 14 requests/s). */
const SOAK = Number(process.env.SERVE_SOAK_REQUESTS ?? 50_000) || 50_000;
const NOTES = 5_000;
const MiB = 2 ** 20;

// ---------------------------------------------------------------------------------------------
// The server child: a writer and a read-only vault on one file, as `quiver serve` opens them.

type ToChild = { type: 'memory' } | { type: 'stop' };
type FromChild =
  | { type: 'ready'; url: string; token: string }
  | { type: 'memory'; rss: number; heapUsed: number; external: number }
  | { type: 'failure'; line: string };

async function child(vault: string): Promise<void> {
  const send = (m: FromChild): void => void process.send?.(m);
  const logger = { warn: (m: string) => process.stderr.write(`serve child: ${m}\n`) };
  const writer = await Vault.open({
    overrides: { vault, 'server.ratePerSecond': 1e9, 'server.burst': 1e9 },
    logger,
  });
  const reader = await Vault.open({ overrides: { vault }, readonly: true, logger });
  // Only failures are forwarded (the CLI logs every request line unless --quiet).
  const served = await startServer({ reader, writer }, { host: '127.0.0.1', port: 0 }, (line) => {
    if (line.includes(' failed: ')) send({ type: 'failure', line });
  });
  const token = served.firstToken ?? (await createToken(writer.store, 'read', 'bench serve')).token;
  process.on('message', (m: ToChild) => {
    if (m.type === 'memory') {
      (globalThis as { gc?: () => void }).gc?.();
      const u = process.memoryUsage();
      send({ type: 'memory', rss: u.rss, heapUsed: u.heapUsed, external: u.external });
    } else if (m.type === 'stop')
      void (async () => {
        await served.close();
        await reader.close();
        await writer.close();
        process.exit(0);
      })();
  });
  send({ type: 'ready', url: served.url, token });
}

interface Server {
  url: URL;
  token: string;
  proc: ChildProcess;
  failures: string[];
  memory(): Promise<{ rss: number; heapUsed: number; external: number }>;
  stop(): Promise<void>;
}

/** Start the server child on `vault`, pinned to `cores` with taskset when given. */
async function startChild(vault: string, cores?: string): Promise<Server> {
  const node = [process.execPath, '--expose-gc', '--import', 'tsx', 'bench/serve.ts', CHILD_FLAG, vault];
  const [cmd, ...args] = cores === undefined ? node : ['taskset', '-c', cores, ...node];
  const proc = spawn(cmd!, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const failures: string[] = [];
  const waiting: { resolve: (m: FromChild) => void; reject: (e: Error) => void }[] = [];
  proc.on('message', (m: FromChild) => {
    if (m.type === 'failure') failures.push(m.line);
    else waiting.shift()?.resolve(m);
  });
  proc.on('exit', (code) => {
    for (const w of waiting.splice(0)) w.reject(new Error(`serve child exited (${code})`));
  });
  const next = (): Promise<FromChild> => new Promise((resolve, reject) => waiting.push({ resolve, reject }));
  const ready = await next();
  if (ready.type !== 'ready') throw new Error('serve child: no ready message');
  return {
    url: new URL(ready.url),
    token: ready.token,
    proc,
    failures,
    memory: async () => {
      const p = next();
      proc.send({ type: 'memory' } satisfies ToChild);
      const m = await p;
      if (m.type !== 'memory') throw new Error('serve child: no memory reply');
      return m;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        proc.once('exit', () => resolve());
        proc.send({ type: 'stop' } satisfies ToChild);
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// The load generator: `clients` workers, each one request at a time on its own keep-alive socket.

/** Where the next run starts in the query list (runs go on from where the last one stopped). */
let cursor = 0;

interface Load {
  clients: number;
  latencies: number[];
  seconds: number;
  errors: number;
  non2xx: number;
}

function post(agent: Agent, s: Server, path: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        host: s.url.hostname,
        port: s.url.port,
        path,
        method: 'POST',
        headers: {
          authorization: `Bearer ${s.token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        res.on('data', () => {});
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Send `bodies` (cycled, from where the last run left off) to `path` from `clients` concurrent
 * clients until `requests` have been sent or `until()` turns true (checked before each request).
 */
async function drive(
  s: Server,
  path: string,
  bodies: readonly string[],
  clients: number,
  stop: { requests?: number; until?: () => boolean },
  onDone?: (n: number) => void,
): Promise<Load> {
  const agent = new Agent({ keepAlive: true, maxSockets: clients });
  const latencies: number[] = [];
  let sent = 0;
  let errors = 0;
  let non2xx = 0;
  const more = (): boolean =>
    (stop.requests === undefined || sent < stop.requests) && !(stop.until?.() ?? false);
  const start = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (more()) {
        const body = bodies[cursor++ % bodies.length]!;
        sent++;
        const t = performance.now();
        try {
          const status = await post(agent, s, path, body);
          latencies.push(performance.now() - t);
          if (status < 200 || status > 299) non2xx++;
        } catch {
          errors++;
        }
        onDone?.(sent);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  agent.destroy();
  return { clients, latencies, seconds, errors, non2xx };
}

/** One response, parsed: a check that the route answers what the bench thinks it measures. */
async function probe(s: Server, path: string, body: string): Promise<Record<string, unknown>> {
  const res = await fetch(new URL(path, s.url), {
    method: 'POST',
    headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
    body,
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status !== 200) throw new Error(`serve: ${path} answered ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

// ---------------------------------------------------------------------------------------------

/** `count` small Markdown notes, each five SciFact sentences drawn at random (seeded) from any abstract. */
function writeSciFactNotes(corpus: string, dir: string, count: number): void {
  mkdirSync(dir, { recursive: true });
  const sentences: string[] = [];
  for (const line of readFileSync(corpus, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const d = JSON.parse(line) as { text: string };
    for (const s of d.text.split(/(?<=[.!?])\s+/)) if (s.length >= 40 && s.length <= 400) sentences.push(s);
  }
  let x = 7;
  const pick = (): string => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return sentences[x % sentences.length]!;
  };
  for (let i = 0; i < count; i++) {
    const body = Array.from({ length: 5 }, pick);
    writeFileSync(
      join(dir, `note-${String(i).padStart(5, '0')}.md`),
      `# Note ${i}\n\n${body.slice(0, 3).join(' ')}\n\n## More\n\n${body.slice(3).join(' ')}\n`,
    );
  }
}

const ms = (x: number): string => x.toFixed(2);
const mib = (b: number): string => (b / MiB).toFixed(1);

function row(label: string, l: Load): (string | number)[] {
  return [
    label,
    l.clients,
    l.latencies.length + l.errors,
    ms(median(l.latencies)),
    ms(percentile(l.latencies, 99)),
    (l.latencies.length / l.seconds).toFixed(0),
    `${l.errors} / ${l.non2xx}`,
  ];
}
const LOAD_HEADERS = ['route', 'clients', 'requests', 'p50 ms', 'p99 ms', 'requests/s', 'errors / non-2xx'];

export async function benchServe(): Promise<void> {
  const corpus = dataPath('scifact', 'corpus.jsonl');
  const queryFile = dataPath('scifact', 'queries.jsonl');
  if (corpus === null || queryFile === null) {
    writeSection('serve', '## HTTP server load\n\nSkipped: no SciFact under the data folder.\n');
    return;
  }
  const queries = readFileSync(queryFile, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => (JSON.parse(l) as { text: string }).text);
  const searchBodies = queries.map((query) => JSON.stringify({ query, limit: 10 }));
  const askBodies = queries.map((question) => JSON.stringify({ question }));
  const log = (m: string): void => void process.stderr.write(`serve: ${m}\n`);
  const started = performance.now();

  const dir = mkdtempSync(join(tmpdir(), 'quiver-bench-serve-'));
  const vault = join(dir, 'scifact.db');
  const children: Server[] = [];
  try {
    let t = performance.now();
    quiver(['add', corpus, '--vault', vault, '--quiet']);
    const buildSeconds = (performance.now() - t) / 1000;
    log(`built the SciFact vault in ${buildSeconds.toFixed(1)} s`);

    // 1. In-process, warm: one untimed pass over the claims, then two timed passes.
    const local = await Vault.open({ overrides: { vault }, readonly: true });
    for (const q of queries) await local.search(q, { limit: 10 });
    const inProcess: number[] = [];
    for (let pass = 0; pass < 2; pass++)
      for (const q of queries) {
        t = performance.now();
        await local.search(q, { limit: 10 });
        inProcess.push(performance.now() - t);
      }
    await local.close();
    log(`in-process p50 ${ms(median(inProcess))} ms`);

    // 2. HTTP: a warm-up pass, the memory baseline, then each load level.
    const server = await startChild(vault);
    children.push(server);
    const probed = await probe(server, '/v1/search', searchBodies[0]!);
    if (!Array.isArray(probed.results) || probed.results.length === 0)
      throw new Error('serve: /v1/search returned no results for the first claim');
    const asked = await probe(server, '/v1/ask', askBodies[0]!);
    if (!('answer' in asked)) throw new Error('serve: /v1/ask replied without an answer');
    await drive(server, '/v1/search', searchBodies, 8, { requests: queries.length });
    await drive(server, '/v1/ask', askBodies, 8, { requests: 200 });
    const memory: { label: string; requests: number; m: Awaited<ReturnType<Server['memory']>> }[] = [
      { label: 'after warm-up', requests: 0, m: await server.memory() },
    ];
    let sinceWarmup = 0;
    const loads: { route: string; l: Load }[] = [];
    cursor = 0;
    for (const [route, path, bodies, clients, requests] of [
      ['search', '/v1/search', searchBodies, 1, 2 * queries.length],
      ['search', '/v1/search', searchBodies, 8, 4 * queries.length],
      ['search', '/v1/search', searchBodies, 32, 4 * queries.length],
      ['ask', '/v1/ask', askBodies, 1, queries.length],
      ['ask', '/v1/ask', askBodies, 8, 2 * queries.length],
    ] as const) {
      const l = await drive(server, path, bodies, clients, { requests });
      sinceWarmup += l.latencies.length + l.errors;
      loads.push({ route, l });
      log(
        `${route} × ${clients}: p50 ${ms(median(l.latencies))} ms, p99 ${ms(percentile(l.latencies, 99))} ms, ${(l.latencies.length / l.seconds).toFixed(0)}/s`,
      );
    }
    memory.push({ label: 'after the load levels', requests: sinceWarmup, m: await server.memory() });

    // 5. Soak: search at 32 clients up to SOAK requests since warm-up, memory every 10,000.
    const soakStart = performance.now();
    let soakErrors = 0;
    let soakNon2xx = 0;
    while (sinceWarmup < SOAK) {
      const n = Math.min(10_000 - (sinceWarmup % 10_000), SOAK - sinceWarmup);
      const l = await drive(server, '/v1/search', searchBodies, 32, { requests: n });
      sinceWarmup += l.latencies.length + l.errors;
      soakErrors += l.errors;
      soakNon2xx += l.non2xx;
      memory.push({ label: 'soak', requests: sinceWarmup, m: await server.memory() });
    }
    const soakSeconds = (performance.now() - soakStart) / 1000;
    log(`soak to ${sinceWarmup} requests in ${soakSeconds.toFixed(0)} s`);

    // 3. Search at 8 clients, idle, then while another process adds 5,000 notes to the same file.
    const notes = join(dir, 'notes');
    writeSciFactNotes(corpus, notes, NOTES);
    const idleUntil = performance.now() + 8_000;
    const idle = await drive(server, '/v1/search', searchBodies, 8, {
      until: () => performance.now() > idleUntil,
    });
    t = performance.now();
    const add = spawn(
      process.execPath,
      ['bin/quiver.js', 'add', notes, '--vault', vault, '--quiet', '--wait', '60'],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...process.env, QUIVER_PROGRESS: 'false' },
      },
    );
    let addErr = '';
    add.stderr.on('data', (d: Buffer) => (addErr += d.toString()));
    let addCode: number | null = null;
    let addDone = false;
    const addExit = new Promise<void>((resolve) =>
      add.on('exit', (code) => {
        addCode = code;
        addDone = true;
        resolve();
      }),
    );
    const busy = await drive(server, '/v1/search', searchBodies, 8, { until: () => addDone });
    await addExit;
    const addSeconds = (performance.now() - t) / 1000;
    if (addCode !== 0 && addCode !== 4)
      throw new Error(`serve: the concurrent add failed (${addCode}): ${addErr}`);
    log(
      `add of ${NOTES} notes took ${addSeconds.toFixed(1)} s; search p99 ${ms(percentile(busy.latencies, 99))} ms`,
    );
    const ready = await fetch(new URL('/readyz', server.url), {
      headers: { authorization: `Bearer ${server.token}` },
    });
    const documentsAfter = ((await ready.json()) as { documents?: number }).documents ?? NaN;
    const failures = [...server.failures];
    await server.stop();
    children.pop();

    // 4. Requests/s at 32 clients with the server pinned to 1 core, then to 2.
    const pinned: { cores: string; l: Load | null }[] = [];
    const hasTaskset = spawnSync('taskset', ['-c', '0', 'true']).status === 0;
    for (const cores of ['0', '0,1']) {
      if (!hasTaskset || cpus().length < 2) {
        pinned.push({ cores, l: null });
        continue;
      }
      const s = await startChild(vault, cores);
      children.push(s);
      await drive(s, '/v1/search', searchBodies, 32, { requests: queries.length });
      const until = performance.now() + 8_000;
      const l = await drive(s, '/v1/search', searchBodies, 32, { until: () => performance.now() > until });
      pinned.push({ cores, l });
      log(`taskset -c ${cores}: ${(l.latencies.length / l.seconds).toFixed(0)}/s`);
      failures.push(...s.failures);
      await s.stop();
      children.pop();
    }

    // ------------------------------------------------------------------------------------------
    const p50 = median(inProcess);
    const http1 = loads.find((x) => x.route === 'search' && x.l.clients === 1)!.l;
    const gap = median(http1.latencies) - p50;
    const base = memory[0]!.m;
    const last = memory[memory.length - 1]!.m;
    const idleP99 = percentile(idle.latencies, 99);
    const busyP99 = percentile(busy.latencies, 99);
    const rate = (l: Load | null): number | null => (l === null ? null : l.latencies.length / l.seconds);
    const r1 = rate(pinned[0]!.l);
    const r2 = rate(pinned[1]!.l);
    const total = (performance.now() - started) / 1000;

    const md = `## HTTP server load (\`npm run bench -- serve\`)

Machine: ${machine()}. \`startServer\` (\`src/server/serve.ts\`) in a child process, over a writer and a
read-only vault on the SciFact corpus (${queries.length} claims as queries, 5183 abstracts, built by
\`quiver add\` in ${buildSeconds.toFixed(1)} s), rate limits set out of reach. The load comes from this
process: N clients, each one request at a time on its own keep-alive connection (\`node:http\`),
the claims cycled in file order; latency is request sent to last body byte. POST /v1/search
\`{query, limit: 10}\`, POST /v1/ask \`{question}\` (extractive answers). Both processes share the
machine's ${cpus().length} cores, and Node serves requests on one thread. Whole bench: ${total.toFixed(0)} s.

### Latency and throughput

In-process: \`vault.search(q, {limit: 10})\` on a read-only vault in the bench process, after one
untimed pass, ${inProcess.length} searches (each claim twice).

${mdTable(LOAD_HEADERS, [
  [
    'in-process vault.search',
    1,
    inProcess.length,
    ms(p50),
    ms(percentile(inProcess, 99)),
    (inProcess.length / (inProcess.reduce((a, b) => a + b, 0) / 1000)).toFixed(0),
    '',
  ],
  ...loads.map((x) => row(`HTTP ${x.route}`, x.l)),
])}

HTTP − in-process p50 at 1 client: **${ms(gap)} ms** (goal ≤ 1 ms).

### Search while another process ingests

8 clients for 8 s on the idle server, then 8 clients for as long as \`quiver add\` of ${NOTES} Markdown
notes (five SciFact sentences each, drawn at random) runs in another process on the same vault
file (${addSeconds.toFixed(1)} s; afterwards the server's read-only vault counts ${documentsAfter}
documents).

${mdTable(LOAD_HEADERS, [row('search, idle', idle), row('search, during the add', busy)])}

p99 during the add / idle p99: **${(busyP99 / idleP99).toFixed(2)}×** (goal ≤ 2×); max during the add
${ms(Math.max(...busy.latencies))} ms.

### Cores

The server child started under \`taskset -c\`, search at 32 clients for 8 s after a warm-up pass;
the load generator is not pinned.

${
  r1 === null || r2 === null
    ? `Not measured: ${hasTaskset ? 'this machine has one core' : 'taskset is not installed'}.`
    : `${mdTable(
        LOAD_HEADERS,
        pinned.map((p) => row(`search, taskset -c ${p.cores}`, p.l!)),
      )}

2 cores / 1 core: **${(r2 / r1).toFixed(2)}×** requests/s.`
}

### Memory

The server's RSS and V8 heap after a forced GC (\`--expose-gc\`), after warm-up (${queries.length}
searches and 200 asks), after the load levels above, then every 10,000 searches at 32 clients up to
${sinceWarmup} requests since warm-up (${soakSeconds.toFixed(0)} s; ${soakErrors} errors, ${soakNon2xx} non-2xx); an hour of
a light client at 14 requests/s is 50,400.

${mdTable(
  ['point', 'requests since warm-up', 'RSS MiB', 'heap used MiB', 'external MiB'],
  memory.map((x) => [x.label, x.requests, mib(x.m.rss), mib(x.m.heapUsed), mib(x.m.external)]),
)}

Growth over ${sinceWarmup} requests: RSS ${mib(last.rss - base.rss)} MiB, heap used
${mib(last.heapUsed - base.heapUsed)} MiB.${failures.length === 0 ? '' : `\n\nServer failures logged (5xx): ${failures.length}; first: ${failures[0]}`}
`;
    writeSection('serve', md);
  } finally {
    for (const c of children) c.proc.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv.includes(CHILD_FLAG)) await child(process.argv[process.argv.indexOf(CHILD_FLAG) + 1]!);
else if (import.meta.url === `file://${process.argv[1]}`) await benchServe();
