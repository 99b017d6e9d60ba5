// The error class comes from its own small module and the rest of the library (`../index.js`)
// only when a command runs, so `quiver --help` starts without loading it.
import { VERSION } from '../version.js';
import { isQuiverError, QuiverError } from '../errors.js';
import type { ConfigKey, Vault } from '../index.js';
import { COMMANDS } from './commands/index.js';
import { GLOBAL_OPTIONS, type Subcommand } from './command.js';
import { splitCommand } from './argv.js';
import { commandHelp, overviewHelp, unknownOptionHint } from './help.js';
import { parseOptions, type OptionSpec } from './options.js';
import { EXIT, exitCodeFor } from './exit-codes.js';
import type { CliIO } from './io.js';

/**
 * The CLI: parse `argv` (without node and script), run the command, return the exit code.
 * Only `bin/quiver.js` calls `process.exit`. Errors are mapped to exit codes in one place.
 */
export async function main(argv: readonly string[], io: CliIO): Promise<number> {
  /** With `--json`, a failure is also a JSON line on stdout. */
  const jsonError = (e: QuiverError): void => {
    io.stdout.write(`${JSON.stringify({ error: { code: e.code, message: e.message } })}\n`);
  };
  // Global options may come before the command too (`quiver --vault v.db add notes/`).
  const { name, rest: moved, leading } = splitCommand(argv, GLOBAL_OPTIONS);
  const askedHelp = leading.includes('--help') || leading.includes('-h');
  if (name === 'help' && moved[0] !== undefined && !moved[0].startsWith('-')) {
    const target = COMMANDS.find((c) => c.name === moved[0]);
    if (target !== undefined) {
      io.stdout.write(commandHelp(target, await target.load(), moved[1]));
      return EXIT.OK;
    }
  }
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(overviewHelp());
    return name === undefined && !askedHelp ? EXIT.USAGE : EXIT.OK;
  }
  if (name === '--version') {
    io.stdout.write(`quiver ${VERSION}\n`);
    return EXIT.OK;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (entry === undefined) {
    io.stderr.write(`quiver: unknown command "${name}" (run 'quiver help' for the list)\n`);
    return EXIT.USAGE;
  }
  const cmd = await entry.load();
  // A command with subcommands takes the subcommand's name first; its options are its own.
  let sub: { name: string; spec: Subcommand } | undefined;
  let args = moved;
  if (cmd.subcommands !== undefined) {
    // Global options may come before the subcommand too (`quiver noise --json marks`).
    const { name: subName, rest: subRest, leading: subLeading } = splitCommand(moved, GLOBAL_OPTIONS);
    const spec = subName === undefined ? undefined : cmd.subcommands[subName];
    if (subName === undefined || spec === undefined) {
      if (subName === undefined || subName === '--help' || subName === '-h') {
        io.stdout.write(commandHelp(entry, cmd));
        const asked = subName !== undefined || subLeading.includes('--help') || subLeading.includes('-h');
        return asked ? EXIT.OK : EXIT.USAGE;
      }
      const names = Object.keys(cmd.subcommands).join(', ');
      io.stderr.write(`quiver ${cmd.name}: say ${names}, got ${JSON.stringify(subName)}\n`);
      return EXIT.USAGE;
    }
    sub = { name: subName, spec };
    args = subRest;
  }
  const path = sub === undefined ? cmd.name : `${cmd.name} ${sub.name}`;
  const where = `quiver ${path}`;
  const specs: Record<string, OptionSpec> = {
    ...GLOBAL_OPTIONS,
    ...(sub === undefined ? cmd.options : { ...cmd.options, ...sub.spec.options }),
  };
  let parsed;
  try {
    parsed = parseOptions(args, specs, where, (n) => unknownOptionHint(cmd, n));
    const max = sub === undefined ? cmd.maxArgs : sub.spec.maxArgs;
    if (parsed.values.help !== true && max !== null && parsed.positionals.length > max) {
      const extra = parsed.positionals.slice(max);
      throw new QuiverError(
        'BAD_INPUT',
        `${where}: unexpected argument${extra.length > 1 ? 's' : ''} ${extra.map((a) => JSON.stringify(a)).join(' ')} (it takes ${max === 0 ? 'none' : `at most ${max}`}; quote text that has spaces)`,
      );
    }
  } catch (e) {
    if (!isQuiverError(e)) throw e;
    io.stderr.write(`${e.message}\nRun 'quiver help ${path}' for its options.\n`);
    if (argv.includes('--json')) jsonError(e);
    return EXIT.USAGE;
  }
  const values = parsed.values;
  if (values.help === true) {
    io.stdout.write(commandHelp(entry, cmd, sub?.name));
    return EXIT.OK;
  }
  const overrides: Partial<Record<ConfigKey, unknown>> = {};
  for (const [n, o] of Object.entries(specs))
    if (o.config !== undefined && values[n] !== undefined) overrides[o.config] = values[n];
  const openOptions = {
    overrides,
    env: io.env,
    ...(typeof values.config === 'string' ? { configFile: values.config } : {}),
  };
  const json = values.json === true;
  const quiet = values.quiet === true;
  let vault: Vault | undefined;
  const signal = io.signal ?? new AbortController().signal;
  try {
    return await (sub?.spec.run ?? cmd.run)({
      signal,
      io,
      values,
      positionals: parsed.positionals,
      json,
      quiet,
      out: (s) => io.stdout.write(s),
      err: (s) => io.stderr.write(s),
      openVault: async (extra = {}) => {
        const { Vault: VaultClass } = await import('../vault.js');
        vault = await VaultClass.open({
          ...openOptions,
          logger: { warn: (m) => io.stderr.write(`${m}\n`) },
          ...extra,
        });
        return vault;
      },
      openOptions,
    });
  } catch (e) {
    const err = isQuiverError(e)
      ? e
      : new QuiverError('INTERNAL', `quiver: ${(e as Error).message ?? String(e)}`, { cause: e });
    if (json) jsonError(err);
    io.stderr.write(`${err.message}\n`);
    if (err.code === 'INTERNAL' && io.env.QUIVER_DEBUG !== undefined)
      io.stderr.write(`${(e as Error).stack ?? ''}\n`);
    return exitCodeFor(err.code);
  } finally {
    await vault?.close();
  }
}
