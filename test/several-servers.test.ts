// Issue 20, "Several servers": two real `quiver serve` processes (each with its worker process) on
// one PostgreSQL database share everything a request or a job needs: tokens (a token made or
// revoked through one server counts on the other at once), each token's rate limit (the two
// together admit what one would), the report-link key, and the job queue (every job runs exactly
// once; a server killed with SIGKILL mid-job loses nothing, as the other's worker takes the job
// over and finishes it).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportKey, reportTicket, ticketAllows } from '../src/server/routes/eval-routes.js';
import { createToken, listTokens } from '../src/server/tokens.js';
import {
  createTestDatabase,
  describePostgres,
  type TestDatabase,
} from '../src/store/postgres/_test-database.js';
import { PostgresStore } from '../src/store/postgres/postgres-store.js';
import { tempDir } from './helpers.js';

interface Server {
  url: string;
  /** The admin token it made on a first start, else null. */
  token: string | null;
  workerPid: number;
  child: ChildProcess;
}

/** How many notes the slow job reads: enough that it is still running when its server is killed. */
const SLOW_NOTES = 3000;

describePostgres('several quiver serve processes on one PostgreSQL', () => {
  let db: TestDatabase;
  const tmp = tempDir('quiver-servers-');
  const servers: Server[] = [];
  let sql: pg.Client;
  let admin = '';

  /** `quiver serve` in its own process group (so SIGKILL to the group takes its worker too). */
  async function startServe(): Promise<Server> {
    const child = spawn(
      process.execPath,
      [join(process.cwd(), 'bin/quiver.js'), 'serve', '--host', '127.0.0.1', '--port', '0', '--json'],
      {
        cwd: tmp.dir,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          ...process.env,
          QUIVER_STORE: db.url,
          QUIVER_JOB_LEASE: '10',
          QUIVER_RATE: '20',
          QUIVER_BURST: '40',
          QUIVER_ROOTS: tmp.dir,
        },
      },
    );
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${err.slice(-2000)}`)));
    });
    const j = JSON.parse(line) as { url: string; token: string | null; worker_pid: number };
    const s = { url: j.url, token: j.token, workerPid: j.worker_pid, child };
    servers.push(s);
    return s;
  }

  function kill(s: Server, signal: NodeJS.Signals): void {
    try {
      process.kill(-s.child.pid!, signal);
    } catch {
      // already gone
    }
  }

  async function api<T = Record<string, unknown>>(
    s: Server,
    path: string,
    init: { method?: string; body?: unknown; token?: string } = {},
  ): Promise<{ status: number; body: T; headers: Headers }> {
    const res = await fetch(`${s.url}${path}`, {
      method: init.method ?? 'GET',
      headers: {
        authorization: `Bearer ${init.token ?? admin}`,
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
    return { status: res.status, body: (await res.json()) as T, headers: res.headers };
  }

  type Job = {
    id: string;
    state: string;
    attempts: number;
    worker: { pid: number } | null;
    progress: { done?: number } | null;
    lastError: string | null;
  };
  const job = async (s: Server, id: string): Promise<Job> => {
    const r = await api<Job>(s, `/v1/jobs/${id}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body;
  };

  async function until<T>(what: string, seconds: number, probe: () => Promise<T | null>): Promise<T> {
    const end = Date.now() + seconds * 1000;
    for (;;) {
      const got = await probe();
      if (got !== null) return got;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await sleep(200);
    }
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
    // Both start at once: each may make a first admin token; none is lost (compare-and-set).
    const [a, b] = await Promise.all([startServe(), startServe()]);
    admin = a!.token ?? b!.token!;
    mkdirSync(join(tmp.dir, 'slow'));
    for (let i = 0; i < SLOW_NOTES; i++)
      writeFileSync(
        join(tmp.dir, 'slow', `note-${i}.md`),
        `# Note ${i}\n\nThe harbour log of day ${i} records ${i % 17} ships, tide ${i % 5}, and weather ${['fair', 'rain', 'fog'][i % 3]}.\n`,
      );
  }, 120_000);

  afterAll(async () => {
    for (const s of servers) kill(s, 'SIGKILL');
    await sql?.end();
    await db?.drop();
    tmp.cleanup();
  });

  it('a token made on one server works on the other; revoked on one, it is refused by both at once', async () => {
    const [a, b] = servers as [Server, Server];
    for (const s of servers)
      if (s.token !== null) expect((await api(b, '/v1/tokens/self', { token: s.token })).status).toBe(200);
    const made = await api<{ id: string; token: string }>(a, '/v1/tokens', {
      method: 'POST',
      body: { role: 'read', label: 'shared' },
    });
    expect(made.status).toBe(201);
    expect((await api(b, '/v1/tokens/self', { token: made.body.token })).status).toBe(200);
    expect((await api(b, `/v1/tokens/${made.body.id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await api(a, '/v1/tokens/self', { token: made.body.token })).status).toBe(401);
    expect((await api(b, '/v1/tokens/self', { token: made.body.token })).status).toBe(401);
  });

  it('jobs enqueued through both servers each run exactly once', async () => {
    const [a, b] = servers as [Server, Server];
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const r = await api<{ job: { id: string } }>(i % 2 === 0 ? a : b, '/v1/documents', {
        method: 'POST',
        body: {
          async: true,
          texts: [0, 1, 2].map((k) => ({
            text: `Batch ${i} note ${k}: the lighthouse keeper counted ${i * 3 + k} gulls.`,
            source: `once/${i}/${k}.md`,
          })),
        },
      });
      expect(r.status).toBe(202);
      ids.push(r.body.job.id);
    }
    const jobs = await until('every job done', 60, async () => {
      const r = await api<{ jobs: (Job & { kind: string })[] }>(b, '/v1/jobs?limit=1000');
      expect(r.status).toBe(200);
      const all = r.body.jobs.filter((j) => ids.includes(j.id));
      return all.length === ids.length && all.every((j) => j.state === 'done') ? all : null;
    });
    // Once each: one attempt, and one live version of each of its documents, written once.
    expect(
      jobs.map((j) => j.attempts),
      JSON.stringify(jobs.map((j) => j.lastError)),
    ).toEqual(ids.map(() => 1));
    const docs = await sql.query<{ source: string; n: number }>(
      `SELECT source, count(*)::int AS n FROM documents WHERE source LIKE 'once/%' GROUP BY source`,
    );
    expect(docs.rows).toHaveLength(36);
    expect(docs.rows.every((r) => r.n === 1)).toBe(true);
  }, 90_000);

  it('a server killed with SIGKILL mid-job: the other takes the job over and finishes it, 0 lost, 0 duplicated', async () => {
    const r = await api<{ job: { id: string } }>(servers[0]!, '/v1/documents', {
      method: 'POST',
      body: { paths: [join(tmp.dir, 'slow')] },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    const id = r.body.job.id;
    // Whichever worker leased it: kill its server, worker and all, once the job is under way. The
    // other worker takes it over as soon as it sees the lessee gone (same host: its pid) or, from
    // another host, once the lease (10 s here) runs out.
    const leased = await until('the job leased', 30, async () => {
      const j = await job(servers[0]!, id);
      return j.state === 'leased' && j.worker !== null ? j : null;
    });
    const victim = servers.find((s) => s.workerPid === leased.worker!.pid);
    expect(victim, `no server owns worker ${leased.worker!.pid}`).toBeDefined();
    const survivor = servers.find((s) => s !== victim)!;
    await sleep(400);
    kill(victim!, 'SIGKILL');
    expect((await job(survivor, id)).state, 'the job ended before its server was killed').not.toBe('done');
    const done = await until('the job finished by the other server', 60, async () => {
      const j = await job(survivor, id);
      return j.state === 'done' || j.state === 'dead' ? j : null;
    });
    expect(done.state).toBe('done');
    expect(done.attempts).toBe(2);
    expect(done.worker?.pid).toBe(survivor.workerPid);
    const docs = await sql.query<{ live: number; versions: number; sources: number }>(
      `SELECT count(*) FILTER (WHERE superseded_by IS NULL)::int AS live, count(*)::int AS versions,
              count(DISTINCT source)::int AS sources
       FROM documents WHERE source LIKE 'slow/%'`,
    );
    expect(docs.rows[0]).toEqual({ live: SLOW_NOTES, versions: SLOW_NOTES, sources: SLOW_NOTES });
  }, 120_000);

  it('a token admitted through both servers at once gets one rate limit, not one per server', async () => {
    const alive = servers.filter((s) => s.child.exitCode === null && s.child.signalCode === null);
    if (alive.length < 2) alive.push(await startServe());
    const made = await api<{ token: string }>(alive[0]!, '/v1/tokens', {
      method: 'POST',
      body: { role: 'read', label: 'limited' },
    });
    const t0 = performance.now();
    const replies = await Promise.all(
      Array.from({ length: 160 }, (_, i) =>
        api(alive[i % 2]!, '/v1/tokens/self', { token: made.body.token }),
      ),
    );
    const seconds = (performance.now() - t0) / 1000;
    const admitted = replies.filter((x) => x.status === 200).length;
    const refused = replies.filter((x) => x.status === 429);
    expect(admitted + refused.length).toBe(160);
    // Burst 40 and 20 per second across both (alone, each server would admit 40 + 20/s of its own).
    expect(admitted).toBeGreaterThanOrEqual(40);
    expect(admitted).toBeLessThanOrEqual(Math.floor(40 + 20 * seconds));
    expect(refused.every((x) => Number(x.headers.get('retry-after')) >= 1)).toBe(true);
  }, 60_000);

  it('a server killed alone with SIGKILL leaves no worker behind: its worker sees it gone and stops', async () => {
    const s = await startServe();
    const alive = (pid: number): boolean => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    expect(alive(s.workerPid)).toBe(true);
    process.kill(s.child.pid!, 'SIGKILL');
    await until('the orphaned worker to stop', 15, async () => (alive(s.workerPid) ? null : true));
  }, 60_000);
});

describePostgres('state servers share through one PostgreSQL (in process)', () => {
  let db: TestDatabase;
  let a: PostgresStore;
  let b: PostgresStore;
  beforeAll(async () => {
    db = await createTestDatabase();
    a = await PostgresStore.open(db.url);
    b = await PostgresStore.open(db.url);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await db?.drop();
  });

  it('tokens created at once through two stores are all kept', async () => {
    await Promise.all(
      Array.from({ length: 12 }, (_, i) => createToken(i % 2 === 0 ? a : b, 'read', `t${i}`)),
    );
    expect((await listTokens(a)).map((t) => t.label).sort()).toEqual(
      Array.from({ length: 12 }, (_, i) => `t${i}`).sort(),
    );
  });

  describe('the report-link key', () => {
    it('is one key for every server, made once however many ask at once', async () => {
      const [ka, kb] = await Promise.all([reportKey(a), reportKey(b)]);
      expect(ka.equals(kb)).toBe(true);
      const until = Date.now() + 60_000;
      expect(ticketAllows(reportTicket('job1', until, ka), 'job1', Date.now(), kb)).toBe(true);
      // Not the key of a server alone on its store.
      expect(ticketAllows(reportTicket('job1', until), 'job1', Date.now(), kb)).toBe(false);
    });
  });
});
