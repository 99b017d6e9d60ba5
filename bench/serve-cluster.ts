// Several servers (issue 20): 1, 2 and 3 `quiver serve` processes on one PostgreSQL database
// holding SciFact (or the demo corpus without it), 32 concurrent clients on loopback searching for
// a fixed time, spread evenly over the servers: requests/s, p50/p99 and errors (which must be 0).
// Each request also takes its token's rate-limit bucket in the database (one shared bucket row per
// token), so the runs are made with one token for all clients and with a token per client.
// Run: `npm run bench -- serve-cluster` with QUIVER_BENCH_POSTGRES_URL (or QUIVER_TEST_POSTGRES_URL).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { cpus } from 'node:os';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';
import type { Config } from '../src/config.js';
import { Vault } from '../src/index.js';
import { createToken } from '../src/server/tokens.js';
import { benchPostgresUrl, freshDatabase } from './postgres-server.js';
import { dataPath, machine, mdTable, median, percentile, writeSection } from './lib.js';

const CLIENTS = 32;
const SECONDS = Number(process.env.SERVE_CLUSTER_SECONDS ?? 10) || 10;
const WARMUP_SECONDS = 2;
/** Searches timed in the bench process (no HTTP), one at a time. */
const IN_PROCESS_QUERIES = 100;
const DATABASE = 'quiver_bench_serve_cluster';
const HEADING = '## Several servers on one PostgreSQL';

interface Server {
  url: URL;
  proc: ChildProcess;
}

/** `quiver <args>` against the store, its stdout; throws on a failure exit. */
function quiverOn(store: string, args: string[]): string {
  const r = spawnSync(process.execPath, ['bin/quiver.js', ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    env: { ...process.env, QUIVER_PROGRESS: 'false', QUIVER_STORE: store },
  });
  if (r.status !== 0 && r.status !== 4)
    throw new Error(`quiver ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

/** `quiver serve` on the store, rate limits out of reach, no job worker (nothing is queued). */
async function startServe(store: string): Promise<Server> {
  const proc = spawn(
    process.execPath,
    ['bin/quiver.js', 'serve', '--host', '127.0.0.1', '--port', '0', '--json', '--quiet'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: {
        ...process.env,
        QUIVER_STORE: store,
        QUIVER_RATE: '1000000000',
        QUIVER_BURST: '1000000000',
        QUIVER_WORKER: 'off',
      },
    },
  );
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: proc.stdout! }).once('line', resolve);
    proc.once('exit', (code) => reject(new Error(`quiver serve exited (${code})`)));
  });
  return { url: new URL((JSON.parse(line) as { url: string }).url), proc };
}

function stop(s: Server): Promise<void> {
  return new Promise((resolve) => {
    if (s.proc.exitCode !== null || s.proc.signalCode !== null) return resolve();
    s.proc.once('exit', () => resolve());
    s.proc.kill('SIGTERM');
  });
}

function post(agent: Agent, url: URL, token: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        path: '/v1/search',
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
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

interface Load {
  latencies: number[];
  seconds: number;
  errors: number;
  non2xx: number;
}

/**
 * `CLIENTS` clients, client i on server i mod n with token i mod tokens.length, each one request at
 * a time on its own keep-alive connection, the queries cycled, for `seconds`.
 */
async function drive(
  servers: readonly Server[],
  tokens: readonly string[],
  bodies: readonly string[],
  seconds: number,
): Promise<Load> {
  const latencies: number[] = [];
  let errors = 0;
  let non2xx = 0;
  let next = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, i) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const server = servers[i % servers.length]!;
      const token = tokens[i % tokens.length]!;
      while (performance.now() < end) {
        const body = bodies[next++ % bodies.length]!;
        const t = performance.now();
        try {
          const status = await post(agent, server.url, token, body);
          latencies.push(performance.now() - t);
          if (status < 200 || status > 299) non2xx++;
        } catch {
          errors++;
        }
      }
      agent.destroy();
    }),
  );
  return { latencies, seconds: (performance.now() - start) / 1000, errors, non2xx };
}

/** JSON lines' `field` values. */
const jsonLines = (file: string, field: string): string[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => (JSON.parse(l) as Record<string, string>)[field]!);

/**
 * The corpus to serve and its queries: SciFact when the data folder has it (unless
 * SERVE_CLUSTER_CORPUS=demo), else the demo notes with the demo's queries and questions.
 */
function corpus(): { label: string; path: string; queries: string[] } {
  const scifact = dataPath('scifact', 'corpus.jsonl');
  const queryFile = dataPath('scifact', 'queries.jsonl');
  if (scifact !== null && queryFile !== null && process.env.SERVE_CLUSTER_CORPUS !== 'demo')
    return {
      label: 'SciFact (5,183 abstracts; its 1,109 claims as queries)',
      path: scifact,
      queries: jsonLines(queryFile, 'text'),
    };
  const queries = [
    ...jsonLines('demo/queries.jsonl', 'text'),
    ...jsonLines('demo/questions.jsonl', 'question'),
  ];
  return {
    label: `the demo corpus (demo/corpus; its ${queries.length} queries and questions)`,
    path: join('demo', 'corpus'),
    queries,
  };
}

export async function benchServeCluster(): Promise<void> {
  const serverUrl = benchPostgresUrl();
  if (serverUrl === null) {
    writeSection(
      'serve-cluster',
      `${HEADING}\n\nSkipped: no PostgreSQL server (set QUIVER_BENCH_POSTGRES_URL).\n`,
    );
    return;
  }
  const log = (m: string): void => void process.stderr.write(`serve-cluster: ${m}\n`);
  const started = performance.now();
  const c = corpus();
  const bodies = c.queries.map((query) => JSON.stringify({ query, limit: 10 }));
  const store = await freshDatabase(serverUrl, DATABASE);
  const servers: Server[] = [];
  try {
    let t = performance.now();
    quiverOn(store, ['add', c.path, '--quiet']);
    const buildSeconds = (performance.now() - t) / 1000;
    log(`ingested ${c.path} in ${buildSeconds.toFixed(1)} s`);
    // One read token per client, as `quiver token create` makes them (in this process: faster).
    const vault = await Vault.open({ overrides: { store } as Partial<Config>, env: {} });
    const tokens: string[] = [];
    for (let i = 0; i < CLIENTS; i++)
      tokens.push((await createToken(vault.store, 'read', `bench ${i}`)).token);
    // What one search costs without HTTP, one at a time: the floor under a server's latency.
    for (const q of c.queries.slice(0, 20)) await vault.search(q, { limit: 10 });
    const inProcess: number[] = [];
    for (const q of c.queries.slice(0, IN_PROCESS_QUERIES)) {
      const t0 = performance.now();
      await vault.search(q, { limit: 10 });
      inProcess.push(performance.now() - t0);
    }
    await vault.close();
    log(`in-process search p50 ${median(inProcess).toFixed(1)} ms`);

    const rows: (string | number)[][] = [];
    let totalErrors = 0;
    for (const n of [1, 2, 3]) {
      while (servers.length < n) servers.push(await startServe(store));
      // Every server answers, then a warm-up spread over them all.
      for (const s of servers) {
        const status = await post(new Agent(), s.url, tokens[0]!, bodies[0]!);
        if (status !== 200) throw new Error(`serve-cluster: ${s.url.href} answered ${status}`);
      }
      await drive(servers, tokens, bodies, WARMUP_SECONDS);
      for (const [label, use] of [
        ['one token', tokens.slice(0, 1)],
        ['a token per client', tokens],
      ] as const) {
        const l = await drive(servers, use, bodies, SECONDS);
        totalErrors += l.errors + l.non2xx;
        const rate = l.latencies.length / l.seconds;
        rows.push([
          n,
          label,
          l.latencies.length + l.errors,
          rate.toFixed(0),
          median(l.latencies).toFixed(2),
          percentile(l.latencies, 99).toFixed(2),
          `${l.errors} / ${l.non2xx}`,
        ]);
        log(
          `${n} server(s), ${label}: ${rate.toFixed(0)}/s, p50 ${median(l.latencies).toFixed(2)} ms, p99 ${percentile(l.latencies, 99).toFixed(2)} ms, errors ${l.errors}/${l.non2xx}`,
        );
      }
    }
    t = (performance.now() - started) / 1000;
    writeSection(
      'serve-cluster',
      `${HEADING} (\`npm run bench -- serve-cluster\`)

Machine: ${machine()}. PostgreSQL at ${new URL(serverUrl).host} (loopback), a fresh database filled
by \`quiver add\` with ${c.label} in ${buildSeconds.toFixed(1)} s. N \`quiver serve\` processes
(\`QUIVER_STORE\` = that database, job worker off, rate limits set out of reach but still taken:
each request takes its token's bucket in the database) and ${CLIENTS} clients in this process,
client i on server i mod N, each one request at a time on its own keep-alive connection; POST
/v1/search \`{query, limit: 10}\`, the queries cycled; ${SECONDS} s per row after a ${WARMUP_SECONDS} s warm-up.
"One token": all clients share one token (one bucket row, taken by every request); "a token per
client": ${CLIENTS} tokens. The servers, PostgreSQL and the load generator share the machine's
${cpus().length} cores. For scale: \`vault.search\` in the bench process on the same database, one at
a time (no HTTP, no other request from this bench), p50 ${median(inProcess).toFixed(1)} ms and p99
${percentile(inProcess, 99).toFixed(1)} ms over ${inProcess.length} queries. Whole bench: ${t.toFixed(0)} s.

${mdTable(['servers', 'tokens', 'requests', 'requests/s', 'p50 ms', 'p99 ms', 'errors / non-2xx'], rows)}
${totalErrors === 0 ? '' : `\n**${totalErrors} requests failed.**\n`}`,
    );
  } finally {
    await Promise.all(servers.map(stop));
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
  }
}
