import { existsSync } from 'node:fs';
import { QuiverError } from '../../errors.js';
import type { Command } from '../command.js';
import { EXIT } from '../exit-codes.js';

export const backupCommand: Command = {
  name: 'backup',
  usage: 'quiver backup FILE',
  options: { force: { type: 'boolean', help: 'overwrite FILE if it exists' } },
  maxArgs: 1,
  async run(ctx) {
    const dest = ctx.positionals[0];
    if (dest === undefined) throw new QuiverError('BAD_INPUT', 'quiver backup: give the file to write');
    if (existsSync(dest) && ctx.values.force !== true)
      throw new QuiverError('CONFLICT', `quiver backup: ${dest} exists; use --force to overwrite`);
    const vault = await ctx.openVault({ allowEmbedderMismatch: true, readonly: true });
    // A capability the backend declares: a server database is backed up with its own tools.
    if (vault.store.backup === undefined)
      throw new QuiverError(
        'UNSUPPORTED',
        `quiver backup: the ${vault.store.kind} store at ${vault.store.location} cannot be copied to a file; back it up with its own tools (PostgreSQL: pg_dump)`,
        { details: { store: vault.store.kind } },
      );
    await vault.store.backup(dest);
    if (ctx.json) ctx.out(`${JSON.stringify({ backup: dest })}\n`);
    else ctx.out(`backed up ${vault.store.location} to ${dest}\n`);
    return EXIT.OK;
  },
};
