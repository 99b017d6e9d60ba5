import type { OpenVaultOptions, Vault } from '../index.js';
import type { CliIO } from './io.js';
import type { OptionSpec, ParsedValues } from './options.js';

export type { OptionSpec, ParsedValues } from './options.js';

export interface CommandContext {
  io: CliIO;
  values: ParsedValues;
  positionals: string[];
  /**
   * Opens the vault with the global flags and this command's config overrides. `readonly` for
   * commands that only read: a missing vault is then exit 3 and nothing is ever created or changed.
   */
  openVault: (extra?: { allowEmbedderMismatch?: boolean; readonly?: boolean }) => Promise<Vault>;
  /** What `openVault` opens the vault with, as plain data (a worker thread opens the same vault). */
  openOptions: Pick<OpenVaultOptions, 'overrides' | 'env' | 'configFile'>;
  /** Aborted by SIGINT/SIGTERM: long commands stop after the current document (exit 130). */
  signal: AbortSignal;
  json: boolean;
  quiet: boolean;
  /** Standard output: text, or UTF-8 bytes already encoded. */
  out: (s: string | Uint8Array) => void;
  err: (s: string) => void;
}

/**
 * A CLI command, declared as data: its name, options, how many positional arguments it takes
 * (`maxArgs`; `null` for any number) and a run function returning an exit code. A command with
 * `subcommands` (`noise suggest`, `ranker fit`) takes the subcommand's name first, and each
 * subcommand has options of its own, so `noise marks --k 5` is an error naming `--k`.
 */
export interface Command {
  name: string;
  usage: string;
  options: Record<string, OptionSpec>;
  maxArgs: number | null;
  run: (ctx: CommandContext) => Promise<number>;
  subcommands?: Record<string, Subcommand>;
}

/** One subcommand: its own usage line, summary, options and positional limit. */
export interface Subcommand {
  usage: string;
  summary: string;
  options: Record<string, OptionSpec>;
  maxArgs: number | null;
  run: (ctx: CommandContext) => Promise<number>;
}

/** Flags every command accepts. */
export const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  vault: {
    type: 'string',
    value: 'FILE',
    help: 'vault file (default .quiver/vault.db, or $QUIVER_VAULT)',
    config: 'vault',
  },
  config: { type: 'string', value: 'FILE', help: 'config file (default quiver.config.json)' },
  json: { type: 'boolean', help: 'machine-readable JSON on stdout' },
  quiet: { type: 'boolean', short: 'q', help: 'no progress output' },
  wait: {
    type: 'number',
    min: 0,
    value: 'SECONDS',
    help: 'seconds a write waits for another quiver writer before exit 8 (default 0)',
    config: 'writer.waitSeconds',
  },
  help: { type: 'boolean', short: 'h', help: 'show help' },
};

/** Read a numeric flag (already checked against its spec by the parser). */
export function num(values: ParsedValues, name: string): number | undefined {
  const v = values[name];
  return typeof v === 'number' ? v : undefined;
}

/** Read a string flag. */
export function str(values: ParsedValues, name: string): string | undefined {
  const v = values[name];
  return typeof v === 'string' ? v : undefined;
}

/** Read a repeatable string flag. */
export function strs(values: ParsedValues, name: string): string[] | undefined {
  const v = values[name];
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === 'string');
  return typeof v === 'string' ? [v] : undefined;
}
