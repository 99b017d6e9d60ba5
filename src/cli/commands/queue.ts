import { QuiverError } from '../../errors.js';
import { drain, work, type JobEvent } from '../../jobs/worker.js';
import { JOB_STATES, jobCounts, listJobs, purgeDeadJobs, retryDeadJob } from '../../jobs/queue.js';
import type { JobState } from '../../store/store.js';
import { WORKER_PARENT_ENV } from '../../server/worker-process.js';
import { jobJson } from '../../wire/jobs.js';
import { str, type Command, type CommandContext } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { table } from '../table.js';

function told(ctx: CommandContext): (e: JobEvent) => void {
  return (e) => {
    if (ctx.quiet) return;
    const what =
      e.outcome === 'done'
        ? 'done'
        : e.outcome === 'retry'
          ? `failed (attempt ${e.job.attempts} of ${e.job.maxAttempts}), retried at ${new Date(e.retryAt ?? 0).toISOString()}: ${e.error ?? ''}`
          : e.outcome === 'dead'
            ? `dead after attempt ${e.job.attempts}: ${e.error ?? ''}`
            : 'lease lost (another worker took it over)';
    ctx.err(`job ${e.job.id} ${e.job.kind}: ${what}\n`);
  };
}

/**
 * `signal`, or aborted once the process `parent` is no longer this one's parent (it died and this
 * process was adopted): the worker of a `quiver serve` killed with SIGKILL stops, giving its job
 * back, rather than run on unsupervised. Looked at every second.
 */
function untilParentGone(signal: AbortSignal, parent: number): AbortSignal {
  const gone = new AbortController();
  const look = setInterval(() => {
    if (process.ppid !== parent) gone.abort();
  }, 1000);
  look.unref();
  const both = AbortSignal.any([signal, gone.signal]);
  both.addEventListener('abort', () => clearInterval(look), { once: true });
  return both;
}

/** `quiver queue list|drain|work|retry|purge-dead`: the vault's background jobs. */
export const queueCommand: Command = {
  name: 'queue',
  usage: 'quiver queue list [--state S] | drain | work | retry ID | purge-dead',
  options: {},
  maxArgs: 0,
  async run() {
    throw new QuiverError('BAD_INPUT', 'quiver queue: say list, drain, work, retry or purge-dead');
  },
  subcommands: {
    list: {
      usage: 'quiver queue list [--state queued|leased|done|dead] [--kind K] [--limit N]',
      summary: 'the jobs, newest first, with their state, attempts and last error',
      options: {
        state: { type: 'string', value: 'S', help: 'only jobs in this state' },
        kind: { type: 'string', value: 'K', help: 'only jobs of this kind (ingest, reindex, …)' },
        limit: { type: 'string', value: 'N', help: 'at most N jobs (default 50)' },
      },
      maxArgs: 0,
      async run(ctx) {
        const state = str(ctx.values, 'state');
        if (state !== undefined && !JOB_STATES.includes(state as JobState))
          throw new QuiverError(
            'BAD_INPUT',
            `quiver queue list: --state must be one of ${JOB_STATES.join(', ')}`,
          );
        const rawLimit = str(ctx.values, 'limit') ?? '50';
        const limit = Number(rawLimit);
        if (!Number.isInteger(limit) || limit < 1 || limit > 10_000)
          throw new QuiverError(
            'BAD_INPUT',
            `quiver queue list: --limit must be an integer from 1 to 10000, got ${rawLimit}`,
          );
        const kind = str(ctx.values, 'kind');
        const vault = await ctx.openVault({ readonly: true });
        const jobs = await listJobs(vault, {
          limit,
          ...(state === undefined ? {} : { state: state as JobState }),
          ...(kind === undefined ? {} : { kind }),
        });
        if (ctx.json) {
          ctx.out(`${JSON.stringify({ counts: await jobCounts(vault), jobs: jobs.map(jobJson) })}\n`);
        } else if (jobs.length === 0) ctx.out('no jobs\n');
        else
          ctx.out(
            table(
              ['id', 'kind', 'state', 'attempts', 'created', 'last error'],
              jobs.map((j) => [
                j.id.slice(0, 12),
                j.kind,
                j.state,
                `${j.attempts}/${j.maxAttempts}`,
                new Date(j.createdAt).toISOString().slice(0, 19).replace('T', ' '),
                (j.lastError ?? '').slice(0, 60),
              ]),
            ),
          );
        return EXIT.OK;
      },
    },
    drain: {
      usage: 'quiver queue drain',
      summary: 'run every job that is due now, then exit with a summary',
      options: {},
      maxArgs: 0,
      async run(ctx) {
        const vault = await ctx.openVault();
        // Files an ingest could not read fail that file, not the job: counted as `quiver add` counts them.
        let failedFiles = 0;
        const tell = told(ctx);
        const s = await drain(vault, {
          signal: ctx.signal,
          onJob: (e) => {
            tell(e);
            const batch = e.result?.batch as { failed?: unknown } | undefined;
            if (e.outcome === 'done' && typeof batch?.failed === 'number') failedFiles += batch.failed;
          },
        });
        const counts = await jobCounts(vault);
        if (ctx.json) ctx.out(`${JSON.stringify({ ...s, failedFiles, remaining: counts })}\n`);
        else
          ctx.out(
            `${s.done} done, ${s.retried} to retry, ${s.dead} dead, ${s.lost} lost${failedFiles > 0 ? ` (${failedFiles} file${failedFiles === 1 ? '' : 's'} failed)` : ''}; ${counts.queued} queued, ${counts.dead} dead in all\n`,
          );
        return s.dead + s.retried + failedFiles > 0 ? EXIT.PARTIAL : EXIT.OK;
      },
    },
    work: {
      usage: 'quiver queue work',
      summary: 'run jobs as they come until stopped (SIGTERM/SIGINT); quiver serve starts one',
      options: {},
      maxArgs: 0,
      async run(ctx) {
        const vault = await ctx.openVault();
        const parent = ctx.io.env[WORKER_PARENT_ENV];
        await work(vault, {
          signal: parent === undefined ? ctx.signal : untilParentGone(ctx.signal, Number(parent)),
          onJob: told(ctx),
        });
        return EXIT.OK;
      },
    },
    retry: {
      usage: 'quiver queue retry ID',
      summary: 'put a dead job back on the queue (attempts start again)',
      options: {},
      maxArgs: 1,
      async run(ctx) {
        const ref = ctx.positionals[0];
        if (ref === undefined)
          throw new QuiverError('BAD_INPUT', 'quiver queue retry: give the job id (quiver queue list)');
        const vault = await ctx.openVault();
        const { id } = await retryDeadJob(vault, ref);
        if (ctx.json) ctx.out(`${JSON.stringify({ retried: id })}\n`);
        else ctx.out(`job ${id} is queued again\n`);
        return EXIT.OK;
      },
    },
    'purge-dead': {
      usage: 'quiver queue purge-dead',
      summary: 'delete the dead jobs (after reading their errors)',
      options: {},
      maxArgs: 0,
      async run(ctx) {
        const vault = await ctx.openVault();
        const n = await purgeDeadJobs(vault);
        if (ctx.json) ctx.out(`${JSON.stringify({ purged: n })}\n`);
        else ctx.out(`${n} dead job${n === 1 ? '' : 's'} deleted\n`);
        return EXIT.OK;
      },
    },
  },
};
