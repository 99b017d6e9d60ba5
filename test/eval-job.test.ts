// The eval job and its routes end to end: a real SQLite vault of the demo corpus in a temp folder,
// demo/questions.jsonl as the uploaded question set, a tiny BEIR folder under the server's roots,
// a real HTTP server on 127.0.0.1 and the real worker (`drain`, in this process).
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEvalResult } from '../src/evaluate/eval-result.js';
import { Vault } from '../src/index.js';
import { evalPayload, evalResultBlob } from '../src/jobs/eval-job.js';
import { submitJob } from '../src/jobs/queue.js';
import { drain } from '../src/jobs/worker.js';
import { REPORT_CSP, reportTicket, ticketAllows } from '../src/server/routes/eval-routes.js';
import { startServer, type Served } from '../src/server/serve.js';
import { createToken } from '../src/server/tokens.js';
import { tempDir } from './helpers.js';

const QUESTIONS = readFileSync('demo/questions.jsonl');
const tmp = tempDir('quiver-eval-job-');
const root = join(tmp.dir, 'root');
const beir = join(root, 'tiny-beir');
let writer: Vault;
let reader: Vault;
let served: Served;
const token: Record<'read' | 'write' | 'admin', string> = { read: '', write: '', admin: '' };

beforeAll(async () => {
  mkdirSync(join(beir, 'qrels'), { recursive: true });
  const corpus = [
    { _id: 'd1', title: 'Volcanoes', text: 'Basaltic lava flows from shield volcanoes such as Mauna Loa.' },
    { _id: 'd2', title: 'Glaciers', text: 'Glaciers carve U-shaped valleys as the ice moves downhill.' },
    { _id: 'd3', title: 'Coral', text: 'Coral reefs grow in warm, shallow and clear tropical water.' },
  ];
  writeFileSync(join(beir, 'corpus.jsonl'), corpus.map((d) => JSON.stringify(d)).join('\n') + '\n');
  writeFileSync(
    join(beir, 'queries.jsonl'),
    [
      { _id: 'q1', text: 'shield volcano lava' },
      { _id: 'q2', text: 'how do glaciers shape valleys' },
    ]
      .map((q) => JSON.stringify(q))
      .join('\n') + '\n',
  );
  writeFileSync(join(beir, 'qrels', 'test.tsv'), 'query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\n');
  // The vault in <dir>/.quiver, so sources are `demo/corpus/…` as demo/questions.jsonl names them.
  cpSync('demo/corpus', join(tmp.dir, 'demo', 'corpus'), { recursive: true });
  const path = join(tmp.dir, '.quiver', 'demo.db');
  mkdirSync(join(tmp.dir, '.quiver'));
  writer = await Vault.open({
    overrides: {
      vault: path,
      'server.burst': 100_000,
      'server.ratePerSecond': 100_000,
      'server.roots': root,
    },
    env: {},
  });
  await writer.add([join(tmp.dir, 'demo', 'corpus')]);
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

type Reply = { status: number; json: Record<string, unknown>; text: string; headers: Headers };

async function send(method: string, route: string, t: string | null, body?: unknown): Promise<Reply> {
  const isForm = body instanceof FormData;
  const res = await fetch(`${served.url}${route}`, {
    method,
    headers: {
      ...(t === null ? {} : { authorization: `Bearer ${t}` }),
      ...(body === undefined || isForm ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: isForm ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // HTML
  }
  return { status: res.status, json, text, headers: res.headers };
}

function questionForm(bytes: Uint8Array | string, name = 'questions.jsonl', fields: [string, string][] = []) {
  const f = new FormData();
  f.append('file', new Blob([typeof bytes === 'string' ? bytes : new Uint8Array(bytes)]), name);
  for (const [k, v] of fields) f.append(k, v);
  return f;
}

const evalCount = async (): Promise<number> => (await writer.store.listJobs({ kind: 'eval' })).length;
const errorOf = (r: Reply) => (r.json.error as { code: string; message: string } | undefined) ?? null;

describe('the eval job', () => {
  it('checks its payload when read back from the store', () => {
    expect(() => evalPayload({})).toThrow(/"input"/);
    expect(() =>
      evalPayload({ input: { kind: 'upload', blob: 'b', name: 'n', sha256: 's' }, select: ['best'] }),
    ).toThrow(/"select"/);
    expect(() => evalPayload({ input: { kind: 'beir', path: '/x', roots: ['/'] }, limit: 0 })).toThrow(
      /"limit"/,
    );
    expect(evalPayload({ input: { kind: 'beir', path: '/x', roots: ['/'] }, judge: 'lexical' })).toEqual({
      input: { kind: 'beir', path: '/x', roots: ['/'] },
      judge: 'lexical',
    });
  });

  it('runs an uploaded question set against the vault, reports progress, and keeps the result', async () => {
    const blob = 'eval-set:test';
    await writer.store.putBlob(blob, QUESTIONS);
    const job = await submitJob(writer, 'eval', {
      input: { kind: 'upload', blob, name: 'questions.jsonl', sha256: 'test', bytes: QUESTIONS.length },
      select: ['topk', 'mmr'],
    });
    const seen: Record<string, unknown>[] = [];
    const summary = await drain(writer, { onProgress: (_j, p) => seen.push(p) });
    expect(summary.done).toBe(1);
    const questions = QUESTIONS.toString().trim().split('\n').length;
    // Progress counts questions over both configs, to the end.
    expect(seen.at(-1)).toMatchObject({ stage: 'eval', done: 2 * questions, total: 2 * questions });
    expect(seen.some((p) => p.config === 'select=mmr')).toBe(true);
    const done = (await writer.store.getJob(job.id))!;
    expect(done.state).toBe('done');
    expect(done.result).toMatchObject({
      dataset: 'questions.jsonl',
      questions,
      report: evalResultBlob(job.id),
    });
    const stored = await writer.store.getBlob(evalResultBlob(job.id));
    const result = parseEvalResult(JSON.parse(new TextDecoder().decode(stored!)));
    expect(result.configs.map((c) => c.name)).toEqual(['select=topk', 'select=mmr']);
    expect(result.configs[0]!.questions).toHaveLength(questions);
    expect(result.configs[0]!.summary['ndcg@10']?.mean).toBeGreaterThan(0);
    expect(result.comparisons.length).toBeGreaterThan(0);
  }, 120_000);
});

describe('/v1/evals', () => {
  let id = '';

  it('queues an uploaded question set (202), shows its progress, then its result and report', async () => {
    const before = await evalCount();
    const r = await send(
      'POST',
      '/v1/evals',
      token.write,
      questionForm(QUESTIONS, 'questions.jsonl', [['select', 'dartboard']]),
    );
    expect(r.status).toBe(202);
    const job = r.json.job as { id: string; kind: string; state: string; report: string | null };
    expect(job).toMatchObject({ kind: 'eval', state: 'queued', report: null });
    expect(r.headers.get('location')).toBe(`/v1/jobs/${job.id}`);
    expect(await evalCount()).toBe(before + 1);
    id = job.id;
    // Before it ran: no report yet, said as such.
    const early = await send('GET', `/v1/evals/${id}/report`, token.read);
    expect([early.status, errorOf(early)?.message]).toEqual([404, expect.stringMatching(/no report yet/)]);
    const progress: Record<string, unknown>[] = [];
    await drain(writer, { onProgress: (_j, p) => progress.push(p) });
    expect(progress.at(-1)).toMatchObject({ stage: 'eval', config: 'select=dartboard' });
    const one = await send('GET', `/v1/evals/${id}`, token.read);
    expect(one.status).toBe(200);
    expect(one.json.job).toMatchObject({ state: 'done', report: `/v1/evals/${id}/report` });
    const result = parseEvalResult(one.json.result);
    expect(result.configs.map((c) => c.name)).toEqual(['select=dartboard']);
    const list = await send('GET', '/v1/evals', token.read);
    expect((list.json.evals as { id: string }[]).map((e) => e.id)).toContain(id);
    const report = await send('GET', `/v1/evals/${id}/report`, token.read);
    expect(report.status).toBe(200);
    expect(report.headers.get('content-type')).toMatch(/^text\/html/);
    expect(report.headers.get('content-security-policy')).toBe(REPORT_CSP);
    expect(REPORT_CSP).toMatch(/sandbox/);
    expect(REPORT_CSP).not.toMatch(/script-src/);
    expect(report.text).toContain('ndcg@10');
    expect(report.text).not.toMatch(/<script/i);
  }, 120_000);

  it('gives a report link a frame can load without the token, for that report only', async () => {
    const link = await send('GET', `/v1/evals/${id}/report-link`, token.read);
    expect(link.status).toBe(200);
    const url = link.json.url as string;
    const framed = await send('GET', url, null);
    expect(framed.status).toBe(200);
    expect(framed.headers.get('content-security-policy')).toBe(REPORT_CSP);
    expect(framed.text).toContain('ndcg@10');
    const ticket = new URL(url, served.url).searchParams.get('ticket')!;
    // Another job, a changed signature, an expired ticket: refused.
    expect(ticketAllows(ticket, '0000000000000000')).toBe(false);
    expect(ticketAllows(`${ticket.slice(0, -1)}A`, id)).toBe(ticket.endsWith('A'));
    expect(ticketAllows(reportTicket(id, Date.now() - 1), id)).toBe(false);
    const forged = await send('GET', `/v1/evals/${id}/report?ticket=1.abc`, null);
    expect([forged.status, errorOf(forged)?.code]).toEqual([403, 'FORBIDDEN']);
    // Without a ticket the token is needed, as everywhere.
    expect((await send('GET', `/v1/evals/${id}/report`, null)).status).toBe(401);
  });

  it('refuses a read token (403) and a bad question set (400), queuing nothing', async () => {
    const before = await evalCount();
    const read = await send('POST', '/v1/evals', token.read, questionForm(QUESTIONS));
    expect([read.status, errorOf(read)?.code]).toEqual([403, 'FORBIDDEN']);
    // demo/queries.jsonl is BEIR queries (`text`, not `question`): named by its line.
    const beirQueries = await send(
      'POST',
      '/v1/evals',
      token.write,
      questionForm(readFileSync('demo/queries.jsonl'), 'queries.jsonl'),
    );
    expect([beirQueries.status, errorOf(beirQueries)?.message]).toEqual([
      400,
      expect.stringMatching(/queries\.jsonl line 1: question/),
    ]);
    const cases: [FormData | undefined, RegExp][] = [
      [undefined, /multipart\/form-data/],
      [questionForm('not json\n'), /line 1: not valid JSON/],
      [questionForm('\n\n'), /holds no questions/],
      [questionForm(QUESTIONS, 'questions.jsonl', [['select', 'best']]), /"select\.0"/],
      [questionForm(QUESTIONS, 'questions.jsonl', [['limit', '0']]), /"limit"/],
      [questionForm(QUESTIONS, '../etc/q.jsonl'), /.+/],
    ];
    for (const [body, message] of cases) {
      const r = await send('POST', '/v1/evals', token.write, body);
      expect([r.status, errorOf(r)?.message]).toEqual([400, expect.stringMatching(message)]);
    }
    expect(await evalCount()).toBe(before);
  });

  it('runs a BEIR folder under the roots (admin) in a throwaway vault; refuses one outside', async () => {
    const docsBefore = (await writer.stats()).documents;
    const forWrite = await send('POST', '/v1/evals/beir', token.write, { path: beir });
    expect(forWrite.status).toBe(403);
    const before = await evalCount();
    const outside = await send('POST', '/v1/evals/beir', token.admin, { path: '/etc' });
    expect([outside.status, errorOf(outside)?.code]).toEqual([403, 'FORBIDDEN']);
    const relative = await send('POST', '/v1/evals/beir', token.admin, { path: 'tiny-beir' });
    expect([relative.status, errorOf(relative)?.message]).toEqual([400, expect.stringMatching(/absolute/)]);
    const notBeir = await send('POST', '/v1/evals/beir', token.admin, { path: root });
    expect([notBeir.status, errorOf(notBeir)?.message]).toEqual([
      400,
      expect.stringMatching(/not a BEIR folder/),
    ]);
    const unknown = await send('POST', '/v1/evals/beir', token.admin, { path: beir, k: 3 });
    expect(unknown.status).toBe(400);
    expect(await evalCount()).toBe(before);
    const r = await send('POST', '/v1/evals/beir', token.admin, { path: beir, limit: 5 });
    expect(r.status).toBe(202);
    const jobId = (r.json.job as { id: string }).id;
    const progress: Record<string, unknown>[] = [];
    expect((await drain(writer, { onProgress: (_j, p) => progress.push(p) })).done).toBe(1);
    expect(progress.some((p) => p.stage === 'ingest')).toBe(true);
    const one = await send('GET', `/v1/evals/${jobId}`, token.read);
    const result = parseEvalResult(one.json.result);
    expect(result.meta.dataset).toMatch(/BEIR/);
    expect(result.configs[0]!.summary['recall@10']?.mean).toBeGreaterThan(0);
    // The served vault was not touched.
    expect((await writer.stats()).documents).toBe(docsBefore);
  }, 120_000);

  it('says NOT_FOUND for a job that is not an eval', async () => {
    const other = (await writer.store.listJobs({ kind: 'ingest' }))[0];
    const job = other ?? (await submitJob(writer, 'index', {}));
    const r = await send('GET', `/v1/evals/${job.id}`, token.read);
    expect([r.status, errorOf(r)?.message]).toEqual([404, expect.stringMatching(/not an eval/)]);
  });
});
