/**
 * An Embedder over a local ONNX sentence model run by transformers.js (`@huggingface/transformers`),
 * either a Hugging Face hub id (`Xenova/all-MiniLM-L6-v2`, downloaded once into the cache) or a
 * folder holding `config.json`, `tokenizer.json` and `onnx/model.onnx`.
 *
 * The package is optional: it is loaded with a dynamic `import()` only when this back end is
 * asked for, so quiver installs and runs without it. Install it with
 * `ONNXRUNTIME_NODE_INSTALL=skip npm install @huggingface/transformers` (the CPU runtime ships in
 * the package; the variable skips an optional GPU download).
 *
 * A folder is loaded fully offline (remote models are switched off while it loads). A hub id is
 * downloaded when online; with `localOnly` it must already be in the cache. `dims` is learned from
 * one probe embedding, so `createTransformersEmbedder` is async.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { QuiverError } from '../errors.js';
import { normalize } from '../math/vector.js';
import { embedInBatches } from './_batches.js';
import type { EmbedOptions, Embedder } from './embedder.js';
import { fnv1a32 } from './feature-hash.js';

export const TRANSFORMERS_PACKAGE = '@huggingface/transformers';
export const TRANSFORMERS_INSTALL_HINT = `ONNXRUNTIME_NODE_INSTALL=skip npm install ${TRANSFORMERS_PACKAGE}`;
export const TRANSFORMERS_EMBEDDER_VERSION = 'v1';
/** Texts per forward pass. */
export const DEFAULT_TRANSFORMERS_BATCH_SIZE = 32;
/** Pooling when neither the options, the model's sentence-transformers config nor its family say. */
export const DEFAULT_TRANSFORMERS_POOLING: TransformersPooling = 'mean';
/** Text embedded once to learn the vector length. */
export const TRANSFORMERS_DIMS_PROBE_TEXT = 'quiver dimension probe';
/** Model weights variant → ONNX file suffix (`onnx/model<suffix>.onnx`), as transformers.js names them. */
export const TRANSFORMERS_DTYPE_SUFFIX = {
  fp32: '',
  fp16: '_fp16',
  int8: '_int8',
  uint8: '_uint8',
  q8: '_quantized',
  q4: '_q4',
  q4f16: '_q4f16',
  bnb4: '_bnb4',
} as const;

export type TransformersPooling = 'mean' | 'cls';
export type TransformersDtype = keyof typeof TRANSFORMERS_DTYPE_SUFFIX;

export interface TransformersEmbedderOptions {
  /** A hub id (`Xenova/all-MiniLM-L6-v2`) or a folder path (absolute, `./…`, or an existing directory). */
  model: string;
  /** Defaults to the model's sentence-transformers pooling config, else its known family, else mean. */
  pooling?: TransformersPooling;
  /** Ask the pipeline to L2-normalise. Defaults to true. Returned vectors are always unit length (the Embedder contract). */
  normalize?: boolean;
  /** Prepended to query texts. Defaults to the known family's (e5 `query: `, bge instruction), else none. */
  queryPrefix?: string;
  /** Prepended to document texts. Defaults to the known family's (e5 `passage: `), else none. */
  documentPrefix?: string;
  /** Texts per forward pass, ≥ 1. Defaults to 32. */
  batchSize?: number;
  /** Weights variant (`q8` loads `onnx/model_quantized.onnx`). Defaults to the model config's, else fp32. */
  dtype?: TransformersDtype;
  /** Where hub downloads are cached. Defaults to transformers.js's own cache folder. */
  cacheDir?: string;
  /** Never touch the network: a hub id must already be in the cache. Folders are always local. */
  localOnly?: boolean;
}

/** What a known model family needs: its pooling and the prefixes it was trained with. */
export interface ModelFamily {
  family: string;
  pooling: TransformersPooling;
  queryPrefix: string;
  documentPrefix: string;
}

const BGE_EN_QUERY = 'Represent this sentence for searching relevant passages: ';
const FAMILIES: readonly { test: RegExp; family: ModelFamily }[] = [
  { test: /^(multilingual-)?e5-(?!.*instruct)/, family: fam('e5', 'mean', 'query: ', 'passage: ') },
  { test: /^bge-m3/, family: fam('bge-m3', 'cls', '', '') },
  { test: /^bge-.*-en/, family: fam('bge-en', 'cls', BGE_EN_QUERY, '') },
  { test: /^bge-.*-zh/, family: fam('bge-zh', 'cls', '为这个句子生成表示以用于检索相关文章：', '') },
  { test: /^mxbai-embed-large/, family: fam('mxbai', 'cls', BGE_EN_QUERY, '') },
  { test: /^nomic-embed-text/, family: fam('nomic', 'mean', 'search_query: ', 'search_document: ') },
  { test: /^(all-minilm|all-mpnet|paraphrase-|gte-)/, family: fam('sentence-transformers', 'mean', '', '') },
];

function fam(
  family: string,
  pooling: TransformersPooling,
  queryPrefix: string,
  documentPrefix: string,
): ModelFamily {
  return { family, pooling, queryPrefix, documentPrefix };
}

/**
 * The known family of a model id or folder, matched on its last path segment, lower-cased
 * (`intfloat/e5-small-v2` → e5; `/models/bge-small-en-v1.5` → bge-en). Unknown → undefined.
 */
export function knownModelFamily(model: string): ModelFamily | undefined {
  const name = (model.split(/[\\/]/).findLast((s) => s !== '') ?? '').toLowerCase();
  return FAMILIES.find((f) => f.test.test(name))?.family;
}

/**
 * Pooling from a sentence-transformers `1_Pooling/config.json` object: `pooling_mode_cls_token` →
 * cls, `pooling_mode_mean_tokens` → mean, none set or not an object → undefined. Any other mode
 * (max, last token, mean-sqrt-len, weighted mean) throws QuiverError('CONFIG'): this back end
 * would give different vectors than the model was trained for.
 */
export function poolingFromSentenceTransformers(config: unknown): TransformersPooling | undefined {
  if (typeof config !== 'object' || config === null) return undefined;
  const c = config as Record<string, unknown>;
  if (c.pooling_mode_cls_token === true) return 'cls';
  if (c.pooling_mode_mean_tokens === true) return 'mean';
  const other = Object.keys(c).find((k) => k.startsWith('pooling_mode_') && c[k] === true);
  if (other === undefined) return undefined;
  throw new QuiverError(
    'CONFIG',
    `quiver: transformers pooling "${other.slice('pooling_mode_'.length)}" in the model's pooling config is not supported; pass pooling: 'mean' or 'cls' to override`,
  );
}

/**
 * Fingerprint `transformers:<model>:<dims>:v1:<pooling>`, then `:<dtype>` unless fp32, then
 * `:p-<8 hex>` of the prefixes when any is set. `<model>` is the hub id, or a folder's
 * `<basename>@<hash of its model file>` (':' replaced by '_').
 */
export function transformersEmbedderId(p: {
  model: string;
  dims: number;
  pooling: TransformersPooling;
  dtype?: string;
  queryPrefix?: string;
  documentPrefix?: string;
}): string {
  const qp = p.queryPrefix ?? '';
  const dp = p.documentPrefix ?? '';
  let id = `transformers:${p.model.replaceAll(':', '_')}:${p.dims}:${TRANSFORMERS_EMBEDDER_VERSION}:${p.pooling}`;
  if (p.dtype !== undefined && p.dtype !== 'fp32') id += `:${p.dtype}`;
  if (qp !== '' || dp !== '') id += `:p-${fnv1a32(`${qp}\u0000${dp}`).toString(16).padStart(8, '0')}`;
  return id;
}

/**
 * True when `model` names a folder rather than a hub id: an absolute path, one starting with `.`
 * or `~`, or an existing directory (a local folder wins over a hub id of the same spelling).
 */
export function isLocalModelPath(model: string): boolean {
  if (isAbsolute(model) || /^[.~]/.test(model) || /^[A-Za-z]:[\\/]/.test(model)) return true;
  try {
    return statSync(model).isDirectory();
  } catch {
    return false;
  }
}

// ---- the narrow slice of @huggingface/transformers used here

interface TensorLike {
  type?: string;
  dims: readonly number[];
  data: ArrayLike<number>;
  to?(type: string): TensorLike;
}
interface FeatureExtractor {
  (texts: string[], options: { pooling: TransformersPooling; normalize: boolean }): Promise<TensorLike>;
  model?: { config?: unknown };
}
interface TransformersModule {
  env: { allowRemoteModels: boolean; cacheDir: string | null };
  pipeline(
    task: 'feature-extraction',
    model: string,
    options: Record<string, unknown>,
  ): Promise<FeatureExtractor>;
}

/**
 * Imports `@huggingface/transformers` (or `specifier`, for tests). A missing package, or one whose
 * native runtime fails to load, throws QuiverError('CONFIG') saying how to install it.
 */
export async function loadTransformers(
  specifier: string = TRANSFORMERS_PACKAGE,
): Promise<TransformersModule> {
  let mod: unknown;
  try {
    mod = (await import(specifier)) as unknown;
  } catch (e) {
    const missing =
      (e as { code?: unknown } | null)?.code === 'ERR_MODULE_NOT_FOUND' ||
      /cannot find|failed to (load|resolve)/i.test(e instanceof Error ? e.message : '');
    const why = missing
      ? 'is not installed'
      : `failed to load (${e instanceof Error ? e.message : String(e)})`;
    throw new QuiverError(
      'CONFIG',
      `quiver: the transformers embedder needs the optional package ${specifier}, which ${why}; install it with: ${TRANSFORMERS_INSTALL_HINT}`,
      { cause: e, details: { package: specifier } },
    );
  }
  const m = mod as Partial<TransformersModule>;
  if (typeof m.pipeline !== 'function' || typeof m.env !== 'object') {
    throw new QuiverError(
      'CONFIG',
      `quiver: ${specifier} does not export pipeline() and env; install it with: ${TRANSFORMERS_INSTALL_HINT}`,
    );
  }
  return m as TransformersModule;
}

/** SHA-256 of the files, in order, as the first 8 hex digits. */
async function shortFileHash(paths: readonly string[]): Promise<string> {
  const h = createHash('sha256');
  for (const p of paths) {
    for await (const chunk of createReadStream(p)) h.update(chunk as Buffer);
  }
  return h.digest('hex').slice(0, 8);
}

function readJson(path: string): unknown {
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch (e) {
    throw new QuiverError('CONFIG', `quiver: ${path} is not valid JSON`, { cause: e, details: { path } });
  }
}

/** `transformers.js_config.dtype` of a model config when it is one string, else undefined. */
function configDtype(config: unknown): string | undefined {
  const d = (config as { 'transformers.js_config'?: { dtype?: unknown } } | undefined)?.[
    'transformers.js_config'
  ]?.dtype;
  return typeof d === 'string' && d !== 'auto' ? d : undefined;
}

/** The sentence-transformers pooling of a folder (`modules.json` → Pooling module's config.json). */
function folderPooling(folder: string): TransformersPooling | undefined {
  const modules = readJson(join(folder, 'modules.json'));
  const entry = Array.isArray(modules)
    ? (modules as { type?: unknown; path?: unknown }[]).find(
        (m) => typeof m.type === 'string' && m.type.endsWith('.Pooling'),
      )
    : undefined;
  const sub = typeof entry?.path === 'string' ? entry.path : '1_Pooling';
  return poolingFromSentenceTransformers(readJson(join(folder, sub, 'config.json')));
}

// Loads run one at a time: transformers.js reads `env.allowRemoteModels`/`env.cacheDir` in places
// that ignore the per-call `local_files_only`/`cache_dir` options, so they are set for the load.
let loadQueue: Promise<unknown> = Promise.resolve();
const loaded = new Map<string, Promise<FeatureExtractor>>();

function loadPipeline(
  tf: TransformersModule,
  model: string,
  o: { dtype?: TransformersDtype; cacheDir?: string; offline: boolean; key: string },
): Promise<FeatureExtractor> {
  const cached = loaded.get(o.key);
  if (cached !== undefined) return cached;
  const run = loadQueue.then(async () => {
    const saved = { allowRemoteModels: tf.env.allowRemoteModels, cacheDir: tf.env.cacheDir };
    if (o.offline) tf.env.allowRemoteModels = false;
    if (o.cacheDir !== undefined) tf.env.cacheDir = o.cacheDir;
    try {
      return await tf.pipeline('feature-extraction', model, {
        local_files_only: o.offline,
        ...(o.dtype === undefined ? {} : { dtype: o.dtype }),
        ...(o.cacheDir === undefined ? {} : { cache_dir: o.cacheDir }),
      });
    } finally {
      tf.env.allowRemoteModels = saved.allowRemoteModels;
      tf.env.cacheDir = saved.cacheDir;
    }
  });
  loadQueue = run.catch(() => undefined);
  loaded.set(o.key, run);
  run.catch(() => loaded.delete(o.key));
  return run;
}

const NETWORK_CODES = /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH/;

/** Maps a load failure to CONFIG (wrong or missing model) or REMOTE (the hub could not be reached). */
function loadError(
  e: unknown,
  model: string,
  local: boolean,
  localOnly: boolean,
  cacheDir: string | null,
): QuiverError {
  if (e instanceof QuiverError) return e;
  const msg = e instanceof Error ? e.message : String(e);
  const cause = (e as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  const causeText = [cause?.code, cause?.message].filter((x) => typeof x === 'string').join(' ');
  const details = { model };
  if (local) {
    return new QuiverError(
      'CONFIG',
      `quiver: transformers model folder ${model} could not be loaded: ${msg}`,
      {
        cause: e,
        details,
      },
    );
  }
  if (
    (e as { name?: unknown } | null)?.name === 'ModelFileNotFoundError' ||
    /Could not locate file/.test(msg)
  ) {
    const what = localOnly
      ? `is not in the cache (${cacheDir ?? 'none'}) and localOnly is set (download it once online, or point model at a local folder)`
      : 'was not found on the Hugging Face hub';
    return new QuiverError('CONFIG', `quiver: transformers model "${model}" ${what}: ${msg}`, {
      cause: e,
      details,
    });
  }
  if (
    /fetch failed|network|access to file|error occurred while trying to load file/i.test(msg) ||
    NETWORK_CODES.test(causeText)
  ) {
    return new QuiverError(
      'REMOTE',
      `quiver: could not download transformers model "${model}" from the Hugging Face hub (${causeText || msg}); offline, use a local model folder or a cached model with localOnly`,
      { cause: e, details },
    );
  }
  return new QuiverError('CONFIG', `quiver: transformers model "${model}" could not be loaded: ${msg}`, {
    cause: e,
    details,
  });
}

function badInput(field: string, want: string, got: unknown): QuiverError {
  return new QuiverError(
    'BAD_INPUT',
    `quiver: transformers embedder ${field} must be ${want}, got ${JSON.stringify(got)}`,
  );
}

/** Runs one batch and returns one vector per text. */
async function runBatch(
  extractor: FeatureExtractor,
  texts: string[],
  pooling: TransformersPooling,
  doNormalize: boolean,
  model: string,
): Promise<Float32Array[]> {
  let t: TensorLike;
  try {
    t = await extractor(texts, { pooling, normalize: doNormalize });
    if (t.type !== undefined && t.type !== 'float32' && typeof t.to === 'function') t = t.to('float32');
  } catch (e) {
    throw new QuiverError(
      'INTERNAL',
      `quiver: transformers model "${model}" failed to embed: ${e instanceof Error ? e.message : String(e)}`,
      {
        cause: e,
      },
    );
  }
  const [rows, width] = t.dims;
  if (t.dims.length !== 2 || rows !== texts.length || width === undefined || width < 1) {
    throw new QuiverError(
      'INTERNAL',
      `quiver: transformers model "${model}" returned shape [${t.dims.join(', ')}] for ${texts.length} texts`,
    );
  }
  const data = Float32Array.from(t.data);
  return texts.map((_, i) => normalize(data.subarray(i * width, (i + 1) * width)));
}

/**
 * Loads the model and learns `dims` from one probe text. Empty or whitespace-only texts are not run:
 * they get a zero vector. The signal is checked before each batch (a running batch is not cut).
 *
 * @example
 * const e = await createTransformersEmbedder({ model: 'Xenova/bge-small-en-v1.5' });
 * e.id; // 'transformers:Xenova/bge-small-en-v1.5:384:v1:cls:p-…' (bge: cls pooling, query instruction)
 * const [q] = await e.embed(['what is hybrid search?'], { purpose: 'query' });
 */
export async function createTransformersEmbedder(options: TransformersEmbedderOptions): Promise<Embedder> {
  const { model } = options;
  if (typeof model !== 'string' || model.trim() === '')
    throw badInput('model', 'a hub id or a folder path', model);
  const batchSize = options.batchSize ?? DEFAULT_TRANSFORMERS_BATCH_SIZE;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw badInput('batchSize', 'an integer ≥ 1', batchSize);
  if (options.pooling !== undefined && options.pooling !== 'mean' && options.pooling !== 'cls') {
    throw badInput('pooling', '"mean" or "cls"', options.pooling);
  }
  if (options.dtype !== undefined && !Object.hasOwn(TRANSFORMERS_DTYPE_SUFFIX, options.dtype)) {
    throw badInput('dtype', `one of ${Object.keys(TRANSFORMERS_DTYPE_SUFFIX).join(', ')}`, options.dtype);
  }
  const local = isLocalModelPath(model);
  const localOnly = options.localOnly ?? false;
  const family = knownModelFamily(model);
  let modelPart = model;
  let loadAs = model;
  let configPooling: TransformersPooling | undefined;
  let folderDtype: string | undefined;

  if (local) {
    const folder = resolve(model.replace(/^~(?=$|[\\/])/, homedir()));
    if (!existsSync(folder) || !statSync(folder).isDirectory()) {
      throw new QuiverError('CONFIG', `quiver: transformers model folder ${folder} does not exist`, {
        details: { model: folder },
      });
    }
    folderDtype = options.dtype ?? configDtype(readJson(join(folder, 'config.json'))) ?? 'fp32';
    const suffix = (TRANSFORMERS_DTYPE_SUFFIX as Record<string, string>)[folderDtype] ?? '';
    const file = join(folder, 'onnx', `model${suffix}.onnx`);
    if (!existsSync(file)) {
      throw new QuiverError(
        'CONFIG',
        `quiver: transformers model folder ${folder} has no onnx/model${suffix}.onnx (dtype ${folderDtype})`,
        {
          details: { model: folder },
        },
      );
    }
    const dataFile = `${file}_data`;
    modelPart = `${basename(folder)}@${await shortFileHash(existsSync(dataFile) ? [file, dataFile] : [file])}`;
    loadAs = folder;
    configPooling = folderPooling(folder);
  }

  const tf = await loadTransformers();
  const key = JSON.stringify([
    loadAs,
    modelPart,
    options.dtype ?? null,
    options.cacheDir ?? null,
    local || localOnly,
  ]);
  let extractor: FeatureExtractor;
  try {
    extractor = await loadPipeline(tf, loadAs, {
      ...(options.dtype === undefined ? {} : { dtype: options.dtype }),
      ...(options.cacheDir === undefined ? {} : { cacheDir: options.cacheDir }),
      offline: local || localOnly,
      key,
    });
  } catch (e) {
    throw loadError(e, local ? loadAs : model, local, localOnly, options.cacheDir ?? tf.env.cacheDir);
  }

  const pooling = options.pooling ?? configPooling ?? family?.pooling ?? DEFAULT_TRANSFORMERS_POOLING;
  const doNormalize = options.normalize ?? true;
  const queryPrefix = options.queryPrefix ?? family?.queryPrefix ?? '';
  const documentPrefix = options.documentPrefix ?? family?.documentPrefix ?? '';
  const dtype = folderDtype ?? options.dtype ?? configDtype(extractor.model?.config) ?? 'fp32';
  const [probe] = await runBatch(extractor, [TRANSFORMERS_DIMS_PROBE_TEXT], pooling, doNormalize, model);
  const dims = probe!.length;

  async function embed(texts: readonly string[], opts: EmbedOptions = {}): Promise<Float32Array[]> {
    const plan = { dims, batchSize, queryPrefix, documentPrefix };
    return embedInBatches(texts, opts, plan, (batch) =>
      runBatch(extractor, batch, pooling, doNormalize, model),
    );
  }

  return {
    id: transformersEmbedderId({ model: modelPart, dims, pooling, dtype, queryPrefix, documentPrefix }),
    dims,
    embed,
  };
}
