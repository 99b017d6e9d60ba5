/**
 * A job's progress as it happens: `GET /v1/jobs/:id/events` read with fetch and `parseSse`
 * (`EventSource` cannot send the bearer header). The server sends `progress` with the whole job
 * whenever it changed, then `done` or `dead` with the finished job, and closes the stream.
 */
import { ApiError, call } from './api.js';
import { parseSse } from './sse.js';
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
  if (res.body === null) throw new ApiError(res.status, 'BAD_REPLY', 'The job’s progress stream was empty.');
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let rest = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      const parsed = parseSse(rest + value);
      rest = parsed.rest;
      for (const m of parsed.messages) {
        if (m.event !== 'progress' && m.event !== 'done' && m.event !== 'dead') continue;
        let job: JobJson;
        try {
          job = JSON.parse(m.data) as JobJson;
        } catch {
          throw new ApiError(
            200,
            'BAD_REPLY',
            `The job’s progress stream sent an unreadable ${m.event} event.`,
          );
        }
        onJob(job);
        if (m.event !== 'progress') return job;
      }
    }
  } finally {
    reader.releaseLock();
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
