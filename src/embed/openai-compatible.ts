/**
 * An Embedder over any OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, Ollama, llama.cpp,
 * vLLM, TEI), through the `openai` SDK. The adapter stays thin: it batches, passes the signal,
 * maps failures to QuiverErrors, checks every reply and L2-normalises the vectors.
 *
 * The vector length is part of the fingerprint, so `createOpenAIEmbedder` is async: when `dims` is
 * not given it embeds one probe text first and fixes `dims` (and `id`) from the reply. Every later
 * reply must have that length.
 */
import { openaiSdk } from '../_openai.js';
import { QuiverError } from '../errors.js';
import { normalize } from '../math/vector.js';
import { abortedError } from './_abort.js';
import { embedInBatches } from './_batches.js';
import type { EmbedOptions, Embedder } from './embedder.js';
import { fnv1a32 } from './feature-hash.js';

/** Environment variable that holds the API key. */
export const DEFAULT_OPENAI_API_KEY_ENV = 'OPENAI_API_KEY';
/** Texts per request. */
export const DEFAULT_OPENAI_BATCH_SIZE = 64;
/** Time allowed for one attempt, in milliseconds. */
export const DEFAULT_OPENAI_TIMEOUT_MS = 30_000;
/** Retries after a 408/409/429/5xx or a connection failure, with the SDK's exponential backoff. */
export const DEFAULT_OPENAI_MAX_RETRIES = 3;
/** Sent as the key when the variable is unset: local servers (Ollama, llama.cpp) ignore it. */
export const LOCAL_API_KEY_PLACEHOLDER = 'none';
/** Text embedded once to learn the vector length when `dims` is not given. */
export const DIMS_PROBE_TEXT = 'quiver dimension probe';
export const OPENAI_EMBEDDER_VERSION = 'v1';

export interface OpenAIEmbedderOptions {
  /** Base URL including the version path, e.g. `http://127.0.0.1:11434/v1`. */
  baseURL: string;
  /** Model name as the server knows it, e.g. `nomic-embed-text` or `text-embedding-3-small`. */
  model: string;
  /** Expected vector length; when absent it is learned from a probe call. */
  dims?: number;
  /** Name of the environment variable with the API key. Defaults to `OPENAI_API_KEY`. */
  apiKeyEnv?: string;
  /** Where to read `apiKeyEnv` from. Defaults to `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Texts per request, ≥ 1. Defaults to 64. */
  batchSize?: number;
  /** Milliseconds per attempt (a retried call may take up to (maxRetries + 1) × this plus backoff). Defaults to 30,000. */
  timeoutMs?: number;
  /** Retries on 408/409/429/5xx and connection errors. Defaults to 3. */
  maxRetries?: number;
  /** Prepended to query texts (e.g. `search_query: ` for nomic, `query: ` for e5). */
  queryPrefix?: string;
  /** Prepended to document texts (e.g. `search_document: `, `passage: `). */
  documentPrefix?: string;
}

function badInput(field: string, want: string, got: unknown): QuiverError {
  return new QuiverError('BAD_INPUT', `quiver: openai embedder ${field} must be ${want}, got ${String(got)}`);
}

function positiveInt(field: string, value: number, min: number): number {
  if (!Number.isInteger(value) || value < min) throw badInput(field, `an integer ≥ ${min}`, value);
  return value;
}

/**
 * Fingerprint `openai:<model>:<dims>:v1`, plus `:p-<8 hex>` of the prefixes when any is set
 * (prefixes change the vectors). The base URL is left out: the same model gives the same vectors
 * wherever it is served.
 */
export function openAIEmbedderId(model: string, dims: number, queryPrefix = '', documentPrefix = ''): string {
  const base = `openai:${model}:${dims}:${OPENAI_EMBEDDER_VERSION}`;
  if (queryPrefix === '' && documentPrefix === '') return base;
  const h = fnv1a32(`${queryPrefix}\u0000${documentPrefix}`);
  return `${base}:p-${h.toString(16).padStart(8, '0')}`;
}

/**
 * Checks one reply and returns its vectors in input order (by `index` when every item has one).
 * Throws QuiverError('REMOTE') naming the URL and what was wrong.
 */
export function parseEmbeddingReply(
  reply: unknown,
  count: number,
  dims: number | undefined,
  url: string,
): number[][] {
  const bad = (what: string): QuiverError =>
    new QuiverError('REMOTE', `quiver: embeddings endpoint ${url} answered badly: ${what}`, {
      details: { url },
    });
  if (typeof reply !== 'object' || reply === null) throw bad(`expected a JSON object, got ${typeof reply}`);
  const data = (reply as { data?: unknown }).data;
  if (!Array.isArray(data)) throw bad('the reply has no `data` array');
  if (data.length !== count) throw bad(`${data.length} embeddings for ${count} inputs`);
  const out: (number[] | undefined)[] = new Array<number[] | undefined>(count);
  const indexed = data.every((d: unknown) => typeof (d as { index?: unknown } | null)?.index === 'number');
  for (const [pos, item] of data.entries()) {
    const at = indexed ? (item as { index: number }).index : pos;
    if (!Number.isInteger(at) || at < 0 || at >= count || out[at] !== undefined) {
      throw bad(`data[${pos}].index ${at} is out of range or repeated`);
    }
    const e = (item as { embedding?: unknown } | null)?.embedding;
    if (!Array.isArray(e)) {
      throw bad(
        `data[${pos}].embedding is ${typeof e === 'string' ? 'a string (base64?)' : typeof e}, expected an array of numbers`,
      );
    }
    const firstBad = e.findIndex((x: unknown) => typeof x !== 'number' || !Number.isFinite(x));
    if (firstBad !== -1)
      throw bad(
        `data[${pos}].embedding[${firstBad}] is ${JSON.stringify(e[firstBad])}, expected a finite number`,
      );
    const want = dims ?? out.find((v) => v !== undefined)?.length ?? e.length;
    if (e.length !== want || e.length === 0)
      throw bad(`data[${pos}].embedding has ${e.length} dimensions, expected ${want}`);
    out[at] = e as number[];
  }
  return out as number[][];
}

/** Maps an SDK failure to a QuiverError. The key is never part of any message. */
function mapError(e: unknown, url: string, timeoutMs: number, signal: AbortSignal | undefined): QuiverError {
  if (e instanceof QuiverError) return e;
  if (e instanceof openaiSdk().APIUserAbortError || signal?.aborted === true) {
    return signal !== undefined
      ? abortedError(signal)
      : new QuiverError('ABORTED', 'quiver: embedding was aborted');
  }
  if (e instanceof openaiSdk().APIConnectionTimeoutError) {
    return new QuiverError(
      'TIMEOUT',
      `quiver: embeddings endpoint ${url} did not answer within ${timeoutMs} ms`,
      {
        cause: e,
        details: { url, timeoutMs },
      },
    );
  }
  if (e instanceof openaiSdk().APIError && e.status !== undefined) {
    const hint = e.status === 401 || e.status === 403 ? ' (check the API key variable)' : '';
    return new QuiverError(
      'REMOTE',
      `quiver: embeddings endpoint ${url} failed with HTTP ${e.status}${hint}: ${e.message}`,
      {
        cause: e,
        details: { url, status: e.status },
      },
    );
  }
  const msg = e instanceof Error ? e.message : String(e);
  return new QuiverError('REMOTE', `quiver: embeddings endpoint ${url} failed: ${msg}`, {
    cause: e,
    details: { url },
  });
}

/**
 * Connects to an OpenAI-compatible embeddings endpoint. Resolves once `dims` is known (given, or
 * learned from one probe call). Empty or whitespace-only texts are not sent: they get a zero vector.
 *
 * @example
 * const e = await createOpenAIEmbedder({ baseURL: 'http://127.0.0.1:11434/v1', model: 'nomic-embed-text',
 *   queryPrefix: 'search_query: ', documentPrefix: 'search_document: ' });
 * e.id; // 'openai:nomic-embed-text:768:v1:p-…'
 */
export async function createOpenAIEmbedder(options: OpenAIEmbedderOptions): Promise<Embedder> {
  const { baseURL, model } = options;
  if (typeof baseURL !== 'string' || !/^https?:\/\/./.test(baseURL)) {
    throw badInput('baseURL', 'an http(s) URL', baseURL);
  }
  if (typeof model !== 'string' || model.trim() === '') throw badInput('model', 'a non-empty string', model);
  const batchSize = positiveInt('batchSize', options.batchSize ?? DEFAULT_OPENAI_BATCH_SIZE, 1);
  const timeoutMs = positiveInt('timeoutMs', options.timeoutMs ?? DEFAULT_OPENAI_TIMEOUT_MS, 1);
  const maxRetries = positiveInt('maxRetries', options.maxRetries ?? DEFAULT_OPENAI_MAX_RETRIES, 0);
  let dims = options.dims === undefined ? undefined : positiveInt('dims', options.dims, 1);
  const queryPrefix = options.queryPrefix ?? '';
  const documentPrefix = options.documentPrefix ?? '';
  const env = options.env ?? process.env;
  const apiKey = env[options.apiKeyEnv ?? DEFAULT_OPENAI_API_KEY_ENV] ?? '';
  const client = new (openaiSdk().OpenAI)({
    baseURL,
    apiKey: apiKey === '' ? LOCAL_API_KEY_PLACEHOLDER : apiKey,
    timeout: timeoutMs,
    maxRetries,
    logLevel: 'off',
  });
  const url = `${baseURL.replace(/\/+$/, '')}/embeddings`;

  async function request(inputs: string[], signal: AbortSignal | undefined): Promise<number[][]> {
    let reply: unknown;
    try {
      reply = await client.embeddings.create(
        { model, input: inputs, encoding_format: 'float' },
        signal === undefined ? {} : { signal },
      );
    } catch (e) {
      throw mapError(e, url, timeoutMs, signal);
    }
    const vectors = parseEmbeddingReply(reply, inputs.length, dims, url);
    dims ??= vectors[0]!.length;
    return vectors;
  }

  if (dims === undefined) await request([DIMS_PROBE_TEXT], undefined);
  const fixedDims = dims!;

  async function embed(texts: readonly string[], opts: EmbedOptions = {}): Promise<Float32Array[]> {
    const plan = { dims: fixedDims, batchSize, queryPrefix, documentPrefix };
    return embedInBatches(texts, opts, plan, async (batch, signal) =>
      (await request(batch, signal)).map((v) => normalize(v)),
    );
  }

  return { id: openAIEmbedderId(model, fixedDims, queryPrefix, documentPrefix), dims: fixedDims, embed };
}
