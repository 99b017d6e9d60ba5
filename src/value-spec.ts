/**
 * The types a configuration value or a command-line option may have, declared once and read in
 * one place, so a key and the flag that sets it agree and fail with the same words
 * (`must be an integer ≥ 1, got "abc"`). Small on purpose: the config is read by every command,
 * and a schema library costs a cold start more than the whole search.
 *
 * - `string`: text (`nonEmpty` refuses `''`).
 * - `integer` / `number`: a JSON number, or a string of a finite decimal number (`-3`, `0.5`,
 *   `1e3`, surrounding spaces ignored; not `''`, `0x10`, `Infinity`, `1e400`), integer-valued for
 *   `integer`, with `min ≤ x ≤ max` and `x > gt` when given.
 * - `boolean`: `true`/`false`, or the strings `true`, `false`, `1`, `0`, `on`, `off`.
 * - `enum`: one of `choices`, exactly.
 */
export type ValueSpec =
  | { readonly type: 'string'; readonly nonEmpty?: boolean }
  | {
      readonly type: 'integer' | 'number';
      readonly min?: number;
      readonly max?: number;
      readonly gt?: number;
    }
  | { readonly type: 'boolean' }
  | { readonly type: 'enum'; readonly choices: readonly string[] };

/** The TypeScript type of a value read by `spec`. */
export type ValueOf<S extends ValueSpec> = S extends { type: 'string' }
  ? string
  : S extends { type: 'integer' | 'number' }
    ? number
    : S extends { type: 'boolean' }
      ? boolean
      : S extends { type: 'enum'; choices: readonly (infer C)[] }
        ? C
        : never;

/** A number as text: `-3`, `0.5`, `-.5`, `1e3` (not `0x10`, `Infinity`, `''`). */
export const NUMBER_LIKE = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/** `an integer ≥ 1`, `a number from 0 to 1`, `one of topk, mmr, dartboard`: what a value must be. */
export function describeValue(spec: ValueSpec): string {
  switch (spec.type) {
    case 'integer':
    case 'number': {
      const { min, max, gt } = spec;
      const range =
        gt !== undefined
          ? ` > ${gt}`
          : min !== undefined && max !== undefined
            ? ` from ${min} to ${max}`
            : min !== undefined
              ? ` ≥ ${min}`
              : max !== undefined
                ? ` ≤ ${max}`
                : '';
      return `${spec.type === 'integer' ? 'an integer' : 'a number'}${range}`;
    }
    case 'enum':
      return `one of ${spec.choices.join(', ')}`;
    case 'boolean':
      return 'true or false';
    default:
      return spec.nonEmpty === true ? 'a non-empty string' : 'a string';
  }
}

/**
 * `raw` read as `spec`, or `undefined` when it is not such a value (the caller words the error with
 * `describeValue`). Edge cases: `1.0` is an integer; a number given where a string is expected is
 * refused, not converted.
 */
export function readValue(spec: ValueSpec, raw: unknown): string | number | boolean | undefined {
  switch (spec.type) {
    case 'integer':
    case 'number': {
      let n: number;
      if (typeof raw === 'number') n = raw;
      else if (typeof raw === 'string' && NUMBER_LIKE.test(raw.trim())) n = Number(raw.trim());
      else return undefined;
      if (!Number.isFinite(n) || (spec.type === 'integer' && !Number.isInteger(n))) return undefined;
      if (spec.min !== undefined && n < spec.min) return undefined;
      if (spec.max !== undefined && n > spec.max) return undefined;
      if (spec.gt !== undefined && !(n > spec.gt)) return undefined;
      return n;
    }
    case 'boolean':
      if (typeof raw === 'boolean') return raw;
      if (raw === 'true' || raw === '1' || raw === 'on') return true;
      if (raw === 'false' || raw === '0' || raw === 'off') return false;
      return undefined;
    case 'enum':
      return typeof raw === 'string' && spec.choices.includes(raw) ? raw : undefined;
    default:
      return typeof raw === 'string' && (spec.nonEmpty !== true || raw !== '') ? raw : undefined;
  }
}
