import { streamSSE } from 'hono/streaming';
import { setTimeout as sleep } from 'node:timers/promises';
import { QuiverError } from '../../errors.js';
import {
  findJob,
  JOB_STATES,
  jobCounts,
  listJobs,
  purgeDeadJobs,
  retryDeadJob,
  submitJob,
} from '../../jobs/queue.js';
import type { JobState } from '../../store/store.js';
import { jobJson } from '../../wire/jobs.js';
import { JobRequest } from '../../wire/requests.js';
import { intQuery, param, route, type Route } from '../route.js';

/** The job queue: list, one job, its progress as a stream, maintenance jobs, retry and purge. */

/** How often a job's progress stream looks at the store. */
const WATCH_MS = 250;

export const JOB_ROUTES: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/jobs',
    role: 'write',
    tag: 'jobs',
    summary: 'Jobs, newest first, with counts per state',
    query: {
      state: 'queued, leased, done or dead',
      kind: 'ingest, reindex, refit, index, noise-fit',
      limit: '1–1000 (default 100)',
    },
    handle: async (c, d) => {
      const state = c.req.query('state');
      if (state !== undefined && !JOB_STATES.includes(state as JobState))
        throw new QuiverError('BAD_INPUT', `quiver: state must be one of ${JOB_STATES.join(', ')}`);
      const kind = c.req.query('kind');
      const jobs = await listJobs(d.writer, {
        limit: intQuery(c, 'limit', 100, 1, 1000),
        ...(state === undefined ? {} : { state: state as JobState }),
        ...(kind === undefined ? {} : { kind }),
      });
      return c.json({ counts: await jobCounts(d.writer), jobs: jobs.map(jobJson) });
    },
  }),
  route({
    method: 'GET',
    path: '/v1/jobs/:id',
    role: 'write',
    tag: 'jobs',
    summary: 'One job: state, attempts, progress, result or last error',
    handle: async (c, d) => c.json(jobJson(await findJob(d.writer, param(c, 'id')))),
  }),
  route({
    method: 'GET',
    path: '/v1/jobs/:id/events',
    role: 'write',
    tag: 'jobs',
    summary: 'Server-Sent Events: `progress` while the job runs, then `done` or `dead` with the job',
    stream: true,
    handle: async (c, d) => {
      const first = await findJob(d.writer, param(c, 'id'));
      return streamSSE(c, async (stream) => {
        let last = '';
        let stopped = false;
        stream.onAbort(() => {
          stopped = true;
        });
        for (let id = 0; !stopped;) {
          const job = (await d.writer.store.getJob(first.id)) ?? first;
          const json = JSON.stringify(jobJson(job));
          const final = job.state === 'done' || job.state === 'dead';
          if (json !== last || final) {
            await stream.writeSSE({ event: final ? job.state : 'progress', data: json, id: String(id++) });
            last = json;
          }
          if (final) break;
          await sleep(WATCH_MS);
        }
      });
    },
  }),
  route({
    method: 'POST',
    path: '/v1/jobs',
    role: 'admin',
    tag: 'jobs',
    summary:
      'Start maintenance as a job: reindex, refit (the built-in embedder), index (lexical index and HNSW), noise-fit',
    body: JobRequest,
    status: 202,
    handle: async (c, d, b) => {
      const job = await submitJob(d.writer, b.kind, {});
      return c.json({ job: jobJson(job) }, 202, { Location: `/v1/jobs/${job.id}` });
    },
  }),
  route({
    method: 'POST',
    path: '/v1/jobs/:id/retry',
    role: 'admin',
    tag: 'jobs',
    summary: 'Put a dead job back on the queue (attempts start again)',
    handle: async (c, d) => c.json(jobJson(await retryDeadJob(d.writer, param(c, 'id')))),
  }),
  route({
    method: 'DELETE',
    path: '/v1/jobs/dead',
    role: 'admin',
    tag: 'jobs',
    summary: 'Delete the dead jobs',
    handle: async (c, d) => c.json({ purged: await purgeDeadJobs(d.writer) }),
  }),
];
