import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Hono } from 'hono';
import { QuiverError } from '../../errors.js';
import { isBeirFolder } from '../../evaluate/datasets/beir.js';
import { renderHtmlReport } from '../../evaluate/report-html.js';
import { realRoots } from '../../ingest/path-under.js';
import { parseQuestionSet } from '../../evaluate/question-set.js';
import { keepQuestionSet, storedEvalResult, type EvalPayload } from '../../jobs/eval-job.js';
import { findJob, listJobs, submitJob } from '../../jobs/queue.js';
import { metaOnce } from '../../store/shared-state.js';
import type { JobRecord, Store } from '../../store/store.js';
import type { Vault } from '../../vault.js';
import { BeirEvalRequest, EvalSettingsRequest, evalJobJson } from '../../wire/evals.js';
import { pathUnderRoots } from '../roots.js';
import {
  intQuery,
  multipartFiles,
  param,
  route,
  type AppDeps,
  type Ctx,
  type Env,
  type Route,
} from '../route.js';
import { safeUploadName } from '../upload-name.js';

/**
 * Evaluations: run a question set (uploaded JSONL, write) or a BEIR folder on the server (admin)
 * as an `eval` job, list the runs, and read one's result (JSON) or its HTML report (read).
 *
 * The report is the self-contained page of `quiver eval --html`, served with a policy of its own
 * (`REPORT_CSP`: no script, no requests, a sandbox), so it can sit in a frame of the web page and
 * never run anything against the page's origin. A frame cannot send the bearer token, so the page
 * asks for a short-lived link (`report-link`) whose signed ticket stands in for it: only for that
 * one report, for `TICKET_MS`.
 */

/** The report's own policy: inline style and SVG only, sandboxed, framed only by this origin. */
export const REPORT_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'self'; sandbox";

/** How long a report link works. */
export const TICKET_MS = 10 * 60_000;

/**
 * Signs report tickets when one server has the store to itself (SQLite): new on each start, so a
 * restart ends every link.
 */
const PROCESS_KEY = randomBytes(32);

/** Where servers that share a store keep the key that signs report tickets (in its meta). */
export const REPORT_KEY_META = 'server.reportLinkKey';

const sharedKeys = new WeakMap<Store, Promise<Buffer>>();

/**
 * The key that signs report tickets for servers on `store`: when several servers share it
 * (`Store.shared`), one key kept in its meta, created once by whichever server asks first
 * (insert-if-absent, then read back), so a link made by one server opens on every other; else
 * this process's own. Read once per store and process (it never changes once made).
 */
export function reportKey(store: Store): Promise<Buffer> {
  if (store.shared === undefined) return Promise.resolve(PROCESS_KEY);
  let key = sharedKeys.get(store);
  if (key === undefined) {
    key = metaOnce(store, REPORT_KEY_META, () => randomBytes(32).toString('base64url')).then((v) =>
      Buffer.from(v, 'base64url'),
    );
    // A failed read is tried again by the next request.
    key.catch(() => sharedKeys.delete(store));
    sharedKeys.set(store, key);
  }
  return key;
}

const sign = (job: string, until: number, key: Uint8Array): string =>
  createHmac('sha256', key).update(`${job}.${until}`).digest('base64url');

/** A ticket for job `job`'s report, good until `until` (ms), signed with `key` ({@link reportKey}). */
export function reportTicket(job: string, until: number, key: Uint8Array = PROCESS_KEY): string {
  return `${until}.${sign(job, until, key)}`;
}

/** Whether `ticket` is a live ticket for `job`'s report, signed with `key` ({@link reportKey}). */
export function ticketAllows(
  ticket: string,
  job: string,
  now = Date.now(),
  key: Uint8Array = PROCESS_KEY,
): boolean {
  const m = /^(\d{1,15})\.([A-Za-z0-9_-]{43})$/.exec(ticket);
  if (m === null) return false;
  const until = Number(m[1]);
  if (until < now || until > now + TICKET_MS) return false;
  const want = Buffer.from(sign(job, until, key));
  const got = Buffer.from(m[2]!);
  return want.length === got.length && timingSafeEqual(want, got);
}

/** An eval job by id (or prefix); NOT_FOUND for a job of another kind. */
async function evalJob(vault: Vault, ref: string): Promise<JobRecord> {
  const job = await findJob(vault, ref);
  if (job.kind !== 'eval') throw new QuiverError('NOT_FOUND', `quiver: job ${job.id} is not an eval`);
  return job;
}

async function reportResponse(vault: Vault, job: JobRecord): Promise<Response> {
  const html = renderHtmlReport(await storedEvalResult(vault.store, job));
  return new Response(html, {
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': REPORT_CSP,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'private, no-store',
    },
  });
}

/** 202 Accepted with the job and where to watch it. */
function accepted(c: Ctx, job: JobRecord): Response {
  return c.json({ job: evalJobJson(job) }, 202, { Location: `/v1/jobs/${job.id}` });
}

/** The settings of a run from an upload's form fields (`select` repeated, `limit`, `judge`, `answer`). */
function formSettings(form: FormData): EvalSettingsRequest {
  const text = (name: string): string | undefined => {
    const v = form.get(name);
    return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
  };
  const select = form.getAll('select').filter((v): v is string => typeof v === 'string' && v !== '');
  const limit = text('limit');
  const judge = text('judge');
  const answer = text('answer');
  const raw = {
    ...(select.length === 0 ? {} : { select }),
    ...(limit === undefined ? {} : { limit: /^\d+$/.test(limit) ? Number(limit) : limit }),
    ...(judge === undefined ? {} : { judge }),
    ...(answer === undefined
      ? {}
      : { answer: answer === 'true' ? true : answer === 'false' ? false : answer }),
  };
  const r = EvalSettingsRequest.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new QuiverError(
      'BAD_INPUT',
      `quiver: "${issue?.path.join('.') ?? 'settings'}": ${issue?.message ?? 'invalid'}`,
    );
  }
  return r.data;
}

const settingsOf = (s: EvalSettingsRequest): Omit<EvalPayload, 'input'> => ({
  ...(s.select === undefined ? {} : { select: s.select }),
  ...(s.limit === undefined ? {} : { limit: s.limit }),
  ...(s.judge === undefined ? {} : { judge: s.judge }),
  ...(s.answer === undefined ? {} : { answer: s.answer }),
});

const UPLOAD_HELP =
  'quiver: an eval upload must be multipart/form-data with one "file" field (a JSONL question set)';

export const EVAL_ROUTES: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/evals',
    role: 'read',
    tag: 'evals',
    summary: 'Eval runs (jobs of kind eval), newest first, each with a summary of its result when done',
    query: { limit: '1–1000 (default 50)' },
    handle: async (c, d) => {
      const jobs = await listJobs(d.writer, { kind: 'eval', limit: intQuery(c, 'limit', 50, 1, 1000) });
      return c.json({ evals: jobs.map(evalJobJson) });
    },
  }),
  route({
    method: 'POST',
    path: '/v1/evals',
    role: 'write',
    tag: 'evals',
    summary:
      'Run an uploaded question set (multipart/form-data: `file`, a JSONL question set; optional fields `select` (repeatable: topk, mmr, dartboard), `limit`, `judge`, `answer`) against the vault as an eval job (202). A bad set is refused whole, naming its line, and nothing is queued',
    multipart: true,
    status: 202,
    handle: async (c, d) => {
      const { form, files } = await multipartFiles(c, UPLOAD_HELP);
      const file = files[0];
      if (file === undefined || files.length > 1) throw new QuiverError('BAD_INPUT', UPLOAD_HELP);
      const settings = formSettings(form);
      const name = safeUploadName(file.name);
      const bytes = new Uint8Array(await file.arrayBuffer());
      let text: string;
      try {
        text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
      } catch {
        throw new QuiverError('BAD_INPUT', `quiver: ${name} is not UTF-8 text`);
      }
      // Checked whole before anything is kept: a bad line names itself and nothing is queued.
      if (parseQuestionSet(text, name).length === 0)
        throw new QuiverError('BAD_INPUT', `quiver: ${name} holds no questions`);
      const input = await keepQuestionSet(d.writer.store, name, bytes);
      return accepted(c, await submitJob(d.writer, 'eval', { input, ...settingsOf(settings) }));
    },
  }),
  route({
    method: 'POST',
    path: '/v1/evals/beir',
    role: 'admin',
    tag: 'evals',
    summary:
      'Run a BEIR folder on the server (`path`, absolute, under the configured roots; `split`) as an eval job (202): its corpus goes into a throwaway vault, so the served vault is not touched',
    body: BeirEvalRequest,
    status: 202,
    handle: async (c, d, b) => {
      const path = pathUnderRoots(b.path, d.roots ?? []);
      const input: EvalPayload['input'] = {
        kind: 'beir',
        path,
        roots: realRoots(d.roots ?? []),
        ...(b.split === undefined ? {} : { split: b.split }),
      };
      // Checked now, so a folder that is not BEIR is a 400 rather than a dead job.
      if (!isBeirFolder(path))
        throw new QuiverError(
          'BAD_INPUT',
          `quiver: ${b.path} is not a BEIR folder (corpus.jsonl, queries.jsonl, qrels/)`,
        );
      return accepted(c, await submitJob(d.writer, 'eval', { input, ...settingsOf(b) }));
    },
  }),
  route({
    method: 'GET',
    path: '/v1/evals/:job',
    role: 'read',
    tag: 'evals',
    summary: 'One eval run: the job, and its EvalResult JSON once done (null before)',
    handle: async (c, d) => {
      const job = await evalJob(d.writer, param(c, 'job'));
      const result = job.state === 'done' ? await storedEvalResult(d.writer.store, job) : null;
      return c.json({ job: evalJobJson(job), result });
    },
  }),
  route({
    method: 'GET',
    path: '/v1/evals/:job/report',
    role: 'read',
    tag: 'evals',
    summary:
      'The HTML report of a finished eval (text/html, self-contained, under a policy of its own: no script, sandboxed)',
    handle: async (c, d) => reportResponse(d.writer, await evalJob(d.writer, param(c, 'job'))),
  }),
  route({
    method: 'GET',
    path: '/v1/evals/:job/report-link',
    role: 'read',
    tag: 'evals',
    summary:
      'A link to the HTML report that works without the token for ten minutes (for a frame, which cannot send one)',
    handle: async (c, d) => {
      const job = await evalJob(d.writer, param(c, 'job'));
      if (job.state !== 'done')
        throw new QuiverError('NOT_FOUND', `quiver: eval ${job.id} has no report yet (it is ${job.state})`);
      const until = Date.now() + TICKET_MS;
      return c.json({
        url: `/v1/evals/${job.id}/report?ticket=${reportTicket(job.id, until, await reportKey(d.writer.store))}`,
        expiresAt: new Date(until).toISOString(),
      });
    },
  }),
];

/**
 * The report by ticket (`?ticket=` from `report-link`), answered before the token check, which it
 * replaces for this one route; without a ticket the request goes on to the token-checked route.
 * Mounted by `createApp` ahead of the routes.
 */
export function mountEvalReports(app: Hono<Env>, deps: AppDeps): void {
  app.get('/v1/evals/:job/report', async (c, next) => {
    const ticket = c.req.query('ticket');
    if (ticket === undefined) return next();
    const id = c.req.param('job');
    if (!ticketAllows(ticket, id, Date.now(), await reportKey(deps.writer.store)))
      throw new QuiverError('FORBIDDEN', 'quiver: the report link is not valid or has expired');
    return reportResponse(deps.reader, await evalJob(deps.reader, id));
  });
}
