/**
 * Named eval configurations: what `quiver eval --config a.json` reads, what `--variant select=mmr`
 * builds, and how settings become the Vault's `SearchOptions` / `AskOptions`.
 *
 * A config file: `{"name": "mmr", "settings": {"select": "mmr", "legs": "both", "limit": 10}}`.
 * Settings (all optional; anything left out comes from the vault's configuration):
 * - `select`: `topk | mmr | dartboard`, or an object of selection options
 *   (`{"method": "mmr", "lambda": 0.7}`);
 * - `mode`: `any | all | phrase`; `legs`: `lexical | vector | both`;
 * - `vectorWeight`, `lexicalWeight`: RRF weights;
 * - `limit`: results retrieved for the retrieval metrics (recall@100 needs ≥ 100);
 * - `contextSections`: sections given to the generator (defaults to the vault's `context.sections`);
 * - `generator`: `extractive | openai`; `judge`: `lexical | fact-id | llm`.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { QuiverError } from '../errors.js';
import type { SelectionOptions } from '../retrieve/sections.js';
import type { AskOptions, SearchOptions } from '../vault.js';

/** The judges `quiver eval --judge` knows. */
export const JUDGE_NAMES = ['lexical', 'fact-id', 'llm'] as const;
export type JudgeName = (typeof JUDGE_NAMES)[number];

/** The judge used when none is named: the lexical proxy (offline, cheap, not entailment). */
export const DEFAULT_JUDGE: JudgeName = 'lexical';

/** The name of the config used when none is given. */
export const DEFAULT_CONFIG_NAME = 'default';

const selectMethod = z.enum(['topk', 'mmr', 'dartboard']);

const settingsSchema = z
  .object({
    select: z
      .union([
        selectMethod,
        z
          .object({
            method: selectMethod.optional(),
            oversample: z.number().positive().optional(),
            sigma: z.number().positive().optional(),
            diversityWeight: z.number().optional(),
            relevanceWeight: z.number().optional(),
            lambda: z.number().min(0).max(1).optional(),
            relevance: z.enum(['scores', 'cosine']).optional(),
            temperature: z.number().positive().optional(),
            foldNearCopies: z.boolean().optional(),
          })
          .strict(),
      ])
      .optional(),
    mode: z.enum(['any', 'all', 'phrase']).optional(),
    legs: z.enum(['lexical', 'vector', 'both']).optional(),
    vectorWeight: z.number().min(0).optional(),
    lexicalWeight: z.number().min(0).optional(),
    limit: z.number().int().min(1).max(1000).optional(),
    contextSections: z.number().int().min(1).max(50).optional(),
    generator: z.enum(['extractive', 'openai']).optional(),
    judge: z.enum(JUDGE_NAMES).optional(),
  })
  .strict();

/** The settings of one config (see the module comment). */
export type EvalSettings = z.infer<typeof settingsSchema>;

/** One named configuration. */
export interface EvalConfig {
  name: string;
  settings: EvalSettings;
}

const configSchema = z.object({ name: z.string().min(1), settings: settingsSchema.optional() }).strict();

function firstIssue(err: z.ZodError): string {
  const issue = err.issues[0];
  const path = issue === undefined || issue.path.length === 0 ? '' : `${issue.path.join('.')} `;
  return `${path}${issue?.message ?? 'is invalid'}`;
}

/** Validate settings (throws `BAD_INPUT` naming `where` and the offending field). */
export function parseEvalSettings(value: unknown, where = 'settings'): EvalSettings {
  const res = settingsSchema.safeParse(value);
  if (!res.success) throw new QuiverError('BAD_INPUT', `quiver: ${where}: ${firstIssue(res.error)}`);
  return res.data;
}

/** Validate a config object `{name, settings}`. */
export function parseEvalConfig(value: unknown, where = 'config'): EvalConfig {
  const res = configSchema.safeParse(value);
  if (!res.success) throw new QuiverError('BAD_INPUT', `quiver: ${where}: ${firstIssue(res.error)}`);
  return { name: res.data.name, settings: res.data.settings ?? {} };
}

/** Read a config JSON file (`UNREADABLE` if it cannot be read, `BAD_INPUT` if it is not a config). */
export function readEvalConfig(path: string): EvalConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new QuiverError('UNREADABLE', `quiver: cannot read config ${path}: ${(e as Error).message}`, {
      cause: e,
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new QuiverError('BAD_INPUT', `quiver: config ${path} is not JSON: ${(e as Error).message}`);
  }
  return parseEvalConfig(json, `config ${path}`);
}

const NUMERIC_KEYS = new Set(['vectorWeight', 'lexicalWeight', 'limit', 'contextSections']);
const KEY_ALIASES: Record<string, string> = {
  'vector-weight': 'vectorWeight',
  'lexical-weight': 'lexicalWeight',
  'context-sections': 'contextSections',
};

/** Settings from `key=value` pairs; `select.lambda=0.7` sets a selection option. */
function settingsFromPairs(pairs: readonly [string, string][], where: string): EvalSettings {
  const raw: Record<string, unknown> = {};
  const select: Record<string, unknown> = {};
  for (const [k0, v] of pairs) {
    const k = KEY_ALIASES[k0] ?? k0;
    if (k.startsWith('select.')) {
      const sub = k.slice('select.'.length);
      const n = Number(v);
      select[sub] =
        v === 'true' ? true : v === 'false' ? false : v.trim() !== '' && Number.isFinite(n) ? n : v;
    } else raw[k] = NUMERIC_KEYS.has(k) && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v;
  }
  if (Object.keys(select).length > 0) {
    raw.select = typeof raw.select === 'string' ? { method: raw.select, ...select } : select;
  }
  return parseEvalSettings(raw, where);
}

function splitPair(s: string, where: string): [string, string] {
  const eq = s.indexOf('=');
  if (eq <= 0)
    throw new QuiverError('BAD_INPUT', `quiver: ${where} must be key=value, got ${JSON.stringify(s)}`);
  return [s.slice(0, eq).trim(), s.slice(eq + 1).trim()];
}

/**
 * One built-in variant: `select=mmr`, or several settings joined by commas
 * (`select=mmr,legs=lexical`, `select.lambda=0.7`). The config is named by the text as given.
 *
 * @example parseVariant('select=mmr') // {name: 'select=mmr', settings: {select: 'mmr'}}
 */
export function parseVariant(spec: string): EvalConfig {
  const parts = spec
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (parts.length === 0) throw new QuiverError('BAD_INPUT', 'quiver: --variant must be key=value, got ""');
  const where = `--variant ${spec}`;
  return {
    name: parts.join(','),
    settings: settingsFromPairs(
      parts.map((p) => splitPair(p, '--variant')),
      where,
    ),
  };
}

/**
 * A family of variants over one key: `select=topk,mmr,dartboard` → three configs named
 * `select=topk`, `select=mmr`, `select=dartboard`.
 */
export function parseVariants(spec: string): EvalConfig[] {
  const [key, values] = splitPair(spec, '--variants');
  const list = values
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
  if (list.length === 0) throw new QuiverError('BAD_INPUT', `quiver: --variants ${spec} lists no values`);
  return list.map((v) => ({
    name: `${key}=${v}`,
    settings: settingsFromPairs([[key, v]], `--variants ${spec}`),
  }));
}

/** Reject repeated config names (comparisons are keyed by name). */
export function checkConfigNames(configs: readonly EvalConfig[]): void {
  const seen = new Set<string>();
  for (const c of configs) {
    if (seen.has(c.name))
      throw new QuiverError('BAD_INPUT', `quiver: two configs are named ${JSON.stringify(c.name)}`);
    seen.add(c.name);
  }
}

function selectionOf(s: EvalSettings): Partial<SelectionOptions> | undefined {
  if (s.select === undefined) return undefined;
  if (typeof s.select === 'string') return { method: s.select };
  const out: Partial<SelectionOptions> = {};
  for (const [k, v] of Object.entries(s.select)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

/** The retrieval options of a config (for `vault.search`); `limit` is the retrieval depth. */
export function searchOptionsOf(s: EvalSettings): SearchOptions {
  const select = selectionOf(s);
  return {
    ...(s.limit === undefined ? {} : { limit: s.limit }),
    ...(s.mode === undefined ? {} : { mode: s.mode }),
    ...(s.legs === undefined ? {} : { legs: s.legs }),
    ...(s.vectorWeight === undefined ? {} : { vectorWeight: s.vectorWeight }),
    ...(s.lexicalWeight === undefined ? {} : { lexicalWeight: s.lexicalWeight }),
    ...(select === undefined ? {} : { select }),
  };
}

/** The answering options of a config (for `vault.ask`): the context size replaces the retrieval limit. */
export function askOptionsOf(s: EvalSettings): AskOptions {
  const rest = searchOptionsOf(s);
  delete rest.limit;
  return {
    ...rest,
    ...(s.contextSections === undefined ? {} : { limit: s.contextSections }),
    ...(s.generator === undefined ? {} : { generator: s.generator }),
  };
}
