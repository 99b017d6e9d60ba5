/**
 * Where a job is: a progress bar (from the job's own reports) with what it is doing in words, then
 * what it did or why it died. The bar stays, full, when the job is done, so the outcome can be read
 * after it. The words are the job kind's (`JobWords`): an ingest's by default (files read of all,
 * then added, updated, failed and why).
 */
import type { ComponentChildren } from 'preact';
import { progressOf } from '../job-events.js';
import type { JobRun } from '../use-job-run.js';
import type { AddReportJson, JobJson } from '../wire.js';
import { ErrorNote } from './error-note.js';

/** What a kind of job says: its bar's position and words, what it did, and how a death reads. */
export interface JobWords {
  bar(job: JobJson | null): Bar;
  /** Shown under the bar once the job is done. */
  done?(job: JobJson): ComponentChildren;
  /** The dead job's headline, before "after N of M attempts". */
  died: string;
  /** What to do about a dead job, if anything. */
  advice?: string;
  testId: string;
}

export interface Bar {
  now: number;
  max: number;
  text: string;
}

export const INGEST_WORDS: JobWords = {
  bar: barOf,
  done: (job) => <ReportSummary report={job.result as AddReportJson | null} />,
  died: 'The job died',
  advice: 'Nothing it did stays half-done; retry it from the job list below once the cause is fixed.',
  testId: 'job-run',
};

export function JobProgress(props: { run: JobRun; forbidden?: string; words?: JobWords }) {
  const { run, forbidden, words = INGEST_WORDS } = props;
  if (run.phase === 'idle') return null;
  if (run.phase === 'failed' && run.job === null)
    return (
      <div class="job-run">
        <ErrorNote error={run.error} {...(forbidden === undefined ? {} : { forbidden })} />
      </div>
    );
  const job = run.phase === 'sending' ? null : run.job;
  const bar = words.bar(job);
  return (
    <div class="job-run" data-testid={words.testId}>
      <p class="job-title">
        <strong>{run.label}</strong>
        {job !== null && (
          <span class={`tag ${job.state === 'done' ? 'ok' : job.state === 'dead' ? 'bad' : ''}`}>
            {job.state}
          </span>
        )}
      </p>
      <div
        class={`progress ${job?.state === 'dead' ? 'dead' : ''}`}
        role="progressbar"
        aria-label={`Progress: ${run.label}`}
        aria-valuemin={0}
        aria-valuemax={bar.max}
        aria-valuenow={bar.now}
        aria-valuetext={bar.text}
      >
        <span class="progress-fill" style={{ width: `${(100 * bar.now) / bar.max}%` }} />
      </div>
      <p class="small" role="status" aria-live="polite">
        {bar.text}
      </p>
      {run.phase === 'failed' && (
        <ErrorNote error={run.error} {...(forbidden === undefined ? {} : { forbidden })} />
      )}
      {job?.state === 'done' && words.done?.(job)}
      {job?.state === 'dead' && (
        <div class="note error" role="alert">
          <p>
            <strong>{words.died}</strong> after {job.attempts} of {job.maxAttempts} attempts
            {job.lastError === null ? '.' : `: ${job.lastError}`}
          </p>
          {words.advice !== undefined && <p>{words.advice}</p>}
        </div>
      )}
    </div>
  );
}

/** An ingest's bar: its position and words, from the job's state and progress report. */
function barOf(job: JobJson | null): Bar {
  if (job === null) return { now: 0, max: 1, text: 'Sending…' };
  const p = progressOf(job);
  if (job.state === 'done') {
    const total = p?.total ?? 1;
    return { now: total, max: total, text: 'Done.' };
  }
  if (job.state === 'dead') return { now: p?.done ?? 0, max: p?.total ?? 1, text: 'Failed.' };
  if (p === null)
    return {
      now: 0,
      max: 1,
      text: job.state === 'queued' ? 'Queued: waiting for the worker…' : 'Started: reading…',
    };
  const source = job.progress?.source;
  return {
    now: p.done,
    max: p.total,
    text: `Read ${p.done} of ${p.total}${typeof source === 'string' && source !== '' ? ` (${source})` : ''}…`,
  };
}

function ReportSummary({ report }: { report: AddReportJson | null }) {
  if (report === null || typeof report.added !== 'number') return null;
  const failed = report.items.filter((i) => i.error !== undefined);
  return (
    <div class="note">
      <p>
        {report.added} added, {report.updated} updated, {report.unchanged} unchanged
        {report.skipped > 0 ? `, ${report.skipped} skipped` : ''}
        {report.failed > 0 ? `, ${report.failed} failed` : ''}.
        {report.batch !== null && (
          <>
            {' '}
            Batch <code>{report.batch}</code> (undo it below).
          </>
        )}
      </p>
      {failed.length > 0 && (
        <ul class="small">
          {failed.map((i) => (
            <li key={i.source}>
              <code>{i.source}</code>: <span class="error-text">{i.error?.message}</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
