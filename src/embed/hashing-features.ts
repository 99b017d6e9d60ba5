/**
 * Feature extraction for the hashing embedder: turns a text into counted 32-bit feature keys in
 * three families (stemmed word unigrams, word bigrams, character n-grams within words). Shared by
 * the embedder and by IDF fitting so both see exactly the same keys. Internal: not re-exported.
 */
import { stem, words } from '../text/tokens.js';
import { STOPWORDS } from '../text/stopwords.js';
import { combine32, fmix32, fnv1a32, FNV_OFFSET, FNV_PRIME } from './feature-hash.js';

/** Feature families. Each family's keys are seeded differently, so "cat" the word and "cat" the trigram never meet. */
export const FAMILY_UNIGRAM = 0;
export const FAMILY_BIGRAM = 1;
export const FAMILY_CHAR = 2;
export type Family = typeof FAMILY_UNIGRAM | typeof FAMILY_BIGRAM | typeof FAMILY_CHAR;

const SEED_UNIGRAM = 0x2f6b3a1d;
const SEED_BIGRAM = 0x5bd1e995;
const SEED_CHAR = 0x1b873593;
/** Boundary markers for character n-grams (`<word>`); control codes that `words()` never yields. */
const BEGIN = 0x02;
const END = 0x03;
/** Word-cache size; the cache is cleared when full (it only saves time, never changes output). */
const WORD_CACHE_LIMIT = 100_000;

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

  add(key: number, family: Family, weight = 1): void {
    const mask = this.slots.length - 1;
    let s = (key ^ (key >>> 15)) & mask;
    for (;;) {
      const at = this.slots[s]!;
      if (at === 0) break;
      if (this.keys[at - 1] === key) {
        this.counts[at - 1]!++;
        return;
      }
      s = (s + 1) & mask;
    }
    const i = this.size++;
    if (i >= this.keys.length) this.growLists();
    this.keys[i] = key;
    this.counts[i] = 1;
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

interface WordEntry {
  /** Hash of the stem (unseeded): input to unigram and bigram keys. */
  term: number;
  unigram: number;
  unigramWeight: number;
  stop: boolean;
  /** Character n-gram keys of `<word>`, in order, and their weights (looked up once per word, not per use). */
  grams: Int32Array;
  gramWeights: Float64Array;
}

/** Weight of a feature key (the IDF); absent → every feature weighs 1. */
export type KeyWeight = (key: number) => number;

/**
 * Character n-gram keys of `<word>` for n in [minN, maxN], by rolling FNV-1a over char codes from
 * each start (no substring allocation). A word shorter than minN − 2 gives its whole padded form.
 */
export function charGramKeys(word: string, minN: number, maxN: number): Int32Array {
  const len = word.length + 2;
  const code = (i: number): number => (i === 0 ? BEGIN : i === len - 1 ? END : word.charCodeAt(i - 1));
  const out: number[] = [];
  if (len < minN) {
    let h = FNV_OFFSET;
    for (let j = 0; j < len; j++) h = Math.imul(h ^ code(j), FNV_PRIME);
    out.push(fmix32(h ^ SEED_CHAR) | 0);
  }
  for (let i = 0; i + minN <= len; i++) {
    let h = FNV_OFFSET;
    const stop = Math.min(len, i + maxN);
    for (let j = i; j < stop; j++) {
      h = Math.imul(h ^ code(j), FNV_PRIME);
      if (j - i + 1 >= minN) out.push(fmix32(h ^ SEED_CHAR) | 0);
    }
  }
  return Int32Array.from(out);
}

/** The word without an apostrophe suffix: "don't" → "don", "brain’s" → "brain" (as contentTerms does). */
function stripClitic(w: string): string {
  const a = w.indexOf("'");
  const b = w.indexOf('’');
  const cut = a === -1 ? b : b === -1 ? a : Math.min(a, b);
  return cut === -1 ? w : w.slice(0, cut);
}

/**
 * Extracts features into a FeatureCounts. Holds a bounded cache from folded word to its stem hash
 * and n-gram keys, which is where the speed comes from (most words repeat).
 */
export class FeatureExtractor {
  private readonly cache = new Map<string, WordEntry>();

  constructor(
    private readonly options: FeatureOptions,
    private readonly weigh?: KeyWeight,
  ) {}

  private entry(bare: string): WordEntry {
    let e = this.cache.get(bare);
    if (e !== undefined) return e;
    const term = fnv1a32(stem(bare));
    const unigram = fmix32(term ^ SEED_UNIGRAM) | 0;
    const grams = this.options.chars
      ? charGramKeys(bare, this.options.minN, this.options.maxN)
      : new Int32Array(0);
    const weigh = this.weigh;
    e = {
      term,
      unigram,
      unigramWeight: weigh === undefined ? 1 : weigh(unigram),
      stop: STOPWORDS.has(bare),
      grams,
      gramWeights: Float64Array.from(grams, (g) => (weigh === undefined ? 1 : weigh(g))),
    };
    if (this.cache.size >= WORD_CACHE_LIMIT) this.cache.clear();
    this.cache.set(bare, e);
    return e;
  }

  /**
   * Counts the features of `text` into `out` (which is reset first). Content words (stop-words
   * dropped) give a stemmed unigram, a bigram with the previous content word and their character
   * n-grams. A text made only of stop-words falls back to their unigrams, so "to be or not to be"
   * still has a vector. Returns the number of features counted (0 → zero vector).
   */
  extract(text: string, out: FeatureCounts): number {
    out.reset();
    const { bigrams, chars } = this.options;
    let prev = 0;
    let havePrev = false;
    let stops: WordEntry[] | undefined;
    for (const w of words(text)) {
      const bare = stripClitic(w);
      if (bare.length === 0) continue;
      const e = this.entry(bare);
      if (e.stop) {
        if (out.size === 0) (stops ??= []).push(e);
        continue;
      }
      out.add(e.unigram, FAMILY_UNIGRAM, e.unigramWeight);
      if (bigrams && havePrev) {
        const key = combine32(prev, e.term ^ SEED_BIGRAM) | 0;
        out.add(key, FAMILY_BIGRAM, this.weigh === undefined ? 1 : this.weigh(key));
      }
      prev = e.term;
      havePrev = true;
      if (chars)
        for (let g = 0; g < e.grams.length; g++) out.add(e.grams[g]!, FAMILY_CHAR, e.gramWeights[g]!);
    }
    if (out.size === 0 && stops !== undefined) {
      for (const e of stops) out.add(e.unigram, FAMILY_UNIGRAM, e.unigramWeight);
    }
    return out.size;
  }
}
