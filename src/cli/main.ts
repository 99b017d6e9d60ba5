import { parseArgs } from 'node:util';
// The error class comes from its own small module and the rest of the library (`../index.js`)
// only when a command runs, so `quiver --help` starts without loading it.
import { isQuiverError, QuiverError } from '../errors.js';
import type { ConfigKey, Vault } from '../index.js';
import { COMMANDS, type CommandEntry } from './commands/index.js';
import { GLOBAL_OPTIONS, type Command, type OptionSpec } from './command.js';
import { joinNegativeValues, splitCommand } from './argv.js';
import { EXIT, exitCodeFor } from './exit-codes.js';
import type { CliIO } from './io.js';

function helpText(entry?: CommandEntry, cmd?: Command): string {
  if (entry === undefined || cmd === undefined) {
    const w = Math.max(...COMMANDS.map((c) => c.name.length));
    return [
      'quiver: a local-first RAG vault',
      '',
      'usage: quiver [global options] <command> [options]',
      '',
      ...COMMANDS.map((c) => `  ${c.name.padEnd(w)}  ${c.summary}`),
      '',
      'Global options: --vault FILE, --config FILE, --wait SECONDS, --json, --quiet, --help',
      "Run 'quiver help <command>' (or 'quiver <command> --help') for a command's options.",
      '',
    ].join('\n');
  }
  const opts = Object.entries({ ...GLOBAL_OPTIONS, ...cmd.options });
  const w = Math.max(...opts.map(([n, o]) => n.length + (o.type === 'string' ? 6 : 0)));
  return [
    `usage: ${cmd.usage}`,
    '',
    entry.summary,
    '',
    ...opts.map(([n, o]) => `  --${(n + (o.type === 'string' ? ' VALUE' : '')).padEnd(w)}  ${o.help}`),
    '',
  ].join('\n');
}

/**
 * The CLI: parse `argv` (without node and script), run the command, return the exit code.
 * Only `bin/quiver.js` calls `process.exit`. Errors are mapped to exit codes in one place.
 */
export async function main(argv: readonly string[], io: CliIO): Promise<number> {
  // Global options may come before the command too (`quiver --vault v.db add notes/`).
  const { name, rest: moved, leading } = splitCommand(argv, GLOBAL_OPTIONS);
  const askedHelp = leading.includes('--help') || leading.includes('-h');
  if (name === 'help' && moved[0] !== undefined && !moved[0].startsWith('-')) {
    const target = COMMANDS.find((c) => c.name === moved[0]);
    if (target !== undefined) {
      io.stdout.write(helpText(target, await target.load()));
      return EXIT.OK;
    }
  }
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(helpText());
    return name === undefined && !askedHelp ? EXIT.USAGE : EXIT.OK;
  }
  if (name === '--version') {
    io.stdout.write('quiver 0.1.0\n');
    return EXIT.OK;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (entry === undefined) {
    io.stderr.write(`quiver: unknown command "${name}"\n\n${helpText()}`);
    return EXIT.USAGE;
  }
  const cmd = await entry.load();
  const specs: Record<string, OptionSpec> = { ...GLOBAL_OPTIONS, ...cmd.options };
  const rest = joinNegativeValues(moved, specs);
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      options: Object.fromEntries(
        Object.entries(specs).map(([n, o]) => [
          n,
          {
            type: o.type,
            ...(o.short === undefined ? {} : { short: o.short }),
            ...(o.multiple === true ? { multiple: true } : {}),
          },
        ]),
      ),
      allowPositionals: true,
      strict: true,
    });
  } catch (e) {
    io.stderr.write(`quiver ${cmd.name}: ${(e as Error).message}\n\n${helpText(entry, cmd)}`);
    return EXIT.USAGE;
  }
  const values = parsed.values as Record<string, string | boolean | string[] | boolean[] | undefined>;
  if (values.help === true) {
    io.stdout.write(helpText(entry, cmd));
    return EXIT.OK;
  }
  const overrides: Partial<Record<ConfigKey, unknown>> = {};
  for (const [n, o] of Object.entries(specs))
    if (o.config !== undefined && values[n] !== undefined) overrides[o.config] = values[n];
  const json = values.json === true;
  const quiet = values.quiet === true;
  let vault: Vault | undefined;
  const signal = io.signal ?? new AbortController().signal;
  try {
    return await cmd.run({
      signal,
      io,
      values,
      positionals: parsed.positionals,
      json,
      quiet,
      out: (s) => io.stdout.write(s),
      err: (s) => io.stderr.write(s),
      openVault: async (extra = {}) => {
        const { Vault: VaultClass } = await import('../index.js');
        vault = await VaultClass.open({
          overrides,
          env: io.env,
          logger: { warn: (m) => io.stderr.write(`${m}\n`) },
          ...(typeof values.config === 'string' ? { configFile: values.config } : {}),
          ...extra,
        });
        return vault;
      },
    });
  } catch (e) {
    const err = isQuiverError(e)
      ? e
      : new QuiverError('INTERNAL', `quiver: ${(e as Error).message ?? String(e)}`, { cause: e });
    if (json) io.stdout.write(`${JSON.stringify({ error: { code: err.code, message: err.message } })}\n`);
    io.stderr.write(`${err.message}\n`);
    if (err.code === 'INTERNAL' && io.env.QUIVER_DEBUG !== undefined)
      io.stderr.write(`${(e as Error).stack ?? ''}\n`);
    return exitCodeFor(err.code);
  } finally {
    await vault?.close();
  }
}
