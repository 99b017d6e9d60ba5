import type { Command } from '../command.js';
import { str } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { table } from '../table.js';

export const batchesCommand: Command = {
  name: 'batches',
  summary: 'list ingest batches, newest first',
  usage: 'quiver batches',
  options: {},
  async run(ctx) {
    const vault = await ctx.openVault();
    const batches = await vault.batches();
    if (ctx.json) ctx.out(`${JSON.stringify(batches)}\n`);
    else
      ctx.out(
        table(
          ['batch', 'status', 'started', 'added', 'updated', 'unchanged', 'failed', 'label'],
          batches.map((b) => [
            b.id,
            b.status,
            b.startedAt.replace('T', ' ').slice(0, 19),
            b.added,
            b.updated,
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
  summary: 'roll back the last batch exactly (an update restores the previous version)',
  usage: 'quiver undo [--batch ID]',
  options: { batch: { type: 'string', help: 'the batch to roll back (must be the newest live one)' } },
  async run(ctx) {
    const vault = await ctx.openVault();
    const r = await vault.undo(str(ctx.values, 'batch'));
    if (ctx.json) ctx.out(`${JSON.stringify(r)}\n`);
    else
      ctx.out(
        `rolled back batch ${r.batchId}: ${r.removed} document versions removed, ${r.restored} restored\n`,
      );
    return EXIT.OK;
  },
};
