import { CONFIG_KEYS, type ConfigKey } from '../config.js';
import type { ValueSpec } from '../value-spec.js';
import type { OptionSpec } from './options.js';

/**
 * A flag that sets a config key, typed by that key's own declaration in `CONFIG_KEYS`, so the flag
 * and the key (file, environment) accept the same values and say so in the same words.
 * A boolean key becomes an `on|off` choice (a flag that is present cannot say "off").
 */
export function configOption(key: ConfigKey, help: string, extra: Partial<OptionSpec> = {}): OptionSpec {
  const schema: ValueSpec = CONFIG_KEYS[key].schema;
  const typed: Pick<OptionSpec, 'type' | 'min' | 'max' | 'gt' | 'choices'> =
    schema.type === 'integer' || schema.type === 'number'
      ? {
          type: schema.type,
          ...(schema.min === undefined ? {} : { min: schema.min }),
          ...(schema.max === undefined ? {} : { max: schema.max }),
          ...(schema.gt === undefined ? {} : { gt: schema.gt }),
        }
      : schema.type === 'enum'
        ? { type: 'enum', choices: schema.choices }
        : schema.type === 'boolean'
          ? { type: 'enum', choices: ['on', 'off'] }
          : { type: 'string' };
  return { ...typed, help, config: key, ...extra };
}
