/**
 * Tokeniser and bounded per-word feature cache for the hashing embedder. `tokenize(text)` yields
 * exactly the words of `stripClitic(w)` for `w` in `words(text)` (src/text/tokens.ts), but as ids
 * into a cache that holds, per distinct word, its stem hash, unigram key and character n-gram keys,
 * so stemming and n-gram hashing happen once per word instead of once per occurrence, and a word
 * already seen costs no string allocation, no regex and no Map lookup.
 *
 * ASCII text is scanned directly (lower-casing on the fly: for ASCII `fold` is just lower-case);
 * any other text is folded with `fold` first and scanned by code point with `\p{L}` / `\p{N}`
 * classes, the same classes as the `words` regex. Internal: not re-exported.
 */
import { fold, stem } from '../text/tokens.js';
import { STOPWORDS } from '../text/stopwords.js';
import { fmix32, fnv1a32, FNV_OFFSET, FNV_PRIME } from './feature-hash.js';
import { segmentWords } from '../text/segment.js';

/**
 * Words kept before the cache is cleared (checked before each text, so a text never sees a clear
 * and the cache exceeds a limit by at most one text's words). With the n-gram limit below this
 * bounds the cache to ≈ 40 MB at worst (≈ 70 MB with IDF weights); SciFact's 5k abstracts have ≈ 36k
 * words and ≈ 0.7 M n-gram keys (≈ 10 MB).
 */
export const DEFAULT_WORD_CACHE_WORDS = 131_072;
/** Character n-gram keys kept (over all cached words) before the cache is cleared. */
export const DEFAULT_WORD_CACHE_GRAMS = 4_000_000;

/** Seeds of the unigram and character families (see hashing-features.ts). */
export const SEED_UNIGRAM = 0x2f6b3a1d;
export const SEED_CHAR = 0x1b873593;
/** Boundary markers for character n-grams (`<word>`); control codes that `words()` never yields. */
const BEGIN = 0x02;
const END = 0x03;
const APOSTROPHE = 0x27;
const RIGHT_QUOTE = 0x2019;

/** Weight of a feature key (the IDF); absent → every feature weighs 1. */
export type KeyWeight = (key: number) => number;

export interface WordCacheOptions {
  /** Whether to compute character n-grams at all. */
  chars: boolean;
  minN: number;
  maxN: number;
  /** Soft limits (checked before each text): words, and n-gram keys over all words. */
  maxWords?: number;
  maxGrams?: number;
}

/**
 * Character n-gram keys of `<word>` for n in [minN, maxN], appended to `out` from `at` (which must
 * have room); returns the new end. FNV-1a rolled over char codes from each start, then
 * `fmix32(h ^ SEED_CHAR)`. A word shorter than minN − 2 gives its whole padded form.
 */
export function writeCharGramKeys(
  word: string,
  minN: number,
  maxN: number,
  out: Int32Array,
  at: number,
): number {
  const len = word.length + 2;
  const code = (i: number): number => (i === 0 ? BEGIN : i === len - 1 ? END : word.charCodeAt(i - 1));
  if (len < minN) {
    let h = FNV_OFFSET;
    for (let j = 0; j < len; j++) h = Math.imul(h ^ code(j), FNV_PRIME);
    out[at++] = fmix32(h ^ SEED_CHAR) | 0;
  }
  for (let i = 0; i + minN <= len; i++) {
    let h = FNV_OFFSET;
    const stop = Math.min(len, i + maxN);
    for (let j = i; j < stop; j++) {
      h = Math.imul(h ^ code(j), FNV_PRIME);
      if (j - i + 1 >= minN) out[at++] = fmix32(h ^ SEED_CHAR) | 0;
    }
  }
  return at;
}

/** Number of keys `writeCharGramKeys` gives for a word of `n` UTF-16 units: Σ_k max(0, n+3−k), or 1 when n+2 < minN. */
export function charGramCount(n: number, minN: number, maxN: number): number {
  const len = n + 2;
  if (len < minN) return 1;
  let c = 0;
  for (let k = minN; k <= maxN; k++) c += Math.max(0, len - k + 1);
  return c;
}

/** Code point classes for the `words` regex: 1 = letter (\p{L}), 2 = number (\p{N}), 3 = neither. */
const LETTER = 1;
const NUMBER = 2;
const OTHER = 3;
const BMP_CLASS = new Uint8Array(65536);
for (let c = 0; c < 128; c++) {
  BMP_CLASS[c] =
    (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) ? LETTER : c >= 0x30 && c <= 0x39 ? NUMBER : OTHER;
}
const IS_LETTER = /^\p{L}$/u;
const IS_NUMBER = /^\p{N}$/u;
function classifyCodePoint(cp: number): number {
  const s = String.fromCodePoint(cp);
  return IS_LETTER.test(s) ? LETTER : IS_NUMBER.test(s) ? NUMBER : OTHER;
}
/** Class of the code point at `i` of `s` (lone surrogates are OTHER, as for the u-flag regex). */
function classAt(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
    const d = s.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return classifyCodePoint(((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000);
  }
  let k = BMP_CLASS[c]!;
  if (k === 0) {
    k = c >= 0xd800 && c <= 0xdfff ? OTHER : classifyCodePoint(c);
    BMP_CLASS[c] = k;
  }
  return k;
}
/** UTF-16 length of the code point at `i` (2 for a valid surrogate pair). */
function unitsAt(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
    const d = s.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return 2;
  }
  return 1;
}

function grownInt32(a: Int32Array, n: number): Int32Array<ArrayBuffer> {
  const b = new Int32Array(n);
  b.set(a.subarray(0, Math.min(a.length, n)));
  return b;
}
function grownFloat64(a: Float64Array, n: number): Float64Array<ArrayBuffer> {
  const b = new Float64Array(n);
  b.set(a.subarray(0, Math.min(a.length, n)));
  return b;
}

/**
 * Word → features cache with its own tokeniser. Entries are dense ids; per-entry data lives in
 * parallel typed arrays (public for the extractor's hot loop; treat as read-only). The word table
 * is open addressing over 4-int slots `[hash, id + 1, start of the word in the char pool, length]`,
 * so a lookup touches one slot and the word's chars. Clearing when full only costs time: the output
 * never depends on what was cached.
 */
export class WordFeatureCache {
  /** Word ids of the last `tokenize`d text, in order (`ids[0..count)`). */
  ids = new Int32Array(256);
  /** Per entry: 1 when the word is a stop-word. */
  stop = new Uint8Array(1024);
  /** Per entry: FNV-1a of the stem (input to bigram keys). */
  term = new Int32Array(1024);
  /** Per entry: the unigram key and its weight. */
  unigram = new Int32Array(1024);
  unigramWeight = new Float64Array(1024);
  /** Per entry: its n-gram keys are `gramKeys[gramStart[id] .. gramStart[id + 1])`. */
  gramStart = new Int32Array(1025);
  gramKeys = new Int32Array(16384);
  /** Weights of `gramKeys` (only with a weight function). */
  gramWeights = new Float64Array(0);
  /** Number of entries. */
  size = 0;
  /** Times the cache was cleared (for tests and benches). */
  clears = 0;

  private slots = new Int32Array(4 * 4096);
  private chars = new Uint16Array(16384);
  private charsUsed = 0;
  private readonly maxWords: number;
  private readonly maxGrams: number;

  constructor(
    private readonly options: WordCacheOptions,
    private readonly weigh?: KeyWeight,
  ) {
    this.maxWords = options.maxWords ?? DEFAULT_WORD_CACHE_WORDS;
    this.maxGrams = options.maxGrams ?? DEFAULT_WORD_CACHE_GRAMS;
    if (weigh !== undefined) this.gramWeights = new Float64Array(this.gramKeys.length);
  }

  /** Drops every entry (ids from earlier texts become invalid). */
  clear(): void {
    this.size = 0;
    this.charsUsed = 0;
    this.slots.fill(0);
    this.gramStart[0] = 0;
    this.clears++;
  }

  /** The cached word of entry `id` (for tests; linear in the table size). */
  word(id: number): string {
    const slots = this.slots;
    for (let s = 0; s < slots.length; s += 4) {
      if (slots[s + 1] === id + 1) {
        return String.fromCharCode(...this.chars.subarray(slots[s + 2], slots[s + 2]! + slots[s + 3]!));
      }
    }
    throw new RangeError(`no cached word ${id}`);
  }

  /**
   * Tokenises `text` into `ids[0..n)` and returns n: one id per word of `words(text)`, with any
   * apostrophe suffix cut ("don't" → "don"), in order. The cache is cleared first when over its
   * limits (never in the middle of a text, so the ids stay valid until the next call).
   */
  tokenize(text: string): number {
    if (
      this.size >= this.maxWords ||
      this.gramStart[this.size]! >= this.maxGrams ||
      this.charsUsed >= this.maxWords * 16
    ) {
      this.clear();
    }
    const n = this.scanAscii(text);
    // Chinese, Japanese and Thai runs are split into words first, as `words` and the index do.
    return n >= 0 ? n : this.scanFolded(fold(segmentWords(text)));
  }

  /**
   * ASCII: words are [A-Za-z0-9]+ (lower-cased), optionally followed by '[A-Za-z]+ (dropped).
   * Returns −1 at the first non-ASCII unit (the caller then folds and rescans).
   */
  private scanAscii(text: string): number {
    const len = text.length;
    let n = 0;
    let i = 0;
    while (i < len) {
      let c = text.charCodeAt(i);
      if (c >= 0x80) return -1;
      let k = BMP_CLASS[c]!;
      if (k === OTHER) {
        i++;
        continue;
      }
      const start = i;
      let h = FNV_OFFSET;
      for (;;) {
        if (k === LETTER) c |= 0x20;
        h = Math.imul(h ^ c, FNV_PRIME);
        if (++i === len) break;
        c = text.charCodeAt(i);
        if (c >= 0x80) return -1;
        k = BMP_CLASS[c]!;
        if (k === OTHER) break;
      }
      const id = this.lookup(text, start, i, h, true);
      if (n === this.ids.length) this.ids = grownInt32(this.ids, n * 2);
      this.ids[n++] = id;
      // A clitic: apostrophe then letters; consumed, not part of the word. A non-ASCII unit in it
      // (`don't中文字`, where segmentation splits the CJK run off) sends the text to the folded path.
      if (c === APOSTROPHE && i + 1 < len && BMP_CLASS[text.charCodeAt(i + 1)] === LETTER) {
        i++;
        while (i < len) {
          const d = text.charCodeAt(i);
          if (d >= 0x80) return -1;
          if (BMP_CLASS[d] !== LETTER) break;
          i++;
        }
      }
    }
    return n;
  }

  /** Folded (any) text: words are runs of \p{L}\p{N} code points, then an optional ['’]\p{L}+ clitic. */
  private scanFolded(s: string): number {
    const len = s.length;
    let n = 0;
    let i = 0;
    while (i < len) {
      let k = classAt(s, i);
      if (k === OTHER) {
        i += unitsAt(s, i);
        continue;
      }
      const start = i;
      do {
        i += unitsAt(s, i);
        if (i === len) break;
        k = classAt(s, i);
      } while (k !== OTHER);
      let h = FNV_OFFSET;
      for (let j = start; j < i; j++) h = Math.imul(h ^ s.charCodeAt(j), FNV_PRIME);
      const id = this.lookup(s, start, i, h, false);
      if (n === this.ids.length) this.ids = grownInt32(this.ids, n * 2);
      this.ids[n++] = id;
      const c = i < len ? s.charCodeAt(i) : 0;
      if ((c === APOSTROPHE || c === RIGHT_QUOTE) && i + 1 < len && classAt(s, i + 1) === LETTER) {
        i++;
        while (i < len && classAt(s, i) === LETTER) i += unitsAt(s, i);
      }
    }
    return n;
  }

  /**
   * Entry of the word `str[start, end)` (ASCII letters lower-cased when `lower`), whose FNV-1a is
   * `h`; added when missing.
   */
  private lookup(str: string, start: number, end: number, h: number, lower: boolean): number {
    const slots = this.slots;
    const mask = (slots.length >> 2) - 1;
    const wlen = end - start;
    let s = fmix32(h) & mask;
    for (;;) {
      const at = s << 2;
      const id1 = slots[at + 1]!;
      if (id1 === 0) break;
      if (slots[at] === h && slots[at + 3] === wlen) {
        const chars = this.chars;
        const from = slots[at + 2]! - start;
        let j = start;
        if (lower) {
          while (j < end) {
            const c = str.charCodeAt(j);
            if (chars[from + j] !== (BMP_CLASS[c] === LETTER ? c | 0x20 : c)) break;
            j++;
          }
        } else {
          while (j < end && chars[from + j] === str.charCodeAt(j)) j++;
        }
        if (j === end) return id1 - 1;
      }
      s = (s + 1) & mask;
    }
    const word = lower ? str.slice(start, end).toLowerCase() : str.slice(start, end);
    return this.insert(word, h, s);
  }

  private insert(word: string, h: number, slot: number): number {
    const id = this.size++;
    if (id + 1 >= this.stop.length) this.growEntries();
    let from = this.charsUsed;
    if (from + word.length > this.chars.length) {
      const chars = new Uint16Array(Math.max(this.chars.length * 2, from + word.length));
      chars.set(this.chars);
      this.chars = chars;
    }
    for (let j = 0; j < word.length; j++) this.chars[from + j] = word.charCodeAt(j);
    this.charsUsed = from + word.length;
    const at = slot << 2;
    this.slots[at] = h;
    this.slots[at + 1] = id + 1;
    this.slots[at + 2] = from;
    this.slots[at + 3] = word.length;
    const term = fnv1a32(stem(word)) | 0;
    const unigram = fmix32(term ^ SEED_UNIGRAM) | 0;
    const weigh = this.weigh;
    this.stop[id] = STOPWORDS.has(word) ? 1 : 0;
    this.term[id] = term;
    this.unigram[id] = unigram;
    this.unigramWeight[id] = weigh === undefined ? 1 : weigh(unigram);
    from = this.gramStart[id]!;
    let to = from;
    if (this.options.chars) {
      const { minN, maxN } = this.options;
      const need = from + charGramCount(word.length, minN, maxN);
      if (need > this.gramKeys.length) {
        let cap = this.gramKeys.length * 2;
        while (cap < need) cap *= 2;
        this.gramKeys = grownInt32(this.gramKeys, cap);
        if (weigh !== undefined) this.gramWeights = grownFloat64(this.gramWeights, cap);
      }
      to = writeCharGramKeys(word, minN, maxN, this.gramKeys, from);
      if (weigh !== undefined) for (let g = from; g < to; g++) this.gramWeights[g] = weigh(this.gramKeys[g]!);
    }
    this.gramStart[id + 1] = to;
    if (this.size * 2 > this.slots.length >> 2) this.rehash();
    return id;
  }

  private growEntries(): void {
    const n = this.stop.length * 2;
    const stop = new Uint8Array(n);
    stop.set(this.stop);
    this.stop = stop;
    this.term = grownInt32(this.term, n);
    this.unigram = grownInt32(this.unigram, n);
    this.unigramWeight = grownFloat64(this.unigramWeight, n);
    this.gramStart = grownInt32(this.gramStart, n + 1);
  }

  private rehash(): void {
    const old = this.slots;
    const slots = new Int32Array(old.length * 2);
    const mask = (slots.length >> 2) - 1;
    for (let a = 0; a < old.length; a += 4) {
      if (old[a + 1] === 0) continue;
      let s = fmix32(old[a]!) & mask;
      while (slots[(s << 2) + 1] !== 0) s = (s + 1) & mask;
      slots.set(old.subarray(a, a + 4), s << 2);
    }
    this.slots = slots;
  }
}
