import { closest } from '../text/edit-distance.js';
import { COMMANDS, type CommandEntry } from './commands/index.js';
import { GLOBAL_OPTIONS, type Command } from './command.js';
import { placeholder, type OptionSpec } from './options.js';

/** `quiver --help`: every command with its one-line summary. */
export function overviewHelp(): string {
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

/** `--limit N`, `-k, --limit N`: an option as help lists it. */
function optionLabel(name: string, o: OptionSpec): string {
  const value = o.type === 'boolean' ? '' : ` ${placeholder(o)}`;
  return `${o.short === undefined ? '    ' : `-${o.short}, `}--${name}${value}${o.multiple === true ? ' …' : ''}`;
}

function optionLines(options: Readonly<Record<string, OptionSpec>>): string[] {
  const rows = Object.entries(options).map(([n, o]) => [optionLabel(n, o), o.help] as const);
  const w = Math.min(36, Math.max(...rows.map(([l]) => l.length)));
  return rows.map(([l, h]) => (l.length > w ? `  ${l}\n  ${''.padEnd(w)}  ${h}` : `  ${l.padEnd(w)}  ${h}`));
}

/**
 * `quiver help <command> [subcommand]`: usage, summary, subcommands and options. A command's own
 * options come first, then the global ones.
 */
export function commandHelp(entry: CommandEntry, cmd: Command, subName?: string): string {
  const sub = subName === undefined ? undefined : cmd.subcommands?.[subName];
  if (sub !== undefined) {
    return [
      `usage: ${sub.usage}`,
      '',
      sub.summary,
      '',
      ...(Object.keys(sub.options).length + Object.keys(cmd.options).length > 0
        ? ['Options:', ...optionLines({ ...cmd.options, ...sub.options }), '']
        : []),
      'Global options:',
      ...optionLines(GLOBAL_OPTIONS),
      '',
    ].join('\n');
  }
  const subs = Object.entries(cmd.subcommands ?? {});
  const w = Math.max(0, ...subs.map(([n]) => n.length));
  return [
    `usage: ${cmd.usage}`,
    '',
    entry.summary,
    '',
    ...(subs.length > 0
      ? [
          'Subcommands:',
          ...subs.map(([n, s]) => `  ${n.padEnd(w)}  ${s.summary}`),
          '',
          `Run 'quiver help ${cmd.name} <subcommand>' for its options.`,
          '',
        ]
      : []),
    ...(Object.keys(cmd.options).length > 0 ? ['Options:', ...optionLines(cmd.options), ''] : []),
    'Global options:',
    ...optionLines(GLOBAL_OPTIONS),
    '',
  ].join('\n');
}

/**
 * What an unknown option's error adds: the subcommands it does belong to (`--k` on `noise marks`
 * belongs to `noise suggest` and `noise accept`), else the closest option name of this command.
 */
export function unknownOptionHint(cmd: Command, name: string): string {
  const owners = Object.entries(cmd.subcommands ?? {})
    .filter(([, s]) => s.options[name] !== undefined)
    .map(([n]) => `quiver ${cmd.name} ${n}`);
  if (owners.length > 0) return ` (it belongs to ${owners.join(', ')})`;
  const names = new Set([
    ...Object.keys(GLOBAL_OPTIONS),
    ...Object.keys(cmd.options),
    ...Object.values(cmd.subcommands ?? {}).flatMap((s) => Object.keys(s.options)),
  ]);
  const near = closest(name, names);
  return near === null ? '' : ` (did you mean --${near}?)`;
}
