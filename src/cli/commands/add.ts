import type { AddInput } from '../../index.js';
import { QuiverError } from '../../index.js';
import { str, strs, type Command } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { progressWithIndex } from '../progress.js';
import { table } from '../table.js';

export const addCommand: Command = {
  name: 'add',
  summary: 'ingest files, folders, text or stdin (-) as one batch',
  usage: 'quiver add <path|-> [...] [--text TEXT] [--include GLOB] [--exclude GLOB]',
  options: {
    text: { type: 'string', multiple: true, help: 'add this literal text as a note' },
    title: { type: 'string', help: 'title for --text or stdin' },
    source: {
      type: 'string',
      help: 'source name for --text or stdin (re-adding the same source updates it)',
    },
    include: {
      type: 'string',
      multiple: true,
      help: 'only files matching this glob (relative to the folder)',
    },
    exclude: { type: 'string', multiple: true, help: 'skip files matching this glob' },
    'max-file-bytes': { type: 'string', help: 'largest file to ingest', config: 'ingest.maxFileBytes' },
    'chunk-chars': { type: 'string', help: 'chunk target in characters', config: 'ingest.chunkChars' },
  },
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
    const vault = await ctx.openVault();
    const { bar, onIndexProgress, onLexicalIndexProgress, stop } = progressWithIndex(
      ctx.io,
      ctx.quiet,
      'ingest',
    );
    const include = strs(ctx.values, 'include');
    const exclude = strs(ctx.values, 'exclude');
    let report;
    try {
      report = await vault.add(inputs, {
        ...(include === undefined ? {} : { include }),
        ...(exclude === undefined ? {} : { exclude }),
        onProgress: (p) => bar.update(p.done, p.total, p.source),
        onIndexProgress,
        onLexicalIndexProgress,
      });
    } finally {
      stop();
    }
    const { batch, items } = report;
    if (ctx.json) {
      ctx.out(
        `${JSON.stringify({ batch: batch.id, added: batch.added, updated: batch.updated, unchanged: batch.unchanged, failed: batch.failed, items })}\n`,
      );
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
      ctx.out(
        `batch ${batch.id}: ${batch.added} added, ${batch.updated} updated, ${batch.unchanged} unchanged, ${batch.failed} failed\n`,
      );
    }
    for (const i of items)
      if (i.status === 'failed' && !ctx.json) ctx.err(`failed: ${i.source}: ${i.error?.message ?? ''}\n`);
    return batch.failed > 0 ? EXIT.PARTIAL : EXIT.OK;
  },
};
