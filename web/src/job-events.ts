/**
 * A job's progress as it happens: `GET /v1/jobs/:id/events` read with `eventStream`. The server sends `progress` with the whole job
 * whenever it changed, then `done` or `dead` with the finished job, and closes the stream.
 */
import { ApiError, call } from './api.js';
import { eventData, eventStream } from './event-stream.js';
import type { JobJson } from './wire.js';

/** Each state of the job goes to `onJob` as it arrives; resolves with the finished job. */
export async function followJob(
  id: string,
  token: string,
  onJob: (job: JobJson) => void,
  signal: AbortSignal,
): Promise<JobJson> {
  const res = await call(`/v1/jobs/${encodeURIComponent(id)}/events`, token, {
    accept: 'text/event-stream',
    signal,
  });
  const what = 'The job’s progress stream';
  for await (const m of eventStream(res, what)) {
    if (m.event !== 'progress' && m.event !== 'done' && m.event !== 'dead') continue;
    const job = eventData(m, what) as JobJson;
    onJob(job);
    if (m.event !== 'progress') return job;
  }
  throw new ApiError(0, 'NETWORK', 'The job’s progress stream ended before the job did.');
}

/** `{done, total}` of a job's progress report, when it has both. */
export function progressOf(job: JobJson): { done: number; total: number } | null {
  const p = job.progress;
  if (p === null) return null;
  const { done, total } = p;
  return typeof done === 'number' && typeof total === 'number' && total > 0 ? { done, total } : null;
}
