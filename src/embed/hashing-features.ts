/**
 * Feature extraction for the hashing embedder: turns a text into counted 32-bit feature keys in
 * three families (stemmed word unigrams, word bigrams, character n-grams within words). Shared by
 * the embedder and by IDF fitting so both see exactly the same keys. Internal: not re-exported.
 */
import { combine32 } from './feature-hash.js';
import { charGramCount, WordFeatureCache, writeCharGramKeys } from './word-feature-cache.js';
import type { KeyWeight, WordCacheOptions } from './word-feature-cache.js';

export type { KeyWeight } from './word-feature-cache.js';

/** Feature families. Each family's keys are seeded differently, so "cat" the word and "cat" the trigram never meet. */
export const FAMILY_UNIGRAM = 0;
export const FAMILY_BIGRAM = 1;
export const FAMILY_CHAR = 2;
export type Family = typeof FAMILY_UNIGRAM | typeof FAMILY_BIGRAM | typeof FAMILY_CHAR;

/** Seed of the bigram family (unigram and character seeds live in word-feature-cache.ts). */
export const SEED_BIGRAM = 0x5bd1e995;

export interface FeatureOptions {
  bigrams: boolean;
  chars: boolean;
  /** Character n-gram lengths, inclusive, over `<word>` (markers count as characters). */
  minN: number;
  maxN: number;
}

/**
 * Counts of feature keys for one text. Open addressing over `key → index`; the parallel lists keep
 * insertion order, so iteration (and thus float summation order) depends only on the text.
 */
export class FeatureCounts {
  keys = new Int32Array(1024);
  counts = new Uint32Array(1024);
  families = new Uint8Array(1024);
  /** Per-key weight given on first insertion (the IDF; 1 without one). */
  weights = new Float64Array(1024);
  size = 0;
  private slots = new Int32Array(4096);

  reset(): void {
    this.slots.fill(0);
    this.size = 0;
  }

  /** Counts `key` `times` more times; its family and weight are those given the first time. */
  add(key: number, family: Family, weight = 1, times = 1): void {
    const mask = this.slots.length - 1;
    let s = (key ^ (key >>> 15)) & mask;
    for (;;) {
      const at = this.slots[s]!;
      if (at === 0) break;
      if (this.keys[at - 1] === key) {
        this.counts[at - 1]! += times;
        return;
      }
      s = (s + 1) & mask;
    }
    const i = this.size++;
    if (i >= this.keys.length) this.growLists();
    this.keys[i] = key;
    this.counts[i] = times;
    this.families[i] = family;
    this.weights[i] = weight;
    this.slots[s] = i + 1;
    if (this.size * 2 > this.slots.length) this.rehash();
  }

  private growLists(): void {
    const n = this.keys.length * 2;
    const keys = new Int32Array(n);
    keys.set(this.keys);
    const counts = new Uint32Array(n);
    counts.set(this.counts);
    const families = new Uint8Array(n);
    families.set(this.families);
    const weights = new Float64Array(n);
    weights.set(this.weights);
    this.keys = keys;
    this.counts = counts;
    this.families = families;
    this.weights = weights;
  }

  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    for (let i = 0; i < this.size; i++) {
      const key = this.keys[i]!;
      let s = (key ^ (key >>> 15)) & mask;
      while (slots[s] !== 0) s = (s + 1) & mask;
      slots[s] = i + 1;
    }
    this.slots = slots;
  }
}

/**
 * Character n-gram keys of `<word>` for n in [minN, maxN], by rolling FNV-1a over char codes from
 * each start (no substring allocation). A word shorter than minN − 2 gives its whole padded form.
 */
export function charGramKeys(word: string, minN: number, maxN: number): Int32Array {
  const out = new Int32Array(charGramCount(word.length, minN, maxN));
  writeCharGramKeys(word, minN, maxN, out, 0);
  return out;
}

/**
 * Extracts features into a FeatureCounts. Holds a bounded cache from folded word to its stem hash
 * and n-gram keys (`WordFeatureCache`), which is where the speed comes from (most words repeat).
 */
export class FeatureExtractor {
  private readonly cache: WordFeatureCache;
  /** Per-text distinct words: `seen[id] === stamp` marks a word already met, at `slot[id]`. */
  private seen = new Int32Array(0);
  private slot = new Int32Array(0);
  private stamp = 0;
  private distinct = new Int32Array(256);
  private times = new Int32Array(256);

  constructor(
    private readonly options: FeatureOptions,
    private readonly weigh?: KeyWeight,
    limits: Pick<WordCacheOptions, 'maxWords' | 'maxGrams'> = {},
  ) {
    this.cache = new WordFeatureCache(
      { chars: options.chars, minN: options.minN, maxN: options.maxN, ...limits },
      weigh,
    );
  }

  /** Times the word cache was cleared (for tests and benches). */
  get cacheClears(): number {
    return this.cache.clears;
  }

  /**
   * Counts the features of `text` into `out` (which is reset first). Content words (stop-words
   * dropped) give a stemmed unigram, a bigram with the previous content word and their character
   * n-grams. A text made only of stop-words falls back to their unigrams, so "to be or not to be"
   * still has a vector. Returns the number of features counted (0 → zero vector).
   *
   * Keys are inserted in the order of their first occurrence in the text, so sums over `out` are
   * the same whichever way they are counted: without bigrams each distinct word is counted once,
   * with its multiplicity, in order of first occurrence (which first-inserts every key at the same
   * point as counting occurrence by occurrence would).
   */
  extract(text: string, out: FeatureCounts): number {
    out.reset();
    const cache = this.cache;
    const n = cache.tokenize(text);
    if (this.options.bigrams) return this.extractSequential(n, out);
    // Distinct words in order of first occurrence, with multiplicities.
    // Stamps only grow, so entries reused after a cache clear never look already met.
    if (this.seen.length < cache.size || this.stamp === 0x7fffffff) {
      this.seen = new Int32Array(Math.max(cache.stop.length, cache.size));
      this.slot = new Int32Array(this.seen.length);
      this.stamp = 0;
    }
    const stamp = ++this.stamp;
    const seen = this.seen;
    const slot = this.slot;
    const ids = cache.ids;
    if (this.distinct.length < n) {
      this.distinct = new Int32Array(n);
      this.times = new Int32Array(n);
    }
    const distinct = this.distinct;
    const times = this.times;
    let nd = 0;
    let content = 0;
    for (let t = 0; t < n; t++) {
      const id = ids[t]!;
      if (seen[id] === stamp) {
        times[slot[id]!]!++;
      } else {
        seen[id] = stamp;
        slot[id] = nd;
        distinct[nd] = id;
        times[nd++] = 1;
        content += cache.stop[id]! ^ 1;
      }
    }
    const stop = cache.stop;
    const unigram = cache.unigram;
    const unigramWeight = cache.unigramWeight;
    if (content === 0) {
      for (let d = 0; d < nd; d++) {
        const id = distinct[d]!;
        out.add(unigram[id]!, FAMILY_UNIGRAM, unigramWeight[id]!, times[d]!);
      }
      return out.size;
    }
    const chars = this.options.chars;
    const gramStart = cache.gramStart;
    const gramKeys = cache.gramKeys;
    const gramWeights = cache.gramWeights;
    const weighted = this.weigh !== undefined;
    for (let d = 0; d < nd; d++) {
      const id = distinct[d]!;
      if (stop[id] === 1) continue;
      const m = times[d]!;
      out.add(unigram[id]!, FAMILY_UNIGRAM, unigramWeight[id]!, m);
      if (!chars) continue;
      const end = gramStart[id + 1]!;
      if (weighted) {
        for (let g = gramStart[id]!; g < end; g++) out.add(gramKeys[g]!, FAMILY_CHAR, gramWeights[g]!, m);
      } else {
        for (let g = gramStart[id]!; g < end; g++) out.add(gramKeys[g]!, FAMILY_CHAR, 1, m);
      }
    }
    return out.size;
  }

  /** Occurrence by occurrence (needed for bigrams, which depend on the word sequence). */
  private extractSequential(n: number, out: FeatureCounts): number {
    const cache = this.cache;
    const { chars } = this.options;
    const weigh = this.weigh;
    let prev = 0;
    let havePrev = false;
    for (let t = 0; t < n; t++) {
      const id = cache.ids[t]!;
      if (cache.stop[id] === 1) continue;
      out.add(cache.unigram[id]!, FAMILY_UNIGRAM, cache.unigramWeight[id]!);
      const term = cache.term[id]!;
      if (havePrev) {
        const key = combine32(prev, term ^ SEED_BIGRAM) | 0;
        out.add(key, FAMILY_BIGRAM, weigh === undefined ? 1 : weigh(key));
      }
      prev = term;
      havePrev = true;
      if (!chars) continue;
      const end = cache.gramStart[id + 1]!;
      for (let g = cache.gramStart[id]!; g < end; g++) {
        out.add(cache.gramKeys[g]!, FAMILY_CHAR, weigh === undefined ? 1 : cache.gramWeights[g]!);
      }
    }
    if (out.size === 0) {
      for (let t = 0; t < n; t++) {
        const id = cache.ids[t]!;
        out.add(cache.unigram[id]!, FAMILY_UNIGRAM, cache.unigramWeight[id]!);
      }
    }
    return out.size;
  }
}
