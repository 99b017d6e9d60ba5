import type { OptionSpec } from './command.js';

/** A number as an option value may take: `-3`, `-0.5`, `-.5`, `-1e3` (so `--min-score -1000` works). */
const NEGATIVE_NUMBER = /^-(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/** The spec of `--name`, `--name=v` or `-x` among `specs`, with the token's inline value if any. */
function lookup(
  token: string,
  specs: Readonly<Record<string, OptionSpec>>,
): { spec: OptionSpec; inline: boolean } | null {
  if (token.startsWith('--')) {
    const eq = token.indexOf('=');
    const name = token.slice(2, eq < 0 ? undefined : eq);
    const spec = specs[name];
    return spec === undefined ? null : { spec, inline: eq >= 0 };
  }
  if (/^-[A-Za-z]$/.test(token)) {
    const spec = Object.values(specs).find((o) => o.short === token.slice(1));
    return spec === undefined ? null : { spec, inline: false };
  }
  return null;
}

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
    const hit = lookup(token, globals);
    if (hit === null) break;
    leading.push(token);
    if (hit.spec.type === 'string' && !hit.inline && i + 1 < argv.length) leading.push(argv[++i]!);
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

/**
 * Join a numeric-looking value to its option (`--min-score -1000` → `--min-score=-1000`) for every
 * string option in `specs`, so Node's parser does not take the value for an unknown short flag.
 * Anything else, and everything after `--`, passes unchanged.
 */
export function joinNegativeValues(
  args: readonly string[],
  specs: Readonly<Record<string, OptionSpec>>,
): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const token = args[i]!;
    if (token === '--') return [...out, ...args.slice(i)];
    const hit = lookup(token, specs);
    const next = args[i + 1];
    if (
      hit !== null &&
      hit.spec.type === 'string' &&
      !hit.inline &&
      next !== undefined &&
      NEGATIVE_NUMBER.test(next)
    ) {
      out.push(`${token.startsWith('--') ? token : `--${nameOf(token, specs)}`}=${next}`);
      i++;
    } else out.push(token);
  }
  return out;
}

/** The long name of a short flag `-x`. */
function nameOf(short: string, specs: Readonly<Record<string, OptionSpec>>): string {
  return Object.entries(specs).find(([, o]) => o.short === short.slice(1))?.[0] ?? short.slice(1);
}
