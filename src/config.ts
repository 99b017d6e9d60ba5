import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { QuiverError } from './errors.js';
import { redactLocation } from './store/location.js';
import { describeValue, readValue, type ValueOf, type ValueSpec } from './value-spec.js';
import { DEFAULT_PRF_DOCS, DEFAULT_PRF_TERMS, DEFAULT_PRF_WEIGHT } from './retrieve/prf.js';
import { DEFAULT_MIN_SIMILARITY } from './retrieve/vector-floor.js';
import {
  DEFAULT_ANN_THRESHOLD,
  DEFAULT_POSTGRES_ANN_THRESHOLD,
  DEFAULT_HNSW_EF_CONSTRUCTION,
  DEFAULT_HNSW_EF_SEARCH,
  DEFAULT_HNSW_M,
  DEFAULT_LEXICAL_INDEX_THRESHOLD,
} from './store/index-defaults.js';

/**
 * One configuration object. Precedence: defaults < `quiver.config.json` (or `--config FILE`, or
 * `QUIVER_CONFIG`) < `QUIVER_*` environment variables < explicit overrides (CLI flags).
 * Every key is listed once below with its type, default and environment variable, so `quiver doctor`
 * can say where each value came from. Unknown keys and bad values are errors that name the key.
 * Secrets never live here: only the *name* of the environment variable that holds a key.
 */
const str = { type: 'string' } as const;
const num = (range: { min?: number; max?: number; gt?: number } = {}) =>
  ({ type: 'number', ...range }) as const;
const int = (range: { min?: number; max?: number } = {}) => ({ type: 'integer', ...range }) as const;
const bool = { type: 'boolean' } as const;
const oneOf = <const C extends readonly string[]>(...choices: C) => ({ type: 'enum', choices }) as const;

export const CONFIG_KEYS = {
  vault: {
    schema: { type: 'string', nonEmpty: true } as const,
    default: '.quiver/vault.db',
    env: 'QUIVER_VAULT',
    help: 'vault file (SQLite); its project folder is the ingest root',
  },
  store: {
    schema: str,
    default: '',
    env: 'QUIVER_STORE',
    help: "where the vault's data lives: empty for the file `vault`, or a URL (sqlite:PATH, postgres://user@host/db: ingest root is the config file's folder); a --vault flag wins",
  },
  'embedder.provider': {
    schema: oneOf('builtin', 'openai', 'transformers'),
    default: 'builtin',
    env: 'QUIVER_EMBEDDER',
    help: 'embedder back end',
  },
  'embedder.model': {
    schema: str,
    default: '',
    env: 'QUIVER_EMBEDDER_MODEL',
    help: 'model id or folder (openai/transformers)',
  },
  'embedder.baseURL': {
    schema: str,
    default: '',
    env: 'QUIVER_EMBEDDER_URL',
    help: 'OpenAI-compatible base URL for embeddings',
  },
  'embedder.apiKeyEnv': {
    schema: str,
    default: 'OPENAI_API_KEY',
    env: 'QUIVER_EMBEDDER_KEY_ENV',
    help: 'environment variable holding the embeddings API key',
  },
  'embedder.dims': {
    schema: int({ min: 0 }),
    default: 0,
    env: 'QUIVER_EMBEDDER_DIMS',
    help: 'vector size (0 = the back end default)',
  },
  'ingest.chunkChars': {
    schema: int({ min: 64, max: 8192 }),
    default: 512,
    env: 'QUIVER_CHUNK_CHARS',
    help: 'chunk target in characters',
  },
  'store.busyTimeoutMs': {
    schema: int({ min: 0 }),
    default: 5000,
    env: 'QUIVER_BUSY_TIMEOUT_MS',
    help: 'how long a write waits for another connection holding the SQLite write lock, in ms',
  },
  'store.replica': {
    schema: str,
    default: '',
    env: 'QUIVER_STORE_REPLICA',
    help: 'a hot standby of the PostgreSQL `store` (postgres://user@host/db) that search and ask read from, except what this process wrote and it has not replayed yet; empty for none',
  },
  'writer.waitSeconds': {
    schema: num({ min: 0 }),
    default: 0,
    env: 'QUIVER_WAIT',
    help: 'how long a write command waits for another quiver writer before refusing (exit 8), in s',
  },
  'ingest.maxFileBytes': {
    schema: int({ min: 1 }),
    default: 50 * 1024 * 1024,
    env: 'QUIVER_MAX_FILE_BYTES',
    help: 'largest file ingested',
  },
  'search.mode': {
    schema: oneOf('any', 'all', 'phrase'),
    default: 'any',
    env: 'QUIVER_QUERY_MODE',
    help: 'lexical query mode',
  },
  'search.limit': {
    schema: int({ min: 1, max: 1000 }),
    default: 10,
    env: 'QUIVER_LIMIT',
    help: 'results returned',
  },
  'search.lexicalWeight': {
    schema: num({ min: 0 }),
    default: 1,
    env: 'QUIVER_LEXICAL_WEIGHT',
    help: 'RRF weight of the lexical leg',
  },
  'search.vectorWeight': {
    schema: num({ min: 0 }),
    default: 0.05,
    env: 'QUIVER_VECTOR_WEIGHT',
    help: 'RRF weight of the vector leg',
  },
  'search.minSimilarity': {
    schema: num({ min: -1, max: 1 }),
    default: DEFAULT_MIN_SIMILARITY,
    env: 'QUIVER_MIN_SIMILARITY',
    help: 'lowest cosine of a vector-leg hit (hits also need cosine > 0)',
  },
  'search.rrfK': { schema: num({ min: 0 }), default: 60, env: 'QUIVER_RRF_K', help: 'RRF k' },
  'search.titleWeight': {
    schema: num({ min: 0 }),
    default: 3,
    env: 'QUIVER_TITLE_WEIGHT',
    help: 'BM25 weight of the document title column',
  },
  'search.headingWeight': {
    schema: num({ min: 0 }),
    default: 1,
    env: 'QUIVER_HEADING_WEIGHT',
    help: 'BM25 weight of the section heading column',
  },
  'search.feedbackWeight': {
    schema: num({ min: 0 }),
    default: DEFAULT_PRF_WEIGHT,
    env: 'QUIVER_FEEDBACK_WEIGHT',
    help: 'weight of the pseudo-relevance feedback pass in the lexical leg (0 = off)',
  },
  'search.feedbackDocs': {
    schema: int({ min: 1 }),
    default: DEFAULT_PRF_DOCS,
    env: 'QUIVER_FEEDBACK_DOCS',
    help: 'best sections of the first pass that lend feedback terms',
  },
  'search.feedbackTerms': {
    schema: int({ min: 1 }),
    default: DEFAULT_PRF_TERMS,
    env: 'QUIVER_FEEDBACK_TERMS',
    help: 'expansion terms of the feedback pass',
  },
  'search.select': {
    schema: oneOf('topk', 'mmr', 'dartboard'),
    default: 'topk',
    env: 'QUIVER_SEARCH_SELECT',
    help: 'selection for ranked lists (search, sections): top-k keeps the relevance order',
  },
  'search.nearCopies': {
    schema: bool,
    default: true,
    env: 'QUIVER_SEARCH_NEAR_COPIES',
    help: 'fold near-copies of a higher result under it in top-k ranked lists ("+2 near-copies")',
  },
  'select.method': {
    schema: oneOf('topk', 'mmr', 'dartboard'),
    default: 'dartboard',
    env: 'QUIVER_SELECT',
    help: 'selection for the evidence of context and ask: Dartboard covers the question',
  },
  'select.oversample': {
    schema: num({ min: 1, max: 50 }),
    default: 5,
    env: 'QUIVER_OVERSAMPLE',
    help: 'pool = k × oversample',
  },
  'select.sigma': { schema: num({ min: 0 }), default: 0.2, env: 'QUIVER_SIGMA', help: 'Dartboard σ' },
  'select.diversityWeight': {
    schema: num({ min: 0 }),
    default: 1,
    env: 'QUIVER_DIVERSITY_WEIGHT',
    help: 'Dartboard diversity weight',
  },
  'select.relevanceWeight': {
    schema: num({ min: 0 }),
    default: 1,
    env: 'QUIVER_RELEVANCE_WEIGHT',
    help: 'Dartboard relevance weight',
  },
  'select.lambda': { schema: num({ min: 0, max: 1 }), default: 0.5, env: 'QUIVER_MMR_LAMBDA', help: 'MMR λ' },
  'select.relevance': {
    schema: oneOf('scores', 'cosine'),
    default: 'scores',
    env: 'QUIVER_RELEVANCE',
    help: 'Dartboard relevance source',
  },
  'select.temperature': {
    schema: num({ gt: 0 }),
    default: 1,
    env: 'QUIVER_TEMPERATURE',
    help: 'softmax temperature over min-max scaled fused scores',
  },
  'context.sections': {
    schema: int({ min: 1, max: 50 }),
    default: 6,
    env: 'QUIVER_CONTEXT_SECTIONS',
    help: 'sections in a context',
  },
  'context.sectionChars': {
    schema: int({ min: 50 }),
    default: 1500,
    env: 'QUIVER_SECTION_CHARS',
    help: 'characters per context section',
  },
  'context.totalChars': {
    schema: int({ min: 100 }),
    default: 9000,
    env: 'QUIVER_CONTEXT_CHARS',
    help: 'characters in a whole context',
  },
  'answer.abstainBelow': {
    schema: num({ min: 0, max: 1 }),
    default: 0.55,
    env: 'QUIVER_ABSTAIN_BELOW',
    help: 'abstain when the answer covers less of the question than this (answer/abstain.ts; 0 = never)',
  },
  'server.host': {
    schema: str,
    default: '127.0.0.1',
    env: 'QUIVER_HOST',
    help: 'address quiver serve listens on (loopback unless you mean otherwise)',
  },
  'server.port': {
    schema: int({ min: 0, max: 65535 }),
    default: 7700,
    env: 'QUIVER_PORT',
    help: 'port of quiver serve (0: any free port)',
  },
  'server.ratePerSecond': {
    schema: num({ gt: 0 }),
    default: 20,
    env: 'QUIVER_RATE',
    help: 'requests a token may make per second, sustained',
  },
  'server.burst': {
    schema: int({ min: 1 }),
    default: 40,
    env: 'QUIVER_BURST',
    help: 'requests a token may make at once',
  },
  'server.maxBodyBytes': {
    schema: int({ min: 1024 }),
    default: 1_048_576,
    env: 'QUIVER_MAX_BODY',
    help: 'largest request body quiver serve accepts (413 above)',
  },
  'server.maxUploadBytes': {
    schema: int({ min: 1024 }),
    default: 50 * 1024 * 1024,
    env: 'QUIVER_MAX_UPLOAD',
    help: 'largest file upload quiver serve accepts (413 above)',
  },
  'server.roots': {
    schema: str,
    default: '',
    env: 'QUIVER_ROOTS',
    help: 'folders (separated by :) under which an admin may ask the server to ingest a path; empty: none',
  },
  'server.corsOrigins': {
    schema: str,
    default: '',
    env: 'QUIVER_CORS_ORIGINS',
    help: 'origins (comma-separated) allowed to call the server from a browser; empty: CORS off',
  },
  'server.worker': {
    schema: oneOf('process', 'off'),
    default: 'process',
    env: 'QUIVER_WORKER',
    help: 'run queued jobs in a child process of quiver serve (off: run `quiver queue work` yourself)',
  },
  'queue.maxAttempts': {
    schema: int({ min: 1, max: 100 }),
    default: 8,
    env: 'QUIVER_JOB_ATTEMPTS',
    help: 'attempts of a job before it is dead (a worker killed mid-job counts as one)',
  },
  'queue.leaseSeconds': {
    schema: num({ gt: 0 }),
    default: 60,
    env: 'QUIVER_JOB_LEASE',
    help: 'how long a worker holds a job between heartbeats before another may take it',
  },
  'generator.provider': {
    schema: oneOf('extractive', 'openai'),
    default: 'extractive',
    env: 'QUIVER_GENERATOR',
    help: 'answer generator',
  },
  'generator.model': { schema: str, default: '', env: 'QUIVER_MODEL', help: 'chat model id' },
  'generator.baseURL': {
    schema: str,
    default: '',
    env: 'QUIVER_BASE_URL',
    help: 'OpenAI-compatible base URL for chat',
  },
  'generator.apiKeyEnv': {
    schema: str,
    default: 'OPENAI_API_KEY',
    env: 'QUIVER_KEY_ENV',
    help: 'environment variable holding the chat API key',
  },
  'generator.temperature': {
    schema: num({ min: 0, max: 2 }),
    default: 0,
    env: 'QUIVER_GEN_TEMPERATURE',
    help: 'sampling temperature',
  },
  'generator.maxTokens': {
    schema: int({ min: 1 }),
    default: 512,
    env: 'QUIVER_MAX_TOKENS',
    help: 'answer token limit',
  },
  'generator.timeoutMs': {
    schema: int({ min: 1 }),
    default: 60_000,
    env: 'QUIVER_TIMEOUT_MS',
    help: 'remote call timeout',
  },
  tokenBudget: {
    schema: int({ min: 0 }),
    default: 0,
    env: 'QUIVER_TOKEN_BUDGET',
    help: 'tokens a session may spend (0 = unlimited)',
  },
  'ann.threshold': {
    schema: int({ min: 0 }),
    default: DEFAULT_ANN_THRESHOLD,
    env: 'QUIVER_ANN_THRESHOLD',
    help: 'live chunks above which the vector leg uses an HNSW index (exact scan at or below)',
  },
  'ann.postgresThreshold': {
    schema: int({ min: 0 }),
    default: DEFAULT_POSTGRES_ANN_THRESHOLD,
    env: 'QUIVER_POSTGRES_ANN_THRESHOLD',
    help: "on a PostgreSQL store: live chunks above which the vector leg uses a pgvector HNSW index (its exact scan costs more than SQLite's in-memory one)",
  },
  'ann.m': {
    schema: int({ min: 2, max: 100 }),
    default: DEFAULT_HNSW_M,
    env: 'QUIVER_ANN_M',
    help: 'HNSW graph degree (a change rebuilds the index)',
  },
  'ann.efConstruction': {
    schema: int({ min: 1 }),
    default: DEFAULT_HNSW_EF_CONSTRUCTION,
    env: 'QUIVER_ANN_EF_CONSTRUCTION',
    help: 'HNSW build-time candidates (a change rebuilds the index)',
  },
  'ann.efSearch': {
    schema: int({ min: 1 }),
    default: DEFAULT_HNSW_EF_SEARCH,
    env: 'QUIVER_ANN_EF_SEARCH',
    help: 'HNSW search-time candidates (recall vs latency)',
  },
  'ann.native': {
    schema: bool,
    default: true,
    env: 'QUIVER_ANN_NATIVE',
    help: 'use the HNSW code compiled for this CPU at install (faster search, parallel build) when present',
  },
  'ann.buildThreads': {
    schema: int({ min: 0 }),
    default: 0,
    env: 'QUIVER_ANN_BUILD_THREADS',
    help: 'threads for a full HNSW build (0 = every core; 1 = in process, reproducible)',
  },
  'lexical.threshold': {
    schema: int({ min: 0 }),
    default: DEFAULT_LEXICAL_INDEX_THRESHOLD,
    env: 'QUIVER_LEXICAL_THRESHOLD',
    help: 'live sections above which the lexical leg ranks from its own index (same BM25 as FTS5, faster); FTS5 at or below',
  },
  progress: { schema: bool, default: true, env: 'QUIVER_PROGRESS', help: 'progress bars on a TTY' },
} as const;

export type ConfigKey = keyof typeof CONFIG_KEYS;
export type Config = { [K in ConfigKey]: ValueOf<(typeof CONFIG_KEYS)[K]['schema']> };
export type ConfigSource = 'default' | 'file' | 'env' | 'flag';

export interface LoadedConfig {
  config: Config;
  sources: Record<ConfigKey, ConfigSource>;
  file: string | null;
}

export const DEFAULT_CONFIG_FILE = 'quiver.config.json';

const isObject = (v: unknown): v is object => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Whether some key lives under `prefix.` (`store` is a key and `store.busyTimeoutMs` another). */
const isGroup = (prefix: string): boolean => Object.keys(CONFIG_KEYS).some((k) => k.startsWith(`${prefix}.`));

function flatten(obj: unknown, prefix: string, out: Record<string, unknown>): void {
  if (isObject(obj)) {
    for (const [k, v] of Object.entries(obj)) {
      const key = prefix ? `${prefix}.${k}` : k;
      if (key in CONFIG_KEYS && !(isObject(v) && isGroup(key))) out[key] = v;
      else if (isObject(v)) flatten(v, key, out);
      else out[key] = v;
    }
  }
}

const LAYER: Record<ConfigSource, number> = { default: 0, file: 1, env: 2, flag: 3 };

/**
 * Where the vault's data lives, as `openStore` reads it: `store` when set, unless `vault` was set
 * by a later layer (a `--vault` flag over QUIVER_STORE or a `store` in the config file, so a
 * command pointed at a file uses that file); else the file `vault`.
 *
 * @example storeLocation(loadConfig({ env: { QUIVER_STORE: 'postgres://db/notes' } })) // 'postgres://db/notes'
 */
export function storeLocation(loaded: Pick<LoadedConfig, 'config' | 'sources'>): string {
  const { config, sources } = loaded;
  return config.store !== '' && LAYER[sources.store] >= LAYER[sources.vault] ? config.store : config.vault;
}

/**
 * A config value as it may be shown (`quiver doctor`, messages): a URL's password replaced by
 * `***` (`store: postgres://quiver:***@db/vault`); other values as they are.
 */
export function shownValue(value: unknown): unknown {
  return typeof value === 'string' ? redactLocation(value) : value;
}

function parseValue(key: string, raw: unknown, origin: string): unknown {
  const spec = CONFIG_KEYS[key as ConfigKey] as { schema: ValueSpec } | undefined;
  if (spec === undefined) {
    throw new QuiverError(
      'CONFIG',
      `quiver: unknown config key "${key}" (from ${origin}); known keys: ${Object.keys(CONFIG_KEYS).join(', ')}`,
    );
  }
  const value = readValue(spec.schema, raw);
  if (value === undefined) {
    throw new QuiverError(
      'CONFIG',
      `quiver: config key "${key}" (from ${origin}) must be ${describeValue(spec.schema)}, got ${JSON.stringify(raw)}`,
    );
  }
  return value;
}

/**
 * Resolve the configuration. `env` defaults to `process.env`; `overrides` are flag values by key.
 * @example loadConfig({ overrides: { vault: 'notes.db' } }).config.vault // 'notes.db'
 */
export function loadConfig(
  options: {
    file?: string;
    env?: NodeJS.ProcessEnv;
    overrides?: Partial<Record<ConfigKey, unknown>>;
    cwd?: string;
  } = {},
): LoadedConfig {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const config = {} as Record<string, unknown>;
  const sources = {} as Record<ConfigKey, ConfigSource>;
  for (const [k, spec] of Object.entries(CONFIG_KEYS)) {
    config[k] = spec.default;
    sources[k as ConfigKey] = 'default';
  }
  const explicit = options.file ?? env.QUIVER_CONFIG;
  const file =
    explicit !== undefined && explicit !== '' ? resolve(cwd, explicit) : resolve(cwd, DEFAULT_CONFIG_FILE);
  let used: string | null = null;
  if (existsSync(file)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(file, 'utf8'));
    } catch (e) {
      throw new QuiverError('CONFIG', `quiver: cannot read config ${file}: ${(e as Error).message}`, {
        cause: e,
      });
    }
    const flat: Record<string, unknown> = {};
    flatten(parsed, '', flat);
    for (const [k, v] of Object.entries(flat)) {
      config[k] = parseValue(k, v, file);
      sources[k as ConfigKey] = 'file';
    }
    used = file;
  } else if (explicit !== undefined && explicit !== '') {
    throw new QuiverError('CONFIG', `quiver: config file ${file} does not exist`);
  }
  for (const [k, spec] of Object.entries(CONFIG_KEYS)) {
    const v = env[spec.env];
    if (v !== undefined && v !== '') {
      config[k] = parseValue(k, v, `$${spec.env}`);
      sources[k as ConfigKey] = 'env';
    }
  }
  for (const [k, v] of Object.entries(options.overrides ?? {})) {
    if (v === undefined) continue;
    config[k] = parseValue(k, v, 'command line');
    sources[k as ConfigKey] = 'flag';
  }
  return { config: config as Config, sources, file: used };
}
