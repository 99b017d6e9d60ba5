import { QuiverError } from '../../errors.js';
import type { GeneratorName } from '../../index.js';
import { str, type Command } from '../command.js';
import { configOption } from '../config-option.js';
import { EXIT } from '../exit-codes.js';
import { markdownToPlain } from '../../text/plain-text.js';
import { RETRIEVAL_OPTIONS, searchOptionsFrom } from './retrieval-flags.js';
import { whereLabel } from './where-label.js';
import { groundedAskJson } from '../../wire/answers.js';

export const askCommand: Command = {
  name: 'ask',
  usage: 'quiver ask "question" [--generator extractive|openai] [--show-context] [--json]',
  options: {
    ...RETRIEVAL_OPTIONS,
    generator: configOption(
      'generator.provider',
      'extractive (offline) or openai (any OpenAI-compatible server)',
    ),
    'show-context': { type: 'boolean', help: 'also print the numbered sections the answer was built from' },
  },
  maxArgs: null,
  async run(ctx) {
    const question = ctx.positionals.join(' ').trim();
    if (question === '') throw new QuiverError('BAD_INPUT', 'quiver ask: give a question');
    const vault = await ctx.openVault();
    const gen = (str(ctx.values, 'generator') ?? vault.config['generator.provider']) as GeneratorName;
    const stream = !ctx.json && gen === 'openai' && ctx.io.stdout.isTTY === true;
    const r = await vault.ask(question, {
      ...searchOptionsFrom(ctx.values),
      generator: gen,
      ...(stream ? { onToken: (t: string) => ctx.out(t) } : {}),
    });
    if (ctx.json) {
      ctx.out(`${JSON.stringify(await groundedAskJson(r))}\n`);
      return EXIT.OK;
    }
    ctx.out(stream ? '\n\n' : `${markdownToPlain(r.answer)}\n\n`);
    if (r.cited.length > 0) {
      ctx.out('Sources:\n');
      for (const c of r.cited) ctx.out(`  [${c.n}] ${c.breadcrumb}  (${whereLabel(c)})\n`);
    }
    if (r.invalidCitations.length > 0)
      ctx.out(
        `Warning: the answer cites sections that do not exist: ${r.invalidCitations.map((n) => `[${n}]`).join(' ')}\n`,
      );
    if (ctx.values['show-context'] === true) {
      ctx.out('\nContext:\n');
      for (const c of r.context)
        ctx.out(`\n[${c.n}] ${c.breadcrumb}  (${whereLabel(c)})\n${markdownToPlain(c.text)}\n`);
    }
    return EXIT.OK;
  },
};
