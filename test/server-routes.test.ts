// The served vault's routes end to end: a real HTTP server on 127.0.0.1 over a real SQLite vault of
// the demo corpus; jobs run by the real worker (`drain`, in this process) or by `quiver serve`'s
// own worker child. No timing is asserted; timeouts are only safety nets.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Vault } from '../src/index.js';
import { drain } from '../src/jobs/worker.js';
import { createApp } from '../src/server/app.js';
import { route, type Route } from '../src/server/route.js';
import { ROUTES } from '../src/server/routes/index.js';
import { startServer, type Served } from '../src/server/serve.js';
import { createToken, listTokens } from '../src/server/tokens.js';
import { tempDir } from './helpers.js';

const tmp = tempDir('quiver-routes-');
const path = join(tmp.dir, 'demo.db');
const root = join(tmp.dir, 'root');
const outside = join(tmp.dir, 'outside');
let writer: Vault;
let reader: Vault;
let served: Served;
const token: Record<'read' | 'write' | 'admin', string> = { read: '', write: '', admin: '' };
/** The main server's request log: checked at the end for failures nobody saw. */
const log: string[] = [];

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
    },
    env: {},
  });
  await writer.add(['demo/corpus']);
  reader = await Vault.open({ overrides: { vault: path }, readonly: true, env: {} });
  served = await startServer({ reader, writer }, { host: '127.0.0.1', port: 0 }, (l) => log.push(l));
  token.admin = served.firstToken!;
  token.read = (await createToken(writer.store, 'read')).token;
  token.write = (await createToken(writer.store, 'write')).token;
}, 60_000);

afterAll(async () => {
  await served?.close();
  await reader?.close();
  await writer?.close();
  tmp.cleanup();
});

type Reply = { status: number; json: Record<string, unknown>; headers: Headers };

async function call(
  method: string,
  route: string,
  t: string | null,
  body?: unknown,
  base = served.url,
): Promise<Reply> {
  const res = await fetch(`${base}${route}`, {
    method,
    headers: {
      ...(t === null ? {} : { authorization: `Bearer ${t}` }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

type UploadFile = { name: string; bytes: Uint8Array<ArrayBuffer> | string };

function form(files: UploadFile[]): FormData {
  const f = new FormData();
  for (const file of files) f.append('file', new Blob([file.bytes]), file.name);
  return f;
}

async function upload(files: UploadFile[], t = token.write, base = served.url): Promise<Reply> {
  const res = await fetch(`${base}/v1/uploads`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t}` },
    body: form(files),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

type SseEvent = { event: string; id: string | null; data: Record<string, unknown> };

/** Server-Sent Events from a response body, as they arrive: each event's name, id and parsed data. */
async function* events(res: Response): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true }).replace(/\r\n?/g, '\n');
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      let id: string | null = null;
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue; // a comment (keep-alive)
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') event = value;
        else if (field === 'id') id = value;
        else if (field === 'data') data.push(value);
      }
      if (data.length > 0) yield { event, id, data: JSON.parse(data.join('\n')) as Record<string, unknown> };
    }
  }
}

function ask(body: Record<string, unknown>, headers: Record<string, string> = {}, signal?: AbortSignal) {
  return fetch(`${served.url}/v1/ask`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token.read}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    ...(signal === undefined ? {} : { signal }),
  });
}

const documents = async (): Promise<number> => (await writer.stats()).documents;
const jobTotal = async (): Promise<number> => {
  const c = await writer.store.jobCounts();
  return c.queued + c.leased + c.done + c.dead;
};
const jobId = (r: Reply): string => (r.json.job as { id: string }).id;
const errorCode = (r: Reply): string => (r.json.error as { code: string }).code;
const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');
const sources = (r: Reply): string[] => (r.json.results as { source: string }[]).map((h) => h.source);

describe('search, context and ask', () => {
  it('context numbers its sections and gives their text', async () => {
    const c = await call('POST', '/v1/context', token.read, { query: 'espresso extraction', limit: 3 });
    expect(c.status).toBe(200);
    const sections = c.json.sections as { n: number; text: string; section_id: string }[];
    expect(sections.length).toBeGreaterThan(0);
    expect(sections.length).toBeLessThanOrEqual(3);
    expect(sections.map((s) => s.n)).toEqual(sections.map((_, i) => i + 1));
    for (const s of sections) expect(s.text.trim().length).toBeGreaterThan(0);
  });

  it('the selection map places every pool candidate and marks what each method picks', async () => {
    const m = await call('POST', '/v1/selection-map', token.read, { query: 'espresso extraction', limit: 4 });
    expect(m.status).toBe(200);
    const candidates = m.json.candidates as {
      section_id: string;
      distance: number;
      angle: number;
      retrieval_rank: number;
    }[];
    const picks = m.json.picks as Record<'topk' | 'mmr' | 'dartboard', number[]>;
    const search = await call('POST', '/v1/search', token.read, {
      query: 'espresso extraction',
      limit: 4,
      select: { method: 'dartboard' },
    });
    // The pool is the one search selects from; its Dartboard picks are search's Dartboard results.
    expect(candidates.length).toBe(search.json.pool);
    expect(picks.dartboard.map((i) => candidates[i]!.section_id)).toEqual(
      (search.json.results as { section_id: string }[]).map((h) => h.section_id),
    );
    expect(picks.topk).toEqual([0, 1, 2, 3]);
    expect(picks.mmr).toHaveLength(4);
    expect(candidates.map((c) => c.retrieval_rank)).toEqual(candidates.map((_, i) => i));
    for (const c of candidates) {
      expect(c.distance).toBeGreaterThanOrEqual(0);
      expect(c.distance).toBeLessThanOrEqual(2);
      expect(Math.abs(c.angle)).toBeLessThanOrEqual(Math.PI);
    }
    expect((await call('POST', '/v1/selection-map', token.read, { query: '...' })).status).toBe(400);
  });

  it('search takes its knobs per call', async () => {
    const s = await call('POST', '/v1/search', token.read, {
      query: 'espresso extraction',
      legs: 'lexical',
      select: { method: 'topk' },
      rrfK: 10,
      limit: 4,
    });
    expect(s.status).toBe(200);
    const hits = s.json.results as { leg_ranks: { lexical: number | null; vector: number | null } }[];
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.length).toBeLessThanOrEqual(4);
    // Lexical only: no hit was found by the vector leg.
    for (const h of hits) {
      expect(h.leg_ranks.vector).toBeNull();
      expect(h.leg_ranks.lexical).not.toBeNull();
    }
  });

  it('refuses unknown keys and wrong values with 400, naming the field', async () => {
    const unknown = await call('POST', '/v1/search', token.read, { query: 'x', limt: 3 });
    expect(unknown.status).toBe(400);
    expect(errorCode(unknown)).toBe('BAD_INPUT');
    expect((unknown.json.error as { message: string }).message).toMatch(/limt/);
    const nested = await call('POST', '/v1/search', token.read, { query: 'x', select: { methd: 'topk' } });
    expect(nested.status).toBe(400);
    expect((nested.json.error as { message: string }).message).toMatch(/methd/);
    const wrong = await call('POST', '/v1/search', token.read, { query: 'x', select: { method: 'best' } });
    expect(wrong.status).toBe(400);
    expect((wrong.json.error as { message: string }).message).toMatch(/"select\.method"/);
    const ctx = await call('POST', '/v1/context', token.read, { query: 'x', legz: 'lexical' });
    expect([ctx.status, (ctx.json.error as { message: string }).message]).toEqual([
      400,
      expect.stringMatching(/legz/),
    ]);
  });

  it('answers as JSON, and as a stream of context, tokens, claims, measured, done', async () => {
    const question = 'How long should espresso extraction take?';
    const json = await ask({ question });
    expect(json.status).toBe(200);
    expect(json.headers.get('content-type')).toMatch(/application\/json/);
    const answer = (await json.json()) as { answer: string; cited: unknown[] };
    expect(answer.answer.length).toBeGreaterThan(0);
    expect(answer.cited.length).toBeGreaterThan(0);

    const res = await ask({ question }, { accept: 'text/event-stream' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const seen: SseEvent[] = [];
    for await (const e of events(res)) seen.push(e);
    const names = seen.map((e) => e.event);
    expect(names[0]).toBe('context');
    expect(names.slice(-3)).toEqual(['claims', 'measured', 'done']);
    expect(names.slice(1, -3).every((n) => n === 'token')).toBe(true);
    expect(names.filter((n) => n === 'token').length).toBeGreaterThan(0);
    expect(seen.map((e) => e.id)).toEqual(seen.map((_, i) => String(i)));
    const claims = seen.at(-3)!.data;
    const done = seen.at(-1)!.data;
    expect(done.answer).toBe(claims.answer);
    expect(done.cited).toEqual(claims.cited);
    // The same question answered the same way by both faces (the extractive generator is deterministic).
    expect(done.answer).toBe(answer.answer);
    expect((seen[0]!.data.sections as unknown[]).length).toBe((done.context as unknown[]).length);
  });

  it('streams with stream: true too; a generator the server has no settings for is a 400 before any event', async () => {
    const streamed = await ask({ question: 'How do I roll back an ingest?', stream: true });
    expect(streamed.headers.get('content-type')).toMatch(/text\/event-stream/);
    const names: string[] = [];
    for await (const e of events(streamed)) names.push(e.event);
    expect(names.at(-1)).toBe('done');
    // No OpenAI-compatible endpoint is configured (env: {}): the request is refused, nothing streams.
    const failed = await ask({
      question: 'How do I roll back an ingest?',
      generator: 'openai',
      stream: true,
    });
    expect(failed.status).toBe(400);
    expect(await failed.json()).toMatchObject({
      error: { code: 'BAD_INPUT', message: expect.stringContaining('"generator"') },
    });
  });

  it('survives a client that leaves mid-stream', async () => {
    const stop = new AbortController();
    const res = await ask(
      { question: 'How do I roll back an ingest?' },
      { accept: 'text/event-stream' },
      stop.signal,
    );
    const it = events(res)[Symbol.asyncIterator]();
    expect((await it.next()).value?.event).toBe('context');
    stop.abort();
    await it.return?.(undefined).catch(() => undefined);
    expect((await call('POST', '/v1/search', token.read, { query: 'rollback' })).status).toBe(200);
    // A whole streamed answer still works after the abandoned one.
    const again = await ask({ question: 'How do I roll back an ingest?' }, { accept: 'text/event-stream' });
    const names: string[] = [];
    for await (const e of events(again)) names.push(e.event);
    expect(names.at(-1)).toBe('done');
  });
});

describe('adding documents', () => {
  it('adds text at once (201), searchable straight away', async () => {
    const docs = await documents();
    const now = await call('POST', '/v1/documents', token.write, {
      text: 'Frothing milk at sixty degrees keeps it sweet and glossy.',
      source: 'milk.md',
    });
    expect(now.status).toBe(201);
    expect(now.json).toMatchObject({ added: 1, failed: 0 });
    expect(typeof now.json.batch).toBe('string');
    expect(await documents()).toBe(docs + 1);
    const s = await call('POST', '/v1/search', token.read, { query: 'frothing milk sweet glossy' });
    expect(sources(s)[0]).toBe('milk.md');
    const listed = await call('GET', '/v1/documents?source=milk', token.read);
    expect((listed.json.documents as { source: string }[]).map((d) => d.source)).toEqual(['milk.md']);
  });

  it('adds text as a job (202 with Location) that the worker runs', async () => {
    const jobs = await jobTotal();
    const later = await call('POST', '/v1/documents', token.write, {
      texts: [{ text: 'The grinder burrs need cleaning every month.', source: 'burrs.md' }],
      async: true,
    });
    expect(later.status).toBe(202);
    const id = jobId(later);
    expect(later.headers.get('location')).toBe(`/v1/jobs/${id}`);
    expect(await jobTotal()).toBe(jobs + 1);
    expect((await call('GET', `/v1/jobs/${id}`, token.write)).json.state).toBe('queued');
    // Nothing written until a worker runs it.
    expect(sources(await call('POST', '/v1/search', token.read, { query: 'grinder burrs' }))).not.toContain(
      'burrs.md',
    );
    expect((await drain(writer)).done).toBe(1);
    const job = await call('GET', later.headers.get('location')!, token.write);
    expect(job.json).toMatchObject({ state: 'done', result: { added: 1, failed: 0 } });
    expect(job.json.finishedAt).toEqual(expect.any(String));
    const s = await call('POST', '/v1/search', token.read, { query: 'grinder burrs cleaning' });
    expect(sources(s)[0]).toBe('burrs.md');
  });

  it('removes one document (undoable), and never a whole prefix', async () => {
    const docs = await documents();
    const milk = (await writer.docs({ limit: 10, filter: { sourcePrefix: 'milk' } }))[0]!;
    // rm reads a ref ending in "/" as a prefix: the route takes one document only.
    const prefix = await call('DELETE', `/v1/documents/${encodeURIComponent('/')}`, token.write);
    expect([prefix.status, errorCode(prefix)]).toEqual([400, 'BAD_INPUT']);
    expect(await documents()).toBe(docs);
    const gone = await call('DELETE', `/v1/documents/${milk.id}`, token.write);
    expect(gone.status).toBe(200);
    expect((gone.json.removed as { id: string }[]).map((d) => d.id)).toEqual([milk.id]);
    expect(await documents()).toBe(docs - 1);
    expect((await call('DELETE', `/v1/documents/${milk.id}`, token.write)).status).toBe(404);
    const undone = await call('POST', '/v1/undo', token.admin, { batch: gone.json.batch });
    expect(undone.status).toBe(200);
    expect(await documents()).toBe(docs);
  });
});

describe('uploads', () => {
  it('ingests an uploaded .md and .txt through a job, then drops the kept bytes', async () => {
    const teapot = '# Teapot\n\nWarm the teapot before the leaves go in.\n';
    const r = await upload([
      { name: 'teapot.md', bytes: teapot },
      { name: 'cups.txt', bytes: 'Porcelain cups keep green tea hot for longer.\n' },
    ]);
    expect(r.status).toBe(202);
    expect(r.headers.get('location')).toBe(`/v1/jobs/${jobId(r)}`);
    expect(await writer.store.getBlob(`upload:${sha256(teapot)}`)).not.toBeNull();
    await drain(writer);
    expect((await call('GET', `/v1/jobs/${jobId(r)}`, token.write)).json).toMatchObject({
      state: 'done',
      result: { added: 2, failed: 0 },
    });
    expect(sources(await call('POST', '/v1/search', token.read, { query: 'warm the teapot' }))[0]).toBe(
      'teapot.md',
    );
    expect(
      sources(await call('POST', '/v1/search', token.read, { query: 'porcelain cups green tea' }))[0],
    ).toBe('cups.txt');
    expect(await writer.store.getBlob(`upload:${sha256(teapot)}`)).toBeNull();
  });

  it('refuses unsafe names and wrong types, and changes nothing', async () => {
    const docs = await documents();
    const jobs = await jobTotal();
    for (const name of [
      '../../etc/passwd',
      '../../etc/passwd.md',
      'a/b.md',
      'a\\b.md',
      '..',
      'x.exe',
      'con.md',
    ]) {
      const r = await upload([{ name, bytes: '# x\n\ntext' }]);
      expect([name, r.status, errorCode(r)]).toEqual([name, 400, 'BAD_INPUT']);
    }
    const elf = new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    const binary = await upload([{ name: 'elf.md', bytes: elf }]);
    expect([binary.status, errorCode(binary)]).toEqual([400, 'BAD_INPUT']);
    // A good file beside a bad one is not kept either: every file is checked before any is kept.
    const fine = '# Fine\n\nA perfectly good note about saucers.\n';
    const mixed = await upload([
      { name: 'fine.md', bytes: fine },
      { name: 'elf.md', bytes: elf },
    ]);
    expect(mixed.status).toBe(400);
    expect(await writer.store.getBlob(`upload:${sha256(fine)}`)).toBeNull();
    const fakePdf = await upload([{ name: 'report.pdf', bytes: '# not a pdf' }]);
    expect(fakePdf.status).toBe(400);
    // No file field at all, and a read token.
    const empty = await fetch(`${served.url}/v1/uploads`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token.write}` },
      body: (() => {
        const f = new FormData();
        f.append('note', 'just a string');
        return f;
      })(),
    });
    expect(empty.status).toBe(400);
    expect((await upload([{ name: 'x.md', bytes: '# x' }], token.read)).status).toBe(403);
    expect(await documents()).toBe(docs);
    expect(await jobTotal()).toBe(jobs);
  });

  describe('on a server with small limits', () => {
    const small = join(tmp.dir, 'small.db');
    let w: Vault;
    let r: Vault;
    let s: Served;
    let admin = '';
    beforeAll(async () => {
      w = await Vault.open({
        overrides: { vault: small, 'server.maxUploadBytes': 2048, 'server.maxBodyBytes': 1024 },
        env: {},
      });
      r = await Vault.open({ overrides: { vault: small }, readonly: true, env: {} });
      s = await startServer({ reader: r, writer: w }, { host: '127.0.0.1', port: 0 });
      admin = s.firstToken!;
    });
    afterAll(async () => {
      await s?.close();
      await r?.close();
      await w?.close();
    });

    it('refuses an upload over server.maxUploadBytes with 413 and keeps nothing', async () => {
      const big = `# Big\n\n${'bulk text '.repeat(300)}\n`; // ~3 KB
      const refused = await upload([{ name: 'big.md', bytes: big }], admin, s.url);
      expect([refused.status, errorCode(refused)]).toEqual([413, 'FILE_TOO_LARGE']);
      expect(await w.store.getBlob(`upload:${sha256(big)}`)).toBeNull();
      const counts = await w.store.jobCounts();
      expect(counts.queued + counts.leased + counts.done + counts.dead).toBe(0);
      // Under the limit the same route takes it: the size was the reason.
      const ok = await upload([{ name: 'small.md', bytes: '# Small\n\nA short note.\n' }], admin, s.url);
      expect(ok.status).toBe(202);
      expect((await w.stats()).documents).toBe(0);
    });

    it('refuses a JSON body over server.maxBodyBytes with 413', async () => {
      const r2 = await call('POST', '/v1/documents', admin, { text: 'x'.repeat(2000) }, s.url);
      expect([r2.status, errorCode(r2)]).toEqual([413, 'FILE_TOO_LARGE']);
      expect((await w.stats()).documents).toBe(0);
    });
  });
});

describe('admin path ingest under the roots', () => {
  it('ingests a folder under the roots for an admin, as a job', async () => {
    const docs = await documents();
    const ok = await call('POST', '/v1/documents', token.admin, { paths: [join(root, 'notes')] });
    expect(ok.status).toBe(202);
    expect(ok.headers.get('location')).toBe(`/v1/jobs/${jobId(ok)}`);
    expect(await documents()).toBe(docs);
    expect((await drain(writer)).done).toBe(1);
    expect(await documents()).toBe(docs + 1);
    const s = await call('POST', '/v1/search', token.read, { query: 'descale the kettle citric acid' });
    expect(sources(s)[0]).toMatch(/notes\/kettle\.md$/);
  });

  it('refuses paths outside the roots, and a write token, and enqueues nothing', async () => {
    const docs = await documents();
    const jobs = await jobTotal();
    const refused = [
      [token.write, join(root, 'notes'), 403],
      [token.admin, outside, 403],
      [token.admin, join(outside, 'secret.md'), 403],
      [token.admin, join(root, 'escape'), 403],
      [token.admin, join(root, 'escape', 'secret.md'), 403],
      [token.admin, `${root}/../outside`, 403],
      [token.admin, tmp.dir, 403],
      [token.admin, '/etc/passwd', 403],
      [token.admin, 'notes', 400],
      [token.admin, join(root, 'missing'), 404],
    ] as const;
    for (const [t, p, status] of refused) {
      const r = await call('POST', '/v1/documents', t, { paths: [p] });
      expect([p, r.status]).toEqual([p, status]);
      if (status === 403) expect(errorCode(r)).toBe('FORBIDDEN');
    }
    // One bad path spoils the request: the good one beside it is not enqueued.
    const mixed = await call('POST', '/v1/documents', token.admin, { paths: [join(root, 'notes'), outside] });
    expect(mixed.status).toBe(403);
    expect(await jobTotal()).toBe(jobs);
    expect(await documents()).toBe(docs);
  });

  it('tells nothing about what exists outside the roots (missing and present look alike)', async () => {
    const probe = async (p: string): Promise<number> =>
      (await call('POST', '/v1/documents', token.admin, { paths: [p] })).status;
    // Through `..` and through a link out of the root: a missing file answers as a present one does.
    expect(await probe(`${root}/../outside/missing.md`)).toBe(await probe(`${root}/../outside/secret.md`));
    expect(await probe(join(root, 'escape', 'missing.md'))).toBe(
      await probe(join(root, 'escape', 'secret.md')),
    );
    expect(await probe(join(root, 'escape', 'missing.md'))).toBe(403);
    expect(await probe(join(root, 'notes', 'missing.md'))).toBe(404);
  });

  // KNOWN BUG (reported): a folder walk yields symbolic links to files (src/ingest/walk.ts), and
  // nothing checks where they lead, so a link inside a root that points outside it is ingested.
  // `it.fails` keeps the suite green while the bug stands; drop `.fails` once it is fixed.
  it('does not ingest a file a link inside a root points to outside it', async () => {
    const linked = join(root, 'linked');
    mkdirSync(linked);
    writeFileSync(join(linked, 'mugs.md'), '# Mugs\n\nStoneware mugs hold heat well.\n');
    symlinkSync(join(outside, 'secret.md'), join(linked, 'door.md'));
    try {
      const r = await call('POST', '/v1/documents', token.admin, { paths: [linked] });
      expect(r.status).toBe(202);
      await drain(writer);
      const s = await call('POST', '/v1/search', token.read, { query: 'vault door code' });
      expect(JSON.stringify(s.json.results)).not.toContain('4417');
    } finally {
      const mine = (await writer.docs({ limit: 10_000 })).filter((d) => d.source.includes('linked/'));
      if (mine.length > 0) await writer.rm(mine.map((d) => d.id));
      rmSync(linked, { recursive: true, force: true });
    }
  });
});

describe('jobs', () => {
  it('lists jobs with counts per state, filtered by state, kind and limit', async () => {
    const list = await call('GET', '/v1/jobs', token.write);
    expect(list.status).toBe(200);
    const counts = list.json.counts as Record<string, number>;
    expect(counts).toEqual(await writer.store.jobCounts());
    expect(counts.done).toBeGreaterThanOrEqual(3);
    expect((list.json.jobs as unknown[]).length).toBe(
      counts.queued! + counts.leased! + counts.done! + counts.dead!,
    );
    const ingests = await call('GET', '/v1/jobs?kind=ingest&state=done', token.write);
    for (const j of ingests.json.jobs as { kind: string; state: string }[])
      expect([j.kind, j.state]).toEqual(['ingest', 'done']);
    expect((await call('GET', '/v1/jobs?limit=1', token.write)).json.jobs).toHaveLength(1);
    expect((await call('GET', '/v1/jobs?state=nope', token.write)).status).toBe(400);
    expect((await call('GET', '/v1/jobs/ffffffffffffffff', token.write)).status).toBe(404);
    expect((await call('GET', '/v1/jobs/not-hex', token.write)).status).toBe(400);
  });

  it("streams a job's progress and ends with done", async () => {
    const r = await call('POST', '/v1/jobs', token.admin, { kind: 'index' });
    expect(r.status).toBe(202);
    const res = await fetch(`${served.url}/v1/jobs/${jobId(r)}/events`, {
      headers: { authorization: `Bearer ${token.write}` },
    });
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const it = events(res)[Symbol.asyncIterator]();
    const first = (await it.next()).value as SseEvent;
    expect(first).toMatchObject({ event: 'progress', data: { id: jobId(r), state: 'queued' } });
    // The worker runs it while the stream is open.
    await drain(writer);
    const rest: SseEvent[] = [];
    for (let e = await it.next(); !e.done; e = await it.next()) rest.push(e.value);
    expect(rest.at(-1)).toMatchObject({ event: 'done', data: { id: jobId(r), state: 'done' } });
    expect(rest.slice(0, -1).every((e) => e.event === 'progress')).toBe(true);
  });

  it('sends dead for a job that cannot succeed, retries it, and purges the dead', async () => {
    const gone = join(root, 'gone');
    mkdirSync(gone);
    writeFileSync(join(gone, 'a.md'), '# a\n\nalpha');
    const r = await call('POST', '/v1/documents', token.admin, { paths: [gone] });
    expect(r.status).toBe(202);
    const id = jobId(r);
    const res = await fetch(`${served.url}/v1/jobs/${id}/events`, {
      headers: { authorization: `Bearer ${token.write}` },
    });
    const stream = events(res)[Symbol.asyncIterator]();
    expect((await stream.next()).value?.event).toBe('progress');
    // The folder goes before the job runs: NOT_FOUND is permanent (run-job.ts), dead at once.
    rmSync(gone, { recursive: true });
    expect(await drain(writer)).toMatchObject({ dead: 1, retried: 0 });
    let last: SseEvent | undefined;
    for (let e = await stream.next(); !e.done; e = await stream.next()) last = e.value;
    expect(last).toMatchObject({ event: 'dead', data: { id, state: 'dead' } });
    expect(String(last!.data.lastError)).toMatch(/does not exist/);

    const dead = await call('GET', '/v1/jobs?state=dead', token.write);
    expect((dead.json.jobs as { id: string }[]).map((j) => j.id)).toEqual([id]);
    // Retry by a prefix of the id: queued again, attempts from zero.
    const retried = await call('POST', `/v1/jobs/${id.slice(0, 8)}/retry`, token.admin);
    expect(retried.json).toMatchObject({ id, state: 'queued', attempts: 0 });
    expect((await call('POST', `/v1/jobs/${id}/retry`, token.admin)).status).toBe(404);
    expect((await drain(writer)).dead).toBe(1);
    const purged = await call('DELETE', '/v1/jobs/dead', token.admin);
    expect(purged.json).toEqual({ purged: 1 });
    expect((await call('GET', '/v1/jobs?state=dead', token.write)).json.jobs).toEqual([]);
    expect((await call('GET', `/v1/jobs/${id}`, token.write)).status).toBe(404);
  });
});

describe('roles: a read token changes nothing', () => {
  /** Everything a write or admin route could change, as one comparable value. */
  const snapshot = async (): Promise<string> =>
    JSON.stringify({
      stats: await writer.stats(),
      jobs: await writer.store.jobCounts(),
      tokens: (await listTokens(writer.store)).length,
      ratings: (await writer.quality.ratings({ limit: 1000 })).length,
      marks: await writer.quality.marks(),
      learning: await writer.quality.isLearning(),
      batches: (await writer.batches(1000)).length,
    });

  it('gets 403 on every write and admin route, with a body that would otherwise act', async () => {
    const doc = (await writer.docs({ limit: 1 }))[0]!;
    const section = (await writer.outline(doc.id)).sections[0]!;
    const spare = (await createToken(writer.store, 'read', 'spare')).record;
    const job = (await writer.store.listJobs({ limit: 1 }))[0]!;
    const ids: Record<string, string> = { doc: doc.id, token: spare.id, job: job.id };
    const bodies: Record<string, unknown> = {
      'POST /v1/documents': { text: 'A note a read token must not write.', source: 'sneaky.md' },
      'POST /v1/uploads': 'multipart',
      'DELETE /v1/documents/:id': undefined,
      'POST /v1/undo': {},
      'GET /v1/jobs': undefined,
      'GET /v1/jobs/:id': undefined,
      'GET /v1/jobs/:id/events': undefined,
      'POST /v1/jobs': { kind: 'index' },
      'POST /v1/jobs/:id/retry': undefined,
      'DELETE /v1/jobs/dead': undefined,
      'POST /v1/feedback': { question: 'q', sectionId: section.id, signal: 'up' },
      'POST /v1/learning': { on: true },
      'POST /v1/noise/accept': { k: 5, minScore: 0 },
      'POST /v1/noise/fit': { save: true },
      'POST /v1/noise/use': { on: true },
      'POST /v1/ranker/fit': { save: true },
      'POST /v1/ranker/use': { on: true },
      'POST /v1/noise/marks': { document: doc.id, noisy: true, reason: 'sneaky' },
      'DELETE /v1/noise/marks/:id': undefined,
      'GET /v1/doctor': undefined,
      'GET /v1/tokens': undefined,
      'POST /v1/tokens': { role: 'admin', label: 'sneaky' },
      'DELETE /v1/tokens/:id': undefined,
      'POST /v1/evals': undefined,
      'POST /v1/evals/beir': { path: '/' },
    };
    const guarded = ROUTES.filter((r) => r.role !== 'read');
    // Every guarded route is in the table, so a new one cannot slip past this test.
    expect(guarded.map((r) => `${r.method} ${r.path}`).sort()).toEqual(Object.keys(bodies).sort());
    const before = await snapshot();
    for (const r of guarded) {
      const key = `${r.method} ${r.path}`;
      const url = r.path.replace(
        /:id/,
        r.path.startsWith('/v1/documents')
          ? ids.doc!
          : r.path.startsWith('/v1/tokens')
            ? ids.token!
            : ids.job!,
      );
      const body = bodies[key];
      let res: Reply;
      if (body === 'multipart')
        res = await upload([{ name: 'sneaky.md', bytes: '# Sneaky\n\nno' }], token.read);
      else res = await call(r.method, url, token.read, body);
      expect([key, res.status, errorCode(res)]).toEqual([key, 403, 'FORBIDDEN']);
    }
    expect(await snapshot()).toBe(before);
    // The read routes still answer the same token.
    expect((await call('GET', '/readyz', token.read)).json).toMatchObject({ ready: true });
  });

  it('hands a read route the read-only vault, whatever its handler tries', async () => {
    const sneaky: Route[] = [
      route({
        method: 'POST',
        path: '/v1/sneaky/add',
        role: 'read',
        tag: 'test',
        summary: 'tries to add through d.writer',
        handle: async (c, d) => c.json(await d.writer.add([{ text: 'Written by a read route.' }])),
      }),
      route({
        method: 'POST',
        path: '/v1/sneaky/mark',
        role: 'read',
        tag: 'test',
        summary: 'tries to mark through d.writer',
        handle: async (c, d) => c.json(await d.writer.quality.markNoisy(doc, true, 'sneaky')),
      }),
      route({
        method: 'POST',
        path: '/v1/sneaky/token',
        role: 'read',
        tag: 'test',
        summary: "tries to write d.writer's store directly",
        handle: async (c, d) => c.json(await createToken(d.writer.store, 'admin', 'sneaky')),
      }),
    ];
    const doc = (await writer.docs({ limit: 1 }))[0]!.id;
    const app = createApp({ reader, writer }, [...ROUTES, ...sneaky]);
    const before = await snapshot();
    const add = await app.request('/v1/sneaky/add', {
      method: 'POST',
      headers: { authorization: `Bearer ${token.read}` },
    });
    expect(add.status).toBe(409);
    expect(((await add.json()) as { error: { code: string } }).error.code).toBe('CONFLICT');
    for (const p of ['/v1/sneaky/mark', '/v1/sneaky/token']) {
      const res = await app.request(p, {
        method: 'POST',
        headers: { authorization: `Bearer ${token.read}` },
      });
      expect([p, res.status >= 400]).toEqual([p, true]);
    }
    expect(await snapshot()).toBe(before);
  });
});

describe('quality routes, health and CORS', () => {
  it('rates a section from a search (201) and lists the rating', async () => {
    const s = await call('POST', '/v1/search', token.read, { query: 'espresso extraction' });
    const top = (s.json.results as { section_id: string; doc_id: string }[])[0]!;
    const rated = await call('POST', '/v1/feedback', token.write, {
      question: 'espresso extraction',
      sectionId: top.section_id,
      signal: 'up',
    });
    expect(rated.status).toBe(201);
    expect(rated.json).toMatchObject({ section_id: top.section_id, doc_id: top.doc_id, signal: 'up' });
    const list = await call('GET', '/v1/feedback', token.read);
    expect((list.json.ratings as { id: unknown }[]).map((r) => r.id)).toContain(rated.json.id);
    const mine = await call('GET', `/v1/feedback?doc=${top.doc_id}`, token.read);
    for (const r of mine.json.ratings as { doc_id: string }[]) expect(r.doc_id).toBe(top.doc_id);
    const bad = await call('POST', '/v1/feedback', token.write, {
      question: 'q',
      sectionId: top.section_id,
      signal: 'meh',
    });
    expect(bad.status).toBe(400);
  });

  it('marks a document as a keeper and lists the mark; suggests noise', async () => {
    const doc = (await writer.docs({ limit: 1 }))[0]!;
    const mark = await call('POST', '/v1/noise/marks', token.write, {
      document: doc.id,
      noisy: false,
      reason: 'a keeper',
    });
    expect(mark.status).toBe(200);
    expect(mark.json).toMatchObject({ doc_id: doc.id, noisy: false, reason: 'a keeper' });
    const marks = (await call('GET', '/v1/noise/marks', token.read)).json.marks as {
      doc_id: string;
      noisy: boolean;
    }[];
    expect(marks.find((m) => m.doc_id === doc.id)).toMatchObject({ noisy: false });
    const suggested = await call('GET', '/v1/noise/suggestions?k=5', token.read);
    expect(suggested.status).toBe(200);
    const list = suggested.json.suggestions as { doc_id: string }[];
    expect(list.length).toBeLessThanOrEqual(5);
    // A keeper leaves the suggestions.
    expect(list.map((x) => x.doc_id)).not.toContain(doc.id);
    // The mark can be taken back, once.
    const un = await call('DELETE', `/v1/noise/marks/${doc.id}`, token.write);
    expect(un.status).toBe(200);
    expect(un.json).toMatchObject({ doc_id: doc.id, noisy: false });
    const after = (await call('GET', '/v1/noise/marks', token.read)).json.marks as { doc_id: string }[];
    expect(after.map((m) => m.doc_id)).not.toContain(doc.id);
    expect((await call('DELETE', `/v1/noise/marks/${doc.id}`, token.write)).status).toBe(404);
  });

  it('fits, saves and switches the ranker and the noise blend (admin), and shows both', async () => {
    // Nothing to learn from yet: 404 with what the fit needs, and nothing stored.
    const unfit = await call('POST', '/v1/ranker/fit', token.admin, { save: true });
    expect(unfit.status).toBe(404);
    expect(unfit.json.error).toMatchObject({ code: 'NOT_FOUND' });
    expect((unfit.json.error as { message: string }).message).toMatch(
      /ranker not fitted.*positive and a negative/,
    );
    expect((await call('GET', '/v1/ranker', token.read)).json).toMatchObject({ ranker: { fitted_at: null } });
    // One question with an up and a down row is enough for the pairwise ranker.
    const hits = (await call('POST', '/v1/search', token.read, { query: 'espresso grind' })).json.results as {
      section_id: string;
    }[];
    for (const [i, signal] of ['up', 'down'].entries())
      await call('POST', '/v1/feedback', token.write, {
        question: 'espresso grind',
        sectionId: hits[i]!.section_id,
        signal,
      });
    expect((await call('POST', '/v1/ranker/fit', token.write, { save: true })).status).toBe(403);
    const fit = await call('POST', '/v1/ranker/fit', token.admin, { save: true });
    expect(fit.status).toBe(200);
    expect(fit.json).toMatchObject({ fitted: true, saved: true });
    expect(Object.keys(fit.json.weights as object).length).toBeGreaterThan(0);
    expect((await call('POST', '/v1/ranker/use', token.admin, { on: true })).json).toEqual({
      ranker_on: true,
    });
    const shown = await call('GET', '/v1/ranker', token.read);
    expect(shown.json).toMatchObject({ ranker: { on: true }, noise: { on: false } });
    expect((shown.json.ranker as { fitted_at: string | null }).fitted_at).not.toBeNull();
    expect(shown.json.feedback_rows).toBe((await writer.quality.ratings({ limit: 1000 })).length);
    // The noise blend needs a junk and a keeper mark.
    const docs = await writer.docs({ limit: 2 });
    expect((await call('POST', '/v1/noise/fit', token.admin, {})).status).toBe(404);
    await call('POST', '/v1/noise/marks', token.write, { document: docs[0]!.id, noisy: true });
    await call('POST', '/v1/noise/marks', token.write, { document: docs[1]!.id, noisy: false });
    const noise = await call('POST', '/v1/noise/fit', token.admin, { save: true });
    expect(noise.json).toMatchObject({ fitted: true, saved: true, labelled: 2 });
    expect((await call('POST', '/v1/noise/use', token.admin, { on: true })).json).toEqual({ noise_on: true });
    expect((await call('GET', '/v1/ranker', token.read)).json).toMatchObject({ noise: { on: true } });
    // Put the vault back as the other tests expect it.
    await call('POST', '/v1/ranker/use', token.admin, { on: false });
    await call('POST', '/v1/noise/use', token.admin, { on: false });
    for (const d of docs.slice(0, 2)) await call('DELETE', `/v1/noise/marks/${d.id}`, token.write);
  });

  it('accepts the noise suggestions as junk marks (write)', async () => {
    const junk = await call('POST', '/v1/documents', token.write, {
      texts: [1, 2, 3].map((i) => ({
        text: `Home | About | Contact | Login\nCookie policy: we use cookies. Accept all cookies. Click here to subscribe to our newsletter. Share on Facebook Twitter. Copyright 2024 All rights reserved. Privacy policy. Terms of use. ${i}`,
        source: `footer-${i}.txt`,
      })),
    });
    expect(junk.status).toBeLessThan(300);
    const suggested = (await call('GET', '/v1/noise/suggestions?k=2', token.read)).json.suggestions as {
      doc_id: string;
    }[];
    expect(suggested.length).toBe(2);
    expect((await call('POST', '/v1/noise/accept', token.read, { k: 2 })).status).toBe(403);
    const accepted = await call('POST', '/v1/noise/accept', token.write, { k: 2, reason: 'site footer' });
    expect(accepted.status).toBe(200);
    const marks = accepted.json.marks as { doc_id: string; noisy: boolean; reason: string }[];
    expect(marks.map((m) => m.doc_id)).toEqual(suggested.map((x) => x.doc_id));
    for (const m of marks) expect(m).toMatchObject({ noisy: true, reason: 'site footer' });
    for (const m of marks) await call('DELETE', `/v1/noise/marks/${m.doc_id}`, token.write);
    expect((await call('POST', '/v1/noise/accept', token.write, { k: 0 })).status).toBe(400);
  });

  it('lists the transcript of an ask and shows it by id', async () => {
    // Asks served over HTTP run on the read-only vault and keep no transcript (reported); one
    // through the writer, as `quiver ask` does, keeps one.
    const asked = await writer.ask('How long should espresso extraction take?');
    expect(asked.transcriptId).not.toBeNull();
    const t = await call('GET', '/v1/transcripts?limit=5', token.read);
    const list = t.json.transcripts as { id: string; question: string }[];
    expect(list[0]).toMatchObject({ id: asked.transcriptId, question: asked.question });
    const one = await call('GET', `/v1/transcripts/${asked.transcriptId}`, token.read);
    expect(one.json).toMatchObject({ id: asked.transcriptId, answer: asked.answer });
    expect((await call('GET', '/v1/transcripts/nope', token.read)).status).toBe(404);
  });

  it('reports the vault health to an admin only', async () => {
    const doc = await call('GET', '/v1/doctor', token.admin);
    expect(doc.status).toBe(200);
    expect(doc.json).toHaveProperty('health');
    expect((doc.json.stats as { documents: number }).documents).toBe(await documents());
    expect(doc.json.jobs).toEqual(await writer.store.jobCounts());
    expect((await call('GET', '/v1/doctor', token.write)).status).toBe(403);
  });

  it('answers a CORS preflight only for configured origins', async () => {
    const pre = (origin: string) =>
      fetch(`${served.url}/v1/search`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type',
        },
      });
    const ok = await pre('http://example.test');
    expect(ok.status).toBeLessThan(300);
    expect(ok.headers.get('access-control-allow-origin')).toBe('http://example.test');
    expect(ok.headers.get('access-control-allow-methods')).toMatch(/POST/);
    expect(ok.headers.get('access-control-allow-headers')).toMatch(/authorization/);
    expect((await pre('http://evil.test')).headers.get('access-control-allow-origin')).toBeNull();
    // An MCP client in a browser sends its protocol headers to /mcp.
    const mcp = await fetch(`${served.url}/mcp`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://example.test',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, mcp-protocol-version',
      },
    });
    expect(mcp.headers.get('access-control-allow-origin')).toBe('http://example.test');
    expect(mcp.headers.get('access-control-allow-headers')).toMatch(/mcp-protocol-version/);
    expect(mcp.headers.get('access-control-allow-headers')).toMatch(/mcp-session-id/);
    // The real request from the allowed origin carries the header too, and shows the request id.
    const real = await fetch(`${served.url}/readyz`, {
      headers: { origin: 'http://example.test', authorization: `Bearer ${token.read}` },
    });
    expect(real.headers.get('access-control-allow-origin')).toBe('http://example.test');
    expect(real.headers.get('access-control-expose-headers')).toMatch(/x-request-id/);
    const other = await fetch(`${served.url}/readyz`, {
      headers: { origin: 'http://evil.test', authorization: `Bearer ${token.read}` },
    });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('logged no failure of its own (5xx) while serving all of the above', () => {
    expect(log.length).toBeGreaterThan(0);
    expect(log.filter((l) => / failed: /.test(l) || / 5\d\d$/.test(l))).toEqual([]);
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
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('QUIVER_')));
    const child = spawn(
      process.execPath,
      ['bin/quiver.js', 'serve', '--vault', vault, '--port', '0', '--json', '--quiet'],
      { env: { ...env, QUIVER_JOB_LEASE: '5' }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let workerPid = 0;
    try {
      const line = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout! }).once('line', resolve);
        child.once('exit', (code) => reject(new Error(`serve exited ${code}`)));
      });
      const info = JSON.parse(line) as { url: string; token: string; worker_pid: number };
      expect(info.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(info.token).toEqual(expect.any(String));
      workerPid = info.worker_pid;
      expect(workerPid).toBeGreaterThan(0);
      expect(() => process.kill(workerPid, 0)).not.toThrow();
      const auth = { authorization: `Bearer ${info.token}` };
      const up = await fetch(`${info.url}/v1/uploads`, {
        method: 'POST',
        headers: auth,
        body: form([{ name: 'scales.md', bytes: '# Scales\n\nWeigh coffee to a tenth of a gram.\n' }]),
      });
      expect(up.status).toBe(202);
      const id = ((await up.json()) as { job: { id: string } }).job.id;
      // Nobody drains here: the worker child runs it. Poll (a safety net of 30 s, not a timing).
      let job: { state: string; result: { added?: number } | null } = { state: '', result: null };
      for (let i = 0; i < 300 && job.state !== 'done' && job.state !== 'dead'; i++) {
        if (i > 0) await new Promise((r) => setTimeout(r, 100));
        job = (await (await fetch(`${info.url}/v1/jobs/${id}`, { headers: auth })).json()) as typeof job;
      }
      expect(job).toMatchObject({ state: 'done', result: { added: 1 } });
      const s = await fetch(`${info.url}/v1/search`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'weigh coffee tenth of a gram' }),
      });
      expect(((await s.json()) as { results: { source: string }[] }).results[0]!.source).toBe('scales.md');
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      // serve waits for its worker before it exits: the worker is gone too.
      expect(() => process.kill(workerPid, 0)).toThrow();
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      if (workerPid > 0)
        try {
          process.kill(workerPid, 'SIGKILL');
        } catch {
          // already gone, as it should be
        }
    }
  }, 60_000);
});
