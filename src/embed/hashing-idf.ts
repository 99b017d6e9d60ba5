/**
 * Fitted IDF state for the hashing embedder: document frequencies of feature keys over a corpus
 * (usually the vault's own chunks). Canonical (keys sorted), so the same corpus gives the same
 * bytes and the same fingerprint on every machine.
 */
import { QuiverError } from '../errors.js';
import { fmix32, fnv1a32 } from './feature-hash.js';
import { FeatureCounts, FeatureExtractor } from './hashing-features.js';
import type { FeatureOptions } from './hashing-features.js';

/** Version of the encoded IDF state; `decodeHashingIdf` rejects any other. */
export const HASHING_IDF_FORMAT_VERSION = 1;

/**
 * Document frequencies of hashed features. `keys` ascending (as unsigned), `df[i]` belongs to
 * `keys[i]`. Only features seen in at least 2 texts are kept: an absent key counts as df = 1, so
 * dropping the (many) hapaxes loses nothing, and a feature never seen weighs like a hapax.
 */
export interface HashingIdf {
  readonly formatVersion: typeof HASHING_IDF_FORMAT_VERSION;
  /** Number of texts the state was fitted on. */
  readonly docCount: number;
  readonly keys: Uint32Array;
  readonly df: Uint32Array;
}

/**
 * Smoothed inverse document frequency `ln((1 + N) / (1 + df)) + 1` (N = docCount). Always ≥ 1 for
 * df ≤ N; N = 0 gives 1.
 */
export function smoothIdf(docCount: number, df: number): number {
  return Math.log((1 + docCount) / (1 + df)) + 1;
}

/**
 * Counts, for each feature key, how many of `texts` contain it (keeping df ≥ 2). Use the same
 * feature options as the embedder that will use the state (keys of other n-gram lengths are simply
 * absent and weigh like hapaxes).
 */
export function fitHashingIdf(texts: Iterable<string>, options: FeatureOptions): HashingIdf {
  const extractor = new FeatureExtractor(options);
  const counts = new FeatureCounts();
  const df = new KeyCounter();
  let docCount = 0;
  for (const text of texts) {
    docCount++;
    const n = extractor.extract(text, counts);
    for (let i = 0; i < n; i++) df.increment(counts.keys[i]!);
  }
  const keys = df.keysAtLeast(2).sort();
  const out = new Uint32Array(keys.length);
  for (let i = 0; i < keys.length; i++) out[i] = df.get(keys[i]! | 0);
  return { formatVersion: HASHING_IDF_FORMAT_VERSION, docCount, keys, df: out };
}

/**
 * Count per 32-bit key: open addressing over Int32 keys with a parallel count array (count 0 marks
 * an empty slot), doubling at half load. Several times faster than a Map<number, number> for the
 * millions of increments of an IDF fit.
 */
export class KeyCounter {
  private keys = new Int32Array(1 << 16);
  private counts = new Uint32Array(1 << 16);
  /** Number of distinct keys. */
  size = 0;

  /** Adds 1 to the count of `key` (any 32-bit integer, signed or not). */
  increment(key: number): void {
    key |= 0;
    const mask = this.keys.length - 1;
    let s = (key ^ (key >>> 15)) & mask;
    for (;;) {
      const c = this.counts[s]!;
      if (c === 0) break;
      if (this.keys[s] === key) {
        this.counts[s] = c + 1;
        return;
      }
      s = (s + 1) & mask;
    }
    this.keys[s] = key;
    this.counts[s] = 1;
    if (++this.size * 2 > this.keys.length) this.grow();
  }

  /** The count of `key` (0 when never incremented). */
  get(key: number): number {
    key |= 0;
    const mask = this.keys.length - 1;
    let s = (key ^ (key >>> 15)) & mask;
    for (;;) {
      const c = this.counts[s]!;
      if (c === 0 || this.keys[s] === key) return c;
      s = (s + 1) & mask;
    }
  }

  /** The keys (as unsigned) counted at least `min` ≥ 1 times, in table order. */
  keysAtLeast(min: number): Uint32Array {
    const out: number[] = [];
    for (let s = 0; s < this.keys.length; s++) if (this.counts[s]! >= min) out.push(this.keys[s]! >>> 0);
    return Uint32Array.from(out);
  }

  private grow(): void {
    const keys = this.keys;
    const counts = this.counts;
    this.keys = new Int32Array(keys.length * 2);
    this.counts = new Uint32Array(keys.length * 2);
    const mask = this.keys.length - 1;
    for (let i = 0; i < keys.length; i++) {
      const c = counts[i]!;
      if (c === 0) continue;
      const key = keys[i]!;
      let s = (key ^ (key >>> 15)) & mask;
      while (this.counts[s] !== 0) s = (s + 1) & mask;
      this.keys[s] = key;
      this.counts[s] = c;
    }
  }
}

/**
 * key → idf weight for the embedder's hot loop: an open-addressing table over Int32 keys (signed,
 * as FeatureCounts stores them) with Float32 weights; 0 marks an empty slot (weights are ≥ 1).
 */
export class IdfTable {
  private readonly keys: Int32Array;
  private readonly weights: Float32Array;
  private readonly mask: number;
  /** Weight of an absent key: the idf of a hapax (df = 1). */
  readonly missing: number;

  constructor(idf: HashingIdf) {
    let cap = 16;
    while (cap < idf.keys.length * 2) cap *= 2;
    this.keys = new Int32Array(cap);
    this.weights = new Float32Array(cap);
    this.mask = cap - 1;
    this.missing = smoothIdf(idf.docCount, 1);
    for (let i = 0; i < idf.keys.length; i++) {
      const key = idf.keys[i]! | 0;
      let s = (key ^ (key >>> 15)) & this.mask;
      while (this.weights[s] !== 0) s = (s + 1) & this.mask;
      this.keys[s] = key;
      this.weights[s] = Math.max(1, smoothIdf(idf.docCount, idf.df[i]!));
    }
  }

  get(key: number): number {
    let s = (key ^ (key >>> 15)) & this.mask;
    for (;;) {
      const w = this.weights[s]!;
      if (w === 0) return this.missing;
      if (this.keys[s] === key) return w;
      s = (s + 1) & this.mask;
    }
  }
}

/** Short (8 hex) fingerprint of the state: FNV-1a over docCount, then each (key, df), fmix'd. */
export function idfFingerprint(idf: HashingIdf): string {
  let h = fnv1a32(`idf:${idf.docCount}:${idf.keys.length}`);
  for (let i = 0; i < idf.keys.length; i++) {
    h = fmix32(Math.imul(h ^ idf.keys[i]!, 0x01000193) ^ idf.df[i]!);
  }
  return h.toString(16).padStart(8, '0');
}

/**
 * Bytes for the store: `[u32 formatVersion, u32 docCount, u32 n, n × u32 keys, n × u32 df]`,
 * little-endian.
 */
export function encodeHashingIdf(idf: HashingIdf): Uint8Array {
  const n = idf.keys.length;
  const buf = new Uint8Array(12 + 8 * n);
  const view = new DataView(buf.buffer);
  view.setUint32(0, idf.formatVersion, true);
  view.setUint32(4, idf.docCount, true);
  view.setUint32(8, n, true);
  for (let i = 0; i < n; i++) {
    view.setUint32(12 + 4 * i, idf.keys[i]!, true);
    view.setUint32(12 + 4 * n + 4 * i, idf.df[i]!, true);
  }
  return buf;
}

/** Inverse of `encodeHashingIdf`. Unknown version or a truncated/inconsistent buffer → QuiverError('SCHEMA'). */
export function decodeHashingIdf(bytes: Uint8Array): HashingIdf {
  const bad = (why: string): QuiverError =>
    new QuiverError('SCHEMA', `quiver: hashing IDF state is unreadable: ${why}`);
  if (bytes.length < 12) throw bad(`${bytes.length} bytes is shorter than the 12-byte header`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(0, true);
  if (version !== HASHING_IDF_FORMAT_VERSION) {
    throw bad(`formatVersion must be ${HASHING_IDF_FORMAT_VERSION}, got ${version}`);
  }
  const docCount = view.getUint32(4, true);
  const n = view.getUint32(8, true);
  if (bytes.length !== 12 + 8 * n)
    throw bad(`expected ${12 + 8 * n} bytes for ${n} keys, got ${bytes.length}`);
  const keys = new Uint32Array(n);
  const df = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    keys[i] = view.getUint32(12 + 4 * i, true);
    df[i] = view.getUint32(12 + 4 * n + 4 * i, true);
    if (i > 0 && keys[i]! <= keys[i - 1]!) throw bad('keys are not strictly ascending');
    if (df[i]! > docCount) throw bad(`df ${df[i]} exceeds docCount ${docCount}`);
  }
  return { formatVersion: HASHING_IDF_FORMAT_VERSION, docCount, keys, df };
}
