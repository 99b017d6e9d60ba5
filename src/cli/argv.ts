import { lookupOption, type OptionSpec } from './options.js';

/**
 * Split a command line into the command name and its arguments, as git, docker or kubectl read it:
 * global options (`globals`) may come before the command (`quiver --vault v.db add notes/`) and are
 * moved after it, so one parser sees them wherever they were written. Leading tokens that are not
 * global options end the scan (`--version`, a mistyped flag): the first is returned as the name.
 * `--` ends option parsing. No token is dropped or changed; only their order differs.
 *
 * @example splitCommand(['--vault', 'v.db', 'add', 'x'], GLOBAL_OPTIONS)
 * // { name: 'add', rest: ['x', '--vault', 'v.db'] }
 */
export function splitCommand(
  argv: readonly string[],
  globals: Readonly<Record<string, OptionSpec>>,
): { name: string | undefined; rest: string[]; leading: string[] } {
  const leading: string[] = [];
  let i = 0;
  while (i < argv.length) {
    const token = argv[i]!;
    const hit = lookupOption(token, globals);
    if (hit?.spec === undefined) break;
    leading.push(token);
    if (hit.spec.type !== 'boolean' && hit.inline === undefined && i + 1 < argv.length)
      leading.push(argv[++i]!);
    i++;
  }
  const name = argv[i];
  const after = argv.slice(i + 1);
  const dashdash = after.indexOf('--');
  const rest =
    dashdash < 0
      ? [...after, ...leading]
      : [...after.slice(0, dashdash), ...leading, ...after.slice(dashdash)];
  return { name, rest, leading };
}
