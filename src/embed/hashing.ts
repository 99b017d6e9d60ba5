/**
 * The built-in offline embedder: signed feature hashing of stemmed word unigrams, word bigrams and
 * character n-grams into `dims` buckets. No network, no model file, no randomness: the same text
 * gives the same bits on every run and machine (integer hashing, insertion-ordered sums, V8's
 * fdlibm `Math.log` and IEEE `Math.sqrt`).
 *
 * Vector of a text t:  v = Σ_f α_f · u_f / ‖u_f‖,  output v / ‖v‖, where f ranges over the feature
 * families, α_f is the family weight and u_f the family's hashed vector:
 *   u_f[bucket(k)] += sign(k) · (1 + ln tf(k)) · idf(k)   for each feature key k of family f in t,
 * with idf(k) = 1 unless fitted state is given (then `ln((1+N)/(1+df))+1`, df = 1 when unseen). Normalising per family
 * keeps the ~15× more numerous character n-grams from drowning the words.
 */
import { QuiverError } from '../errors.js';
import { abortedError } from './_abort.js';
import type { EmbedOptions, Embedder } from './embedder.js';
import {
  FAMILY_BIGRAM,
  FAMILY_CHAR,
  FAMILY_UNIGRAM,
  FeatureCounts,
  FeatureExtractor,
} from './hashing-features.js';
import type { FeatureOptions } from './hashing-features.js';
import { IdfTable, idfFingerprint } from './hashing-idf.js';
import type { HashingIdf } from './hashing-idf.js';

/** Number of hash buckets (vector length). Measured in `bench/embedders.ts`. */
export const DEFAULT_HASH_DIMS = 512;
/**
 * Family weights α. Words and character n-grams (morphology, typos) weigh equally; bigrams are off
 * by default because on SciFact they lowered nDCG@10 at every setting tried (more collisions for
 * little gain) and only lower the cosine of word-swapped copies (see `bench/embedders.ts`).
 */
export const DEFAULT_HASH_WEIGHTS: Readonly<HashingWeights> = { unigram: 1, bigram: 0, char: 1 };
/** Character n-gram lengths over `<word>`, inclusive. */
export const DEFAULT_CHAR_NGRAM: Readonly<{ min: number; max: number }> = { min: 3, max: 5 };
/** Texts embedded between progress reports (and event-loop yields, so an abort can land). */
export const DEFAULT_HASH_BATCH_SIZE = 256;
/** Bumped whenever the features or formula change, so old vectors are never mixed with new ones. */
export const HASHING_VERSION = 'v1';

export interface HashingWeights {
  unigram: number;
  bigram: number;
  char: number;
}

export interface HashingEmbedderOptions {
  /** Vector length, an integer in [8, 65536]. Defaults to `DEFAULT_HASH_DIMS` (512). */
  dims?: number;
  /** Family weights α ≥ 0 (0 switches a family off; not all 0). Defaults to `DEFAULT_HASH_WEIGHTS`. */
  weights?: Partial<HashingWeights>;
  /** Character n-gram lengths, 1 ≤ min ≤ max ≤ 8. Defaults to `DEFAULT_CHAR_NGRAM` (3–5). */
  charNgram?: { min: number; max: number };
  /** Fitted document frequencies (`fitHashingIdf`); without them every feature weighs 1. */
  idf?: HashingIdf;
  /** Texts per progress report. Defaults to `DEFAULT_HASH_BATCH_SIZE`. */
  batchSize?: number;
}

/** The hashing embedder: an Embedder plus a synchronous single-text form. */
export interface HashingEmbedder extends Embedder {
  /** The vector of one text (a zero vector when it has no word). */
  embedOne(text: string): Float32Array;
}

function badInput(field: string, want: string, got: unknown): QuiverError {
  return new QuiverError(
    'BAD_INPUT',
    `quiver: hashing embedder ${field} must be ${want}, got ${String(got)}`,
  );
}

function isNonNegative(x: number): boolean {
  return Number.isFinite(x) && x >= 0;
}

/** Resolved weights after defaults and validation. */
export function resolveHashingWeights(weights: Partial<HashingWeights> = {}): HashingWeights {
  const w = { ...DEFAULT_HASH_WEIGHTS, ...weights };
  for (const k of ['unigram', 'bigram', 'char'] as const) {
    if (!isNonNegative(w[k])) throw badInput(`weights.${k}`, 'a finite number ≥ 0', w[k]);
  }
  if (w.unigram + w.bigram + w.char === 0) throw badInput('weights', 'not all 0', 'all 0');
  return w;
}

/** The feature options an embedder with these options uses; pass them to `fitHashingIdf`. */
export function hashingFeatureOptions(options: HashingEmbedderOptions = {}): FeatureOptions {
  const w = resolveHashingWeights(options.weights);
  const g = options.charNgram ?? DEFAULT_CHAR_NGRAM;
  if (!Number.isInteger(g.min) || g.min < 1 || g.min > 8)
    throw badInput('charNgram.min', 'an integer in [1, 8]', g.min);
  if (!Number.isInteger(g.max) || g.max < g.min || g.max > 8) {
    throw badInput('charNgram.max', `an integer in [${g.min}, 8]`, g.max);
  }
  return { bigrams: w.bigram > 0, chars: w.char > 0, minN: g.min, maxN: g.max };
}

/** Shortest exact form for the fingerprint: 0.5 → "0.5", 1 → "1" (no rounding: distinct weights, distinct ids). */
function num(x: number): string {
  return String(x);
}

/**
 * Fingerprint `hashing:<variant>:<dims>:v1[:idf-<8 hex>]`, variant = `u<α>b<α>c<α>[g<min>-<max>]`
 * (the n-gram range only when character n-grams are on).
 */
export function hashingId(
  dims: number,
  weights: HashingWeights,
  g: { min: number; max: number },
  idf?: HashingIdf,
): string {
  const variant =
    `u${num(weights.unigram)}b${num(weights.bigram)}c${num(weights.char)}` +
    (weights.char > 0 ? `g${g.min}-${g.max}` : '');
  return (
    `hashing:${variant}:${dims}:${HASHING_VERSION}` + (idf === undefined ? '' : `:idf-${idfFingerprint(idf)}`)
  );
}

/** Sublinear term frequency 1 + ln tf (tf ≥ 1), tabled for small tf. */
const LOG_TF = Float64Array.from({ length: 256 }, (_, tf) => (tf === 0 ? 0 : 1 + Math.log(tf)));
function sublinearTf(tf: number): number {
  return tf < 256 ? LOG_TF[tf]! : 1 + Math.log(tf);
}

/**
 * Creates the built-in embedder. Symmetric: queries and documents are embedded the same way. Its
 * `similarity` is `'surface'`: a cosine only reflects shared words and character n-grams.
 *
 * @example
 * const e = createHashingEmbedder(); // 512 dims, stemmed words + character 3–5-grams
 * const [v] = await e.embed(['Cerebral white matter in preterm infants']);
 */
export function createHashingEmbedder(options: HashingEmbedderOptions = {}): HashingEmbedder {
  const dims = options.dims ?? DEFAULT_HASH_DIMS;
  if (!Number.isInteger(dims) || dims < 8 || dims > 65536)
    throw badInput('dims', 'an integer in [8, 65536]', dims);
  const batchSize = options.batchSize ?? DEFAULT_HASH_BATCH_SIZE;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw badInput('batchSize', 'an integer ≥ 1', batchSize);
  const weights = resolveHashingWeights(options.weights);
  const features = hashingFeatureOptions(options);
  const idf = options.idf;
  const idfTable = idf === undefined ? undefined : new IdfTable(idf);
  const extractor = new FeatureExtractor(
    features,
    idfTable === undefined ? undefined : (k) => idfTable.get(k),
  );
  const counts = new FeatureCounts();
  const alpha = [0, 0, 0];
  alpha[FAMILY_UNIGRAM] = weights.unigram;
  alpha[FAMILY_BIGRAM] = weights.bigram;
  alpha[FAMILY_CHAR] = weights.char;
  let scratch = new Float64Array(1024);
  const acc = new Float64Array(dims);
  const norm2 = [0, 0, 0];
  const scale = [0, 0, 0];

  function embedOne(text: string): Float32Array {
    const out = new Float32Array(dims);
    const n = extractor.extract(text, counts);
    if (n === 0) return out;
    if (scratch.length < n) scratch = new Float64Array(counts.keys.length);
    norm2[0] = norm2[1] = norm2[2] = 0;
    for (let i = 0; i < n; i++) {
      const w = sublinearTf(counts.counts[i]!) * counts.weights[i]!;
      scratch[i] = w;
      norm2[counts.families[i]!]! += w * w;
    }
    for (let f = 0; f < 3; f++) scale[f] = norm2[f]! > 0 ? alpha[f]! / Math.sqrt(norm2[f]!) : 0;
    acc.fill(0);
    for (let i = 0; i < n; i++) {
      const s = scale[counts.families[i]!]!;
      if (s === 0) continue;
      const key = counts.keys[i]!;
      const v = scratch[i]! * s;
      acc[(key >>> 1) % dims]! += (key & 1) === 1 ? -v : v;
    }
    let sq = 0;
    for (let d = 0; d < dims; d++) sq += acc[d]! * acc[d]!;
    if (sq === 0) return out;
    const inv = 1 / Math.sqrt(sq);
    for (let d = 0; d < dims; d++) out[d] = acc[d]! * inv;
    return out;
  }

  async function embed(texts: readonly string[], opts: EmbedOptions = {}): Promise<Float32Array[]> {
    const { signal, onProgress } = opts;
    if (signal?.aborted) throw abortedError(signal);
    const out: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += batchSize) {
      const end = Math.min(texts.length, start + batchSize);
      for (let i = start; i < end; i++) out.push(embedOne(texts[i]!));
      onProgress?.(end, texts.length);
      if (end < texts.length) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (signal?.aborted) throw abortedError(signal);
      }
    }
    return out;
  }

  return {
    id: hashingId(dims, weights, options.charNgram ?? DEFAULT_CHAR_NGRAM, idf),
    dims,
    similarity: 'surface',
    embed,
    embedOne,
  };
}
