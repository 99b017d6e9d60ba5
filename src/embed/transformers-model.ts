/**
 * What a transformers.js sentence model is, read before it loads: its known family (pooling and
 * the query/document prefixes it was trained with), its sentence-transformers pooling config, its
 * weights variant, and, for a local folder, the checked folder, its ONNX file and a short hash of
 * that file for the embedder id. No transformers.js import here: only the file system.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { QuiverError } from '../errors.js';

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
export function configDtype(config: unknown): string | undefined {
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

/** A local model folder, checked: where it is, its weights variant, its id part and its pooling. */
export interface ModelFolder {
  /** The absolute folder (`~` expanded). */
  folder: string;
  /** The `dtype` asked for, else the folder config's `transformers.js_config.dtype`, else fp32. */
  dtype: string;
  /** `<basename>@<8 hex of the SHA-256 of onnx/model<suffix>.onnx (and its _data file)>`. */
  modelPart: string;
  /** The folder's sentence-transformers pooling, when it has one. */
  pooling: TransformersPooling | undefined;
}

/**
 * Check a model folder and describe it. A missing folder, or one without the ONNX file of its
 * dtype (`onnx/model<suffix>.onnx`), → QuiverError('CONFIG'); so does invalid JSON in its configs.
 */
export async function resolveModelFolder(model: string, dtype?: TransformersDtype): Promise<ModelFolder> {
  const folder = resolve(model.replace(/^~(?=$|[\\/])/, homedir()));
  if (!existsSync(folder) || !statSync(folder).isDirectory()) {
    throw new QuiverError('CONFIG', `quiver: transformers model folder ${folder} does not exist`, {
      details: { model: folder },
    });
  }
  const folderDtype = dtype ?? configDtype(readJson(join(folder, 'config.json'))) ?? 'fp32';
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
  const modelPart = `${basename(folder)}@${await shortFileHash(existsSync(dataFile) ? [file, dataFile] : [file])}`;
  return { folder, dtype: folderDtype, modelPart, pooling: folderPooling(folder) };
}
