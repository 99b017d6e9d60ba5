import { resolve } from 'node:path';
import type { AddInput } from '../../index.js';
import { addJson } from '../../wire/ingest.js';
import { QuiverError } from '../../errors.js';
import { str, strs, type Command } from '../command.js';
import { configOption } from '../config-option.js';
import { EXIT } from '../exit-codes.js';
import { progressWithIndex } from '../progress.js';
import { table } from '../table.js';

export const addCommand: Command = {
  name: 'add',
  usage: 'quiver add <path|-> [...] [--text TEXT] [--include GLOB] [--exclude GLOB]',
  options: {
    text: { type: 'string', value: 'TEXT', multiple: true, help: 'add this literal text as a note' },
    title: { type: 'string', value: 'TITLE', help: 'title for --text or stdin' },
    source: {
      type: 'string',
      value: 'NAME',
      help: 'source name for --text or stdin (re-adding the same source updates it)',
    },
    include: {
      type: 'string',
      value: 'GLOB',
      multiple: true,
      help: 'only files matching this glob (relative to the folder)',
    },
    exclude: { type: 'string', value: 'GLOB', multiple: true, help: 'skip files matching this glob' },
    sync: {
      type: 'boolean',
      help: 'also remove documents whose files under the given folders are gone (follows renames)',
    },
    queue: {
      type: 'boolean',
      help: 'put the ingest on the job queue instead of running it now (quiver queue drain, or a served vault, runs it)',
    },
    'max-file-bytes': configOption('ingest.maxFileBytes', 'largest file to ingest'),
    'chunk-chars': configOption('ingest.chunkChars', 'chunk target in characters'),
  },
  maxArgs: null,
  async run(ctx) {
    const inputs: AddInput[] = [];
    const title = str(ctx.values, 'title');
    const source = str(ctx.values, 'source');
    const literal = (text: string): AddInput => ({
      text,
      ...(title === undefined ? {} : { title }),
      ...(source === undefined ? {} : { source }),
    });
    for (const p of ctx.positionals) inputs.push(p === '-' ? literal(await ctx.io.readStdin()) : p);
    for (const t of strs(ctx.values, 'text') ?? []) inputs.push(literal(t));
    if (inputs.length === 0)
      throw new QuiverError('BAD_INPUT', 'quiver add: give at least one path, - for stdin, or --text');
    if (ctx.values.queue === true) {
      // A queued ingest runs in the worker's process with the worker's configuration: a setting
      // given here would be silently lost, so it is refused instead.
      const local = ['max-file-bytes', 'chunk-chars'].filter((o) => ctx.values[o] !== undefined);
      if (local.length > 0)
        throw new QuiverError(
          'BAD_INPUT',
          `quiver add: --${local.join(' and --')} cannot go with --queue (the worker ingests with its own configuration: set ingest.* in the config file or QUIVER_* environment it reads)`,
        );
    }
    const vault = await ctx.openVault();
    const include = strs(ctx.values, 'include');
    const exclude = strs(ctx.values, 'exclude');
    if (ctx.values.queue === true) {
      const { submitJob } = await import('../../jobs/queue.js');
      const job = await submitJob(vault, 'ingest', {
        paths: inputs.filter((i): i is string => typeof i === 'string').map((p) => resolve(p)),
        texts: inputs.filter((i): i is { text: string } => typeof i !== 'string' && 'text' in i),
        ...(include === undefined ? {} : { include }),
        ...(exclude === undefined ? {} : { exclude }),
        ...(ctx.values.sync === true ? { sync: true } : {}),
      });
      if (ctx.json) ctx.out(`${JSON.stringify({ job: job.id, state: job.state })}\n`);
      else ctx.out(`job ${job.id} queued (quiver queue drain runs it)\n`);
      return EXIT.OK;
    }
    const { bar, onIndexProgress, onLexicalIndexProgress, stop } = progressWithIndex(
      ctx.io,
      ctx.quiet,
      'ingest',
    );
    let report;
    try {
      report = await vault.add(inputs, {
        ...(include === undefined ? {} : { include }),
        ...(exclude === undefined ? {} : { exclude }),
        onProgress: (p) => bar.update(p.done, p.total, p.source),
        onIndexProgress,
        onLexicalIndexProgress,
        signal: ctx.signal,
        ...(ctx.values.sync === true ? { sync: true } : {}),
      });
    } finally {
      stop();
    }
    const { batch, items, skipped, removed } = report;
    if (ctx.json) {
      ctx.out(`${JSON.stringify(addJson(report))}\n`);
    } else {
      if (items.length <= 200 || !ctx.quiet) {
        ctx.out(
          table(
            ['status', 'source', 'chunks', 'detail'],
            items.map((i) => [
              i.status,
              i.source,
              i.chunks ?? null,
              i.error === undefined ? (i.title ?? '') : `${i.error.code}: ${i.error.message}`,
            ]),
            80,
          ),
        );
      }
      for (const r of removed)
        ctx.out(
          `${r.renamedTo === undefined ? 'removed' : 'renamed'}  ${r.source}${r.renamedTo === undefined ? '' : ` → ${r.renamedTo}`}\n`,
        );
      const counts = `${batch.added} added, ${batch.updated} updated, ${batch.unchanged} unchanged, ${batch.removed > 0 ? `${batch.removed} removed, ` : ''}${batch.failed} failed`;
      const skip =
        skipped.length === 0
          ? ''
          : `; skipped ${skipped.length} files (${summarizeSkips(skipped)}; --include takes a type in)`;
      const empty = batch.added + batch.updated + batch.removed + batch.failed === 0;
      ctx.out(`${empty ? 'nothing changed (no batch recorded)' : `batch ${batch.id}`}: ${counts}${skip}\n`);
    }
    for (const i of items)
      if (i.status === 'failed' && !ctx.json) ctx.err(`failed: ${i.source}: ${i.error?.message ?? ''}\n`);
    return batch.failed > 0 ? EXIT.PARTIAL : EXIT.OK;
  },
};

/** `3 unknown-type, 1 binary`. */
function summarizeSkips(skipped: readonly { reason: string }[]): string {
  const n = new Map<string, number>();
  for (const s of skipped) n.set(s.reason, (n.get(s.reason) ?? 0) + 1);
  return [...n].map(([r, c]) => `${c} ${r}`).join(', ');
}
