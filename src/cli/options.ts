import { QuiverError } from '../errors.js';
import type { ConfigKey } from '../config.js';
import { describeValue as describeScalar, NUMBER_LIKE, readValue } from '../value-spec.js';

/**
 * How a command-line option is read, declared once per option. Every value is checked here and
 * nowhere else, so every flag fails with the same wording:
 * `quiver <command>: --<name> must be <what>, got "<value>"`.
 *
 * - `boolean`: present or not; `--flag=value` is an error.
 * - `string`: any text (a `value` of `FILE` or `DIR` makes shell completion offer paths).
 * - `integer` / `number`: a finite decimal number (`-3`, `0.5`, `1e3`; not `''`, `0x10`, `Infinity`),
 *   integer-valued for `integer`, within `min`..`max` when given.
 * - `enum`: one of `choices`.
 * - `list`: comma-separated items (`md,pdf`), each one of `choices` when given; empty items dropped.
 * `multiple` makes an option repeatable: every occurrence is kept in order (lists are concatenated).
 */
export interface OptionSpec {
  type: 'boolean' | 'string' | 'integer' | 'number' | 'enum' | 'list';
  short?: string;
  multiple?: boolean;
  help: string;
  /** The config key this flag overrides, if any. */
  config?: ConfigKey;
  min?: number;
  max?: number;
  gt?: number;
  choices?: readonly string[];
  /** The value's placeholder in help (`N`, `FILE`, `DIR`, `GLOB`); FILE and DIR complete paths. */
  value?: string;
}

export type OptionValue = string | number | boolean | string[] | number[];
export type ParsedValues = Record<string, OptionValue | undefined>;

/** `an integer ≥ 1`, `a number from 0 to 1`, `one of topk, mmr, dartboard`: what a value must be. */
export function describeValue(spec: OptionSpec): string {
  if (spec.type === 'list')
    return spec.choices === undefined
      ? 'a comma-separated list'
      : `a comma-separated list of ${spec.choices.join(', ')}`;
  return spec.type === 'integer' || spec.type === 'number' || spec.type === 'enum'
    ? describeScalar(scalar(spec))
    : 'a value';
}

/** The value-spec of a numeric or enum option (the one vocabulary the config uses too). */
function scalar(spec: OptionSpec): Parameters<typeof readValue>[0] {
  if (spec.type === 'enum') return { type: 'enum', choices: spec.choices ?? [] };
  return {
    type: spec.type === 'integer' ? 'integer' : 'number',
    ...(spec.min === undefined ? {} : { min: spec.min }),
    ...(spec.max === undefined ? {} : { max: spec.max }),
    ...(spec.gt === undefined ? {} : { gt: spec.gt }),
  };
}

/** The placeholder help shows after `--name`: `N`, `X`, `a|b|c`, `FILE`, or `VALUE`. */
export function placeholder(spec: OptionSpec): string {
  if (spec.value !== undefined) return spec.value;
  if (spec.type === 'enum' && spec.choices !== undefined) return spec.choices.join('|');
  if (spec.type === 'integer') return 'N';
  if (spec.type === 'number') return 'X';
  if (spec.type === 'list') return 'A,B';
  return 'VALUE';
}

function bad(where: string, name: string, spec: OptionSpec, raw: string): QuiverError {
  return new QuiverError(
    'BAD_INPUT',
    `${where}: --${name} must be ${describeValue(spec)}, got ${JSON.stringify(raw)}`,
  );
}

/**
 * One raw value read as its option's type (numbers and enums by `readValue`, as the config reads
 * them). Edge cases: surrounding spaces are ignored for numbers (`' 5'` is 5) but an empty or
 * all-space value is not a number; `1.0` is an integer; `1e400` is not finite and so not a number.
 */
export function coerceValue(
  raw: string,
  spec: OptionSpec,
  name: string,
  where: string,
): string | number | string[] {
  switch (spec.type) {
    case 'integer':
    case 'number':
    case 'enum': {
      const v = readValue(scalar(spec), raw);
      if (v === undefined) throw bad(where, name, spec, raw);
      return v as string | number;
    }
    case 'list': {
      const items = raw
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
      if (items.length === 0) throw bad(where, name, spec, raw);
      for (const item of items)
        if (spec.choices !== undefined && !spec.choices.includes(item)) throw bad(where, name, spec, item);
      return items;
    }
    default:
      return raw;
  }
}

/** The spec named by `--name`, `--name=v` or `-x`, with its long name and inline value if any. */
export function lookupOption(
  token: string,
  specs: Readonly<Record<string, OptionSpec>>,
): { name: string; spec: OptionSpec | undefined; inline: string | undefined } | null {
  if (token.startsWith('--') && token.length > 2) {
    const eq = token.indexOf('=');
    const name = token.slice(2, eq < 0 ? undefined : eq);
    return { name, spec: specs[name], inline: eq < 0 ? undefined : token.slice(eq + 1) };
  }
  if (token.length >= 2 && token.startsWith('-') && !NUMBER_LIKE.test(token)) {
    const letter = token.slice(1, 2);
    const hit = Object.entries(specs).find(([, o]) => o.short === letter);
    const inline = token.length > 2 ? token.slice(2).replace(/^=/, '') : undefined;
    return hit === undefined
      ? { name: token.slice(1), spec: undefined, inline }
      : { name: hit[0], spec: hit[1], inline };
  }
  return null;
}

export interface ParsedLine {
  values: ParsedValues;
  positionals: string[];
}

/**
 * Read a command's arguments against its options. `--name value`, `--name=value`, `-x value`,
 * `-xvalue`; `--` ends options; `-` and negative numbers (`-3`) not taken as a value are positionals.
 * A value option takes the next token unless it looks like another option (so `--limit --json`
 * says `--limit needs a value`; write `--text=--odd` for such a value). A non-repeatable option
 * given twice keeps the last value. Errors name the command (`where`) and the option; `unknownHint`
 * may add where an unknown option does belong.
 */
export function parseOptions(
  args: readonly string[],
  specs: Readonly<Record<string, OptionSpec>>,
  where: string,
  unknownHint: (name: string) => string = () => '',
): ParsedLine {
  const values: ParsedValues = {};
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const token = args[i]!;
    if (token === '--') {
      positionals.push(...args.slice(i + 1));
      break;
    }
    const hit = lookupOption(token, specs);
    if (hit === null) {
      positionals.push(token);
      continue;
    }
    const { name, spec } = hit;
    const flag = token.startsWith('--') ? `--${name}` : token.slice(0, 2);
    if (spec === undefined)
      throw new QuiverError('BAD_INPUT', `${where}: unknown option ${flag}${unknownHint(name)}`);
    if (spec.type === 'boolean') {
      if (hit.inline !== undefined)
        throw new QuiverError(
          'BAD_INPUT',
          `${where}: --${name} takes no value, got ${JSON.stringify(hit.inline)}`,
        );
      values[name] = true;
      continue;
    }
    let raw = hit.inline;
    if (raw === undefined) {
      const next = args[i + 1];
      if (next === undefined || (next.startsWith('-') && next !== '-' && !NUMBER_LIKE.test(next)))
        throw new QuiverError('BAD_INPUT', `${where}: --${name} needs a value (${placeholder(spec)})`);
      raw = next;
      i++;
    }
    const v = coerceValue(raw, spec, name, where);
    if (spec.multiple === true) {
      const prev = (values[name] ?? []) as (string | number)[];
      values[name] = [...prev, ...(Array.isArray(v) ? v : [v])] as string[] | number[];
    } else values[name] = v;
  }
  return { values, positionals };
}
