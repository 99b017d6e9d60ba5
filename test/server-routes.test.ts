// The served vault's routes end to end: a real HTTP server on 127.0.0.1 over a real SQLite vault of
// the demo corpus; jobs run by the real worker (`drain`) or by `quiver serve`'s own worker child.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Vault } from '../src/index.js';
import { drain } from '../src/jobs/worker.js';
import { createApp } from '../src/server/app.js';
import { route } from '../src/server/route.js';
import { ROUTES } from '../src/server/routes/index.js';
import { startServer, type Served } from '../src/server/serve.js';
import { createToken } from '../src/server/tokens.js';
import { tempDir } from './helpers.js';

const tmp = tempDir('quiver-routes-');
const path = join(tmp.dir, 'demo.db');
const root = join(tmp.dir, 'root');
const outside = join(tmp.dir, 'outside');
let writer: Vault;
let reader: Vault;
let served: Served;
const token: Record<'read' | 'write' | 'admin', string> = { read: '', write: '', admin: '' };

beforeAll(async () => {
  mkdirSync(join(root, 'notes'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(
    join(root, 'notes', 'kettle.md'),
    '# Kettle descaling\n\nDescale the kettle monthly with citric acid.\n',
  );
  writeFileSync(join(outside, 'secret.md'), '# Secret\n\nThe vault door code is 4417.\n');
  symlinkSync(outside, join(root, 'escape'));
  writer = await Vault.open({
    overrides: {
      vault: path,
      'server.burst': 100_000,
      'server.ratePerSecond': 100_000,
      'server.roots': root,
      'server.corsOrigins': 'http://example.test',
      'server.maxUploadBytes': 4096,
    },
    env: {},
  });
  await writer.add(['demo/corpus']);
  reader = await Vault.open({ overrides: { vault: path }, readonly: true, env: {} });
  served = await startServer({ reader, writer }, { host: '127.0.0.1', port: 0 });
  token.admin = served.firstToken!;
  token.read = (await createToken(writer.store, 'read')).token;
  token.write = (await createToken(writer.store, 'write')).token;
}, 60_000);

afterAll(async () => {
  await served.close();
  await reader.close();
  await writer.close();
  tmp.cleanup();
});

type Reply = { status: number; json: Record<string, unknown>; headers: Headers };

async function call(method: string, route: string, t: string | null, body?: unknown): Promise<Reply> {
  const res = await fetch(`${served.url}${route}`, {
    method,
    headers: {
      ...(t === null ? {} : { authorization: `Bearer ${t}` }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

async function upload(
  files: { name: string; bytes: Uint8Array<ArrayBuffer> | string }[],
  t = token.write,
): Promise<Reply> {
  const form = new FormData();
  for (const f of files) form.append('file', new Blob([f.bytes]), f.name);
  const res = await fetch(`${served.url}/v1/uploads`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t}` },
    body: form,
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

/** Server-Sent Events from a response body: each event's name and parsed data. */
async function* events(res: Response): AsyncGenerator<{ event: string; data: Record<string, unknown> }> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (data.length > 0) yield { event, data: JSON.parse(data.join('\n')) as Record<string, unknown> };
    }
  }
}

const documents = async (): Promise<number> => (await writer.stats()).documents;
const jobTotal = async (): Promise<number> => {
  const c = await writer.store.jobCounts();
  return c.queued + c.leased + c.done + c.dead;
};
const jobId = (r: Reply): string => (r.json.job as { id: string }).id;

describe('search, context and ask', () => {
  it('context numbers its sections and gives their text; search takes knobs per call', async () => {
    const c = await call('POST', '/v1/context', token.read, { query: 'espresso extraction', limit: 3 });
    expect(c.status).toBe(200);
    const sections = c.json.sections as { n: number; text: string; section_id: string }[];
    expect(sections.map((s) => s.n)).toEqual(sections.map((_, i) => i + 1));
    expect(sections[0]!.text.length).toBeGreaterThan(0);
    const s = await call('POST', '/v1/search', token.read, {
      query: 'espresso extraction',
      legs: 'lexical',
      select: { method: 'topk' },
      rrfK: 10,
    });
    expect(s.status).toBe(200);
    for (const h of s.json.results as { leg_ranks: { vector: number | null } }[])
      expect(h.leg_ranks.vector).toBeNull();
  });

  it('refuses unknown keys and wrong types, naming the field', async () => {
    const r = await call('POST', '/v1/search', token.read, { query: 'x', limt: 3 });
    expect(r.status).toBe(400);
    expect((r.json.error as { message: string }).message).toMatch(/limt/);
    const t = await call('POST', '/v1/search', token.read, { query: 'x', select: { method: 'best' } });
    expect((t.json.error as { message: string }).message).toMatch(/"select\.method"/);
  });

  it('streams an answer as context, tokens, claims, measured, done', async () => {
    const res = await fetch(`${served.url}/v1/ask`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token.read}`,
        'content-type': 'application/json',
        accept: 'text/event-stream',
      },
      body: JSON.stringify({ question: 'How long should espresso extraction take?' }),
    });
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const seen: { event: string; data: Record<string, unknown> }[] = [];
    for await (const e of events(res)) seen.push(e);
    const names = seen.map((e) => e.event);
    expect(names[0]).toBe('context');
    expect(names.slice(-3)).toEqual(['claims', 'measured', 'done']);
    expect(names.slice(1, -3).every((n) => n === 'token')).toBe(true);
    const claims = seen.at(-3)!.data;
    const done = seen.at(-1)!.data;
    expect(done.answer).toBe(claims.answer);
    expect((done.cited as unknown[]).length).toBeGreaterThan(0);
    expect((seen[0]!.data.sections as unknown[]).length).toBe((done.context as unknown[]).length);
  });

  it('survives a client that leaves mid-stream', async () => {
    const stop = new AbortController();
    const res = await fetch(`${served.url}/v1/ask`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token.read}`, 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'How do I roll back an ingest?', stream: true }),
      signal: stop.signal,
    });
    const it = events(res)[Symbol.asyncIterator]();
    expect((await it.next()).value?.event).toBe('context');
    stop.abort();
    await it.return?.(undefined).catch(() => undefined);
    expect((await call('POST', '/v1/search', token.read, { query: 'rollback' })).status).toBe(200);
  });
});

describe('adding documents', () => {
  it('adds text at once (201) or as a job (202) that the worker runs', async () => {
    const now = await call('POST', '/v1/documents', token.write, {
      text: 'Frothing milk at 60 °C keeps it sweet.',
      source: 'milk.md',
    });
    expect(now.status).toBe(201);
    const later = await call('POST', '/v1/documents', token.write, {
      texts: [{ text: 'The grinder burrs need cleaning every month.', source: 'burrs.md' }],
      async: true,
    });
    expect(later.status).toBe(202);
    const id = jobId(later);
    expect(later.headers.get('location')).toBe(`/v1/jobs/${id}`);
    expect((await call('GET', `/v1/jobs/${id}`, token.write)).json.state).toBe('queued');
    expect((await drain(writer)).done).toBeGreaterThanOrEqual(1);
    const job = await call('GET', `/v1/jobs/${id}`, token.write);
    expect(job.json).toMatchObject({ state: 'done', result: { added: 1 } });
    const s = await call('POST', '/v1/search', token.read, { query: 'grinder burrs cleaning' });
    expect((s.json.results as { source: string }[])[0]!.source).toBe('burrs.md');
  });

  it('ingests uploaded files through a job', async () => {
    const r = await upload([
      { name: 'teapot.md', bytes: '# Teapot\n\nWarm the teapot before the leaves go in.\n' },
      { name: 'cups.txt', bytes: 'Porcelain cups keep green tea hot for longer.\n' },
    ]);
    expect(r.status).toBe(202);
    await drain(writer);
    expect((await call('GET', `/v1/jobs/${jobId(r)}`, token.write)).json).toMatchObject({
      state: 'done',
      result: { added: 2 },
    });
    const s = await call('POST', '/v1/search', token.read, { query: 'warm the teapot' });
    expect((s.json.results as { source: string }[])[0]!.source).toBe('teapot.md');
    // The upload's bytes are removed from the vault once the job is done.
    const teapot = createHash('sha256')
      .update('# Teapot\n\nWarm the teapot before the leaves go in.\n')
      .digest('hex');
    expect(await writer.store.getBlob(`upload:${teapot}`)).toBeNull();
  });

  it('refuses unsafe names, wrong types and oversized uploads, and changes nothing', async () => {
    const docs = await documents();
    const jobs = await jobTotal();
    const binary = new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0, 1, 2, 3, 0, 0]);
    for (const name of ['../../etc/passwd.md', 'a/b.md', '..', 'x.exe', 'con.md'])
      expect([name, (await upload([{ name, bytes: '# x\n\ntext' }])).status]).toEqual([name, 400]);
    expect(
      (
        await upload([
          { name: 'fine.md', bytes: '# ok\n\nok' },
          { name: 'elf.md', bytes: binary },
        ])
      ).status,
    ).toBeGreaterThanOrEqual(400);
    expect((await upload([{ name: 'big.md', bytes: `# big\n\n${'x'.repeat(8000)}` }])).status).toBe(413);
    expect((await upload([{ name: 'x.md', bytes: '# x' }], token.read)).status).toBe(403);
    expect(await documents()).toBe(docs);
    expect(await jobTotal()).toBe(jobs);
  });

  it('ingests a server folder under the roots for an admin only', async () => {
    const docs = await documents();
    const jobs = await jobTotal();
    const refused = [
      [token.write, join(root, 'notes'), 403],
      [token.admin, outside, 403],
      [token.admin, join(root, 'escape'), 403],
      [token.admin, join(root, '..', 'outside'), 403],
      [token.admin, 'notes', 400],
      [token.admin, join(root, 'missing'), 404],
    ] as const;
    for (const [t, p, status] of refused)
      expect([p, (await call('POST', '/v1/documents', t, { paths: [p] })).status]).toEqual([p, status]);
    expect(await jobTotal()).toBe(jobs);
    const ok = await call('POST', '/v1/documents', token.admin, { paths: [join(root, 'notes')] });
    expect(ok.status).toBe(202);
    await drain(writer);
    expect(await documents()).toBe(docs + 1);
    const s = await call('POST', '/v1/search', token.read, { query: 'vault door code' });
    expect(JSON.stringify(s.json.results)).not.toContain('4417');
  });
});

describe('jobs', () => {
  it("streams a job's progress and ends with done", async () => {
    const r = await call('POST', '/v1/jobs', token.admin, { kind: 'index' });
    expect(r.status).toBe(202);
    const res = await fetch(`${served.url}/v1/jobs/${jobId(r)}/events`, {
      headers: { authorization: `Bearer ${token.write}` },
    });
    const it = events(res)[Symbol.asyncIterator]();
    expect((await it.next()).value?.event).toBe('progress');
    await drain(writer);
    let last = '';
    for (let e = await it.next(); !e.done; e = await it.next()) last = e.value.event;
    expect(last).toBe('done');
  });

  it('lists counts, retries a dead job and purges the dead', async () => {
    const gone = join(root, 'gone');
    mkdirSync(gone);
    writeFileSync(join(gone, 'a.md'), '# a\n\nalpha');
    const r = await call('POST', '/v1/documents', token.admin, { paths: [gone] });
    rmSync(gone, { recursive: true });
    const summary = await drain(writer);
    expect(summary.dead).toBe(1);
    const list = await call('GET', '/v1/jobs?state=dead', token.write);
    const dead = list.json.jobs as { id: string; last_error?: string; lastError: string | null }[];
    if (summary.dead > 0) {
      expect(dead.map((j) => j.id)).toContain(jobId(r));
      expect(dead[0]!.lastError).toBeTruthy();
      expect((await call('POST', `/v1/jobs/${jobId(r).slice(0, 8)}/retry`, token.admin)).json.state).toBe(
        'queued',
      );
      expect((await call('POST', `/v1/jobs/${jobId(r)}/retry`, token.admin)).status).toBe(404);
      await drain(writer);
    }
    expect((list.json.counts as Record<string, number>).done).toBeGreaterThan(0);
    const purged = await call('DELETE', '/v1/jobs/dead', token.admin);
    expect(purged.status).toBe(200);
    expect((await call('GET', '/v1/jobs?state=dead', token.write)).json.jobs).toEqual([]);
    expect((await call('GET', '/v1/jobs?state=nope', token.write)).status).toBe(400);
  });
});

describe('read-only by construction, quality routes, CORS', () => {
  it('hands a read route the read-only vault, whatever its handler tries', async () => {
    const sneaky = route({
      method: 'POST',
      path: '/v1/sneaky',
      role: 'read',
      tag: 'test',
      summary: 'tries to write',
      handle: async (c, d) => c.json(await d.writer.add([{ text: 'Written by a read route.' }])),
    });
    const app = createApp({ reader, writer }, [...ROUTES, sneaky]);
    const docs = await documents();
    const res = await app.request('/v1/sneaky', {
      method: 'POST',
      headers: { authorization: `Bearer ${token.read}` },
    });
    expect(res.status).toBe(409);
    expect(await documents()).toBe(docs);
  });

  it('rates, marks, lists transcripts and reports health', async () => {
    const s = await call('POST', '/v1/search', token.read, { query: 'espresso extraction' });
    const top = (s.json.results as { section_id: string; doc_id: string }[])[0]!;
    const rated = await call('POST', '/v1/feedback', token.write, {
      question: 'espresso extraction',
      sectionId: top.section_id,
      signal: 'up',
    });
    expect(rated.status).toBe(201);
    const list = await call('GET', '/v1/feedback', token.read);
    expect((list.json.ratings as { section_id: string }[]).map((r) => r.section_id)).toContain(
      top.section_id,
    );
    const mark = await call('POST', '/v1/noise/marks', token.write, {
      document: top.doc_id,
      noisy: false,
      reason: 'a keeper',
    });
    expect(mark.json).toMatchObject({ doc_id: top.doc_id, noisy: false });
    expect(
      ((await call('GET', '/v1/noise/marks', token.read)).json.marks as { doc_id: string }[]).map(
        (m) => m.doc_id,
      ),
    ).toContain(top.doc_id);
    expect((await call('GET', '/v1/noise/suggestions?k=5', token.read)).status).toBe(200);
    // Served asks run on the read-only connection and keep no transcript; the writer's do.
    await writer.ask('How long should espresso extraction take?');
    const t = await call('GET', '/v1/transcripts?limit=1', token.read);
    const first = (t.json.transcripts as { id: string }[])[0]!;
    expect((await call('GET', `/v1/transcripts/${first.id}`, token.read)).json.id).toBe(first.id);
    const doc = await call('GET', '/v1/doctor', token.admin);
    expect(doc.json).toHaveProperty('jobs');
    const outline = await call('GET', `/v1/documents/${top.doc_id}/outline`, token.read);
    expect((outline.json.sections as unknown[]).length).toBeGreaterThan(0);
  });

  it('answers a CORS preflight only for configured origins', async () => {
    const pre = (origin: string) =>
      fetch(`${served.url}/v1/search`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization',
        },
      });
    expect((await pre('http://example.test')).headers.get('access-control-allow-origin')).toBe(
      'http://example.test',
    );
    expect((await pre('http://evil.test')).headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('the API description', () => {
  it('serves /openapi.json and the /docs page without a token, naming every route', async () => {
    const res = await fetch(`${served.url}/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toBe('3.1.0');
    for (const r of ROUTES)
      expect(doc.paths[r.path.replace(/:(\w+)/g, '{$1}')]?.[r.method.toLowerCase()]).toBeDefined();
    const page = await fetch(`${served.url}/docs`);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(await page.text()).toContain('/v1/search');
  });
});

describe('quiver serve with its worker child', () => {
  it('runs an uploaded file through the worker process and stops it on SIGTERM', async () => {
    const vault = join(tmp.dir, 'served.db');
    const child = spawn(
      process.execPath,
      ['bin/quiver.js', 'serve', '--vault', vault, '--port', '0', '--json', '--quiet'],
      {
        env: { ...process.env, QUIVER_JOB_LEASE: '5' },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    try {
      const line = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout! }).once('line', resolve);
        child.once('exit', (code) => reject(new Error(`serve exited ${code}`)));
      });
      const info = JSON.parse(line) as { url: string; token: string; worker_pid: number };
      expect(info.worker_pid).toBeGreaterThan(0);
      const form = new FormData();
      form.append('file', new Blob(['# Scales\n\nWeigh coffee to a tenth of a gram.\n']), 'scales.md');
      const up = await fetch(`${info.url}/v1/uploads`, {
        method: 'POST',
        headers: { authorization: `Bearer ${info.token}` },
        body: form,
      });
      const id = ((await up.json()) as { job: { id: string } }).job.id;
      let state = '';
      for (let i = 0; i < 300 && state !== 'done' && state !== 'dead'; i++) {
        const r = await fetch(`${info.url}/v1/jobs/${id}`, {
          headers: { authorization: `Bearer ${info.token}` },
        });
        state = ((await r.json()) as { state: string }).state;
        if (state !== 'done') await new Promise((r2) => setTimeout(r2, 100));
      }
      expect(state).toBe('done');
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(() => process.kill(info.worker_pid, 0)).toThrow();
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 60_000);
});
