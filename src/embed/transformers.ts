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
import { QuiverError } from '../errors.js';
import { normalize } from '../math/vector.js';
import { embedInBatches } from './_batches.js';
import type { EmbedOptions, Embedder } from './embedder.js';
import { fnv1a32 } from './feature-hash.js';
import {
  TRANSFORMERS_DTYPE_SUFFIX,
  configDtype,
  isLocalModelPath,
  knownModelFamily,
  resolveModelFolder,
} from './transformers-model.js';
import type { TransformersDtype, TransformersPooling } from './transformers-model.js';

export {
  TRANSFORMERS_DTYPE_SUFFIX,
  isLocalModelPath,
  knownModelFamily,
  poolingFromSentenceTransformers,
} from './transformers-model.js';
export type { ModelFamily, TransformersDtype, TransformersPooling } from './transformers-model.js';

export const TRANSFORMERS_PACKAGE = '@huggingface/transformers';
export const TRANSFORMERS_INSTALL_HINT = `ONNXRUNTIME_NODE_INSTALL=skip npm install ${TRANSFORMERS_PACKAGE}`;
export const TRANSFORMERS_EMBEDDER_VERSION = 'v1';
/** Texts per forward pass. */
export const DEFAULT_TRANSFORMERS_BATCH_SIZE = 32;
/** Pooling when neither the options, the model's sentence-transformers config nor its family say. */
export const DEFAULT_TRANSFORMERS_POOLING: TransformersPooling = 'mean';
/** Text embedded once to learn the vector length. */
export const TRANSFORMERS_DIMS_PROBE_TEXT = 'quiver dimension probe';

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
  const folder = local ? await resolveModelFolder(model, options.dtype) : undefined;
  const modelPart = folder?.modelPart ?? model;
  const loadAs = folder?.folder ?? model;

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

  const pooling = options.pooling ?? folder?.pooling ?? family?.pooling ?? DEFAULT_TRANSFORMERS_POOLING;
  const doNormalize = options.normalize ?? true;
  const queryPrefix = options.queryPrefix ?? family?.queryPrefix ?? '';
  const documentPrefix = options.documentPrefix ?? family?.documentPrefix ?? '';
  const dtype = folder?.dtype ?? options.dtype ?? configDtype(extractor.model?.config) ?? 'fp32';
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
