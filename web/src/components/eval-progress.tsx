/**
 * Where an eval job is: the same progress bar as an ingest's, counting questions (over every
 * config compared) or, for a BEIR folder, first the corpus files ingested into a throwaway vault;
 * then Done, or why it died.
 */
import { progressOf } from '../job-events.js';
import type { JobRun } from '../use-job-run.js';
import type { JobJson } from '../wire.js';
import { JobProgress, type Bar, type JobWords } from './job-progress.js';

const EVAL_WORDS: JobWords = { bar: barOf, died: 'The evaluation failed', testId: 'eval-run' };

export function EvalProgress(props: { run: JobRun; forbidden: string }) {
  return <JobProgress run={props.run} forbidden={props.forbidden} words={EVAL_WORDS} />;
}

/** The bar's position and its words, from the job's state and progress report. */
function barOf(job: JobJson | null): Bar {
  if (job === null) return { now: 0, max: 1, text: 'Sending…' };
  const p = progressOf(job);
  if (job.state === 'done') {
    // A quick run can end before a report of its progress was kept: its result counts the same.
    const r = job.result as { questions?: unknown; configs?: unknown } | null;
    const measured =
      typeof r?.questions === 'number' && Array.isArray(r.configs) ? r.questions * r.configs.length : 0;
    const total = p?.total ?? (measured > 0 ? measured : 1);
    return { now: total, max: total, text: 'Done: the report is below.' };
  }
  if (job.state === 'dead') return { now: p?.done ?? 0, max: p?.total ?? 1, text: 'Failed.' };
  if (p === null)
    return {
      now: 0,
      max: 1,
      text: job.state === 'queued' ? 'Queued: waiting for the worker…' : 'Started…',
    };
  const stage = job.progress?.stage;
  const config = job.progress?.config;
  if (stage === 'ingest')
    return { now: p.done, max: p.total, text: `Ingesting the corpus: ${p.done} of ${p.total} files…` };
  return {
    now: p.done,
    max: p.total,
    text: `Measured ${p.done} of ${p.total} questions${typeof config === 'string' ? ` (${config})` : ''}…`,
  };
}
