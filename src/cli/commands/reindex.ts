import type { Command } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { progressWithIndex } from '../progress.js';

export const reindexCommand: Command = {
  name: 'reindex',
  usage: 'quiver reindex [--refit]',
  options: { refit: { type: 'boolean', help: 'refit the built-in embedder on the vault first' } },
  maxArgs: 0,
  async run(ctx) {
    const vault = await ctx.openVault({ allowEmbedderMismatch: true });
    const { bar, onIndexProgress, stop } = progressWithIndex(ctx.io, ctx.quiet, 'reindex');
    let r;
    try {
      r = await vault.reindex({
        refit: ctx.values.refit === true,
        onProgress: (done, total) => bar.update(done, total, ''),
        onIndexProgress,
        signal: ctx.signal,
      });
    } finally {
      stop();
    }
    if (ctx.json) ctx.out(`${JSON.stringify(r)}\n`);
    else
      ctx.out(
        `reindexed ${r.chunks} chunks: ${r.from ?? '(none)'} → ${r.to}${r.resumed ? ' (resumed)' : ''}\n`,
      );
    return EXIT.OK;
  },
};
