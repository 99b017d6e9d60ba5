import { QuiverError } from '../../errors.js';
import { GLOBAL_OPTIONS, type Command } from '../command.js';
import { bashCompletion, zshCompletion } from '../completion.js';
import { EXIT } from '../exit-codes.js';
import { COMMANDS } from './index.js';

export const completionCommand: Command = {
  name: 'completion',
  usage: 'quiver completion bash|zsh',
  options: {},
  maxArgs: 1,
  async run(ctx) {
    const shell = ctx.positionals[0];
    if (shell !== 'bash' && shell !== 'zsh')
      throw new QuiverError(
        'BAD_INPUT',
        `quiver completion: say bash or zsh, got ${shell === undefined ? 'nothing' : JSON.stringify(shell)}`,
      );
    const commands = await Promise.all(
      COMMANDS.map(async (c) => ({ name: c.name, summary: c.summary, command: await c.load() })),
    );
    ctx.out(
      shell === 'bash' ? bashCompletion(commands, GLOBAL_OPTIONS) : zshCompletion(commands, GLOBAL_OPTIONS),
    );
    return EXIT.OK;
  },
};
