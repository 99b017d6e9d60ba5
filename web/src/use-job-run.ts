/**
 * `useJobRun(token, onEnded)`: one ingest at a time, from sending it to its end. `start(label,
 * submit)` sends the request (`submit` answers 202 with the job), then follows the job's events
 * until it is done or dead, and calls `onEnded` (to reload the lists it changed). Leaving the view
 * stops following; the job itself runs on.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { followJob } from './job-events.js';
import type { AcceptedJson, JobJson } from './wire.js';

export type JobRun =
  | { phase: 'idle' }
  | { phase: 'sending'; label: string }
  | { phase: 'running' | 'ended'; label: string; job: JobJson }
  | { phase: 'failed'; label: string; error: unknown; job: JobJson | null };

export function useJobRun(
  token: string,
  onEnded: () => void,
): { run: JobRun; start: (label: string, submit: () => Promise<AcceptedJson>) => void } {
  const [run, setRun] = useState<JobRun>({ phase: 'idle' });
  const stop = useRef<AbortController | null>(null);
  useEffect(() => () => stop.current?.abort(), []);
  const start = (label: string, submit: () => Promise<AcceptedJson>): void => {
    stop.current?.abort();
    const mine = new AbortController();
    stop.current = mine;
    let job: JobJson | null = null;
    setRun({ phase: 'sending', label });
    void (async () => {
      try {
        job = (await submit()).job;
        setRun({ phase: 'running', label, job });
        const end = await followJob(
          job.id,
          token,
          (j) => {
            job = j;
            if (!mine.signal.aborted) setRun({ phase: 'running', label, job: j });
          },
          mine.signal,
        );
        if (mine.signal.aborted) return;
        setRun({ phase: 'ended', label, job: end });
        onEnded();
      } catch (error) {
        if (!mine.signal.aborted) setRun({ phase: 'failed', label, error, job });
      }
    })();
  };
  return { run, start };
}
