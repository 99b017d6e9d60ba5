import { QuiverError } from '../../errors.js';
import type { Command } from '../command.js';
import { str } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { mb, table } from '../table.js';

export const batchesCommand: Command = {
  name: 'batches',
  usage: 'quiver batches',
  options: {},
  maxArgs: 0,
  async run(ctx) {
    const vault = await ctx.openVault({ readonly: true });
    const batches = await vault.batches();
    if (ctx.json) ctx.out(`${JSON.stringify(batches)}\n`);
    else
      ctx.out(
        table(
          ['batch', 'status', 'started', 'added', 'updated', 'removed', 'unchanged', 'failed', 'label'],
          batches.map((b) => [
            b.id,
            b.status,
            b.startedAt.replace('T', ' ').slice(0, 19),
            b.added,
            b.updated,
            b.removed,
            b.unchanged,
            b.failed,
            b.label,
          ]),
        ),
      );
    return EXIT.OK;
  },
};

export const undoCommand: Command = {
  name: 'undo',
  usage: 'quiver undo [--batch ID]',
  options: {
    batch: { type: 'string', value: 'ID', help: 'the batch to roll back (must be the newest live one)' },
  },
  maxArgs: 0,
  async run(ctx) {
    const vault = await ctx.openVault();
    const r = await vault.undo(str(ctx.values, 'batch'), { signal: ctx.signal });
    if (ctx.json) ctx.out(`${JSON.stringify(r)}\n`);
    else
      ctx.out(
        `rolled back batch ${r.batchId}: ${r.removed} document versions removed, ${r.restored} restored\n`,
      );
    return EXIT.OK;
  },
};

export const rmCommand: Command = {
  name: 'rm',
  usage: 'quiver rm <doc id|source|folder/> [...]',
  options: {},
  maxArgs: null,
  async run(ctx) {
    if (ctx.positionals.length === 0)
      throw new QuiverError(
        'BAD_INPUT',
        'quiver rm: give at least one document id, source, or folder/ prefix',
      );
    const vault = await ctx.openVault();
    const r = await vault.rm(ctx.positionals, { signal: ctx.signal });
    if (ctx.json)
      ctx.out(
        `${JSON.stringify({ batch: r.batch.id, removed: r.removed.map((d) => ({ id: d.id, source: d.source })) })}\n`,
      );
    else {
      for (const d of r.removed) ctx.out(`removed  ${d.source}  (${d.id})\n`);
      ctx.out(`batch ${r.batch.id}: ${r.batch.removed} removed (\`quiver undo\` brings them back)\n`);
    }
    return EXIT.OK;
  },
};

export const compactCommand: Command = {
  name: 'compact',
  usage: 'quiver compact',
  options: {},
  maxArgs: 0,
  async run(ctx) {
    const vault = await ctx.openVault();
    const r = await vault.compact();
    if (ctx.json) ctx.out(`${JSON.stringify(r)}\n`);
    else
      ctx.out(
        `compacted ${vault.store.location}: ${mb(r.bytesBefore)} → ${mb(r.bytesAfter)}; ${r.vectorsRemoved} stale vectors and ${r.removedFiles.length} orphaned files removed\n`,
      );
    return EXIT.OK;
  },
};
