import { words } from '../text/tokens.js';

/**
 * Near-copies in a ranked list: the same passage saved twice, a copy with a sentence dropped, two
 * words swapped or a number changed. A ranked list shows each passage once; its copies fold under
 * the first (highest) of them, so ten results are ten passages.
 *
 * Two texts are near-copies when their word 3-gram sets A and B (folded words, as the index reads
 * them) satisfy
 *   containment = |A ∩ B| / min(|A|, |B|) ≥ 0.8   and   Jaccard = |A ∩ B| / |A ∪ B| ≥ 0.5.
 * Containment catches a copy with sentences dropped (one of three dropped: containment 1, Jaccard
 * 0.67); the Jaccard floor keeps a short quotation from folding under the long text that quotes it
 * (containment 1, Jaccard small). A swapped pair of words breaks about four 3-grams, a changed
 * number three, so light edits of a passage of a hundred words stay above both bounds.
 *
 * Edge cases: a text of fewer than 3 words uses its single words (or the whole folded text when it
 * has none) as its set; two empty sets are near-copies only when both texts are empty after folding
 * (they are then the same); one empty set and one not → not near-copies.
 */
export const NEAR_COPY_CONTAINMENT = 0.8;
export const NEAR_COPY_JACCARD = 0.5;

/** A text's 3-gram hashes, distinct and ascending: intersections are a merge, not hashing. */
export type Shingles = Int32Array;

/**
 * The 3-gram set of a text, as 32-bit hashes, sorted: each word is hashed once (FNV-1a over its
 * UTF-16 code units), and a 3-gram's hash mixes its three word hashes with a different odd
 * multiplier per position, so `a b c` and `c b a` differ. (A collision merges two 3-grams of one
 * pair of texts with odds about n²/2³³ for n 3-grams: negligible for passages.)
 */
export function shingles(text: string): Shingles {
  const h = words(text).map(fnv1a);
  const raw: number[] = [];
  if (h.length < 3) raw.push(...h);
  else
    for (let i = 0; i + 2 < h.length; i++)
      raw.push(
        Math.imul(h[i]!, 0x9e3779b1) ^ Math.imul(h[i + 1]!, 0x85ebca77) ^ Math.imul(h[i + 2]!, 0xc2b2ae3d),
      );
  const sorted = Int32Array.from(raw).sort();
  let n = 0;
  for (let i = 0; i < sorted.length; i++)
    if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[n++] = sorted[i]!;
  return sorted.slice(0, n);
}

/** FNV-1a, 32 bits, over a string's UTF-16 code units (as a signed 32-bit integer). */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h | 0;
}

/**
 * Are two shingle sets near-copies (the rule above)? Both bounds together read
 * |A ∩ B| ≥ max(0.8 · min(|A|, |B|), (|A| + |B|) / 3), so the merge stops as soon as the smaller
 * set has missed too many to get there.
 */
export function nearCopy(a: Shingles, b: Shingles): boolean {
  if (a.length === 0 || b.length === 0) return a.length === b.length;
  const [small, large] = a.length <= b.length ? [a, b] : [b, a];
  if (small.length < NEAR_COPY_JACCARD * large.length) return false;
  const need = Math.max(NEAR_COPY_CONTAINMENT * small.length, (a.length + b.length) / 3);
  const allowedMisses = small.length - need;
  let i = 0;
  let j = 0;
  let common = 0;
  let misses = 0;
  while (i < small.length) {
    if (j >= large.length) {
      misses += small.length - i;
      break;
    }
    const x = small[i]!;
    const y = large[j]!;
    if (x === y) {
      common++;
      i++;
      j++;
    } else if (x < y) {
      if (++misses > allowedMisses) return false;
      i++;
    } else j++;
  }
  return misses <= allowedMisses && nearCopyCounts(common, a.length, b.length);
}

/**
 * The rule above from the counts alone: `common` = |A ∩ B| of non-empty sets of sizes `a`, `b`.
 */
export function nearCopyCounts(common: number, a: number, b: number): boolean {
  const small = Math.min(a, b);
  return common >= NEAR_COPY_CONTAINMENT * small && common >= NEAR_COPY_JACCARD * (a + b - common);
}

/**
 * Fold a ranked list: walking it best first, an item that is a near-copy of an item kept before
 * it joins that item's copies (the earliest such item, so copies gather under the best-ranked
 * passage); the others are kept, until `limit` are kept. Items after the `limit`-th kept one still
 * fold under a kept item when they are its copies, else are dropped. Returns the kept items'
 * indexes, each with its copies' indexes, in rank order. Pure: `sets[i]` is item i's shingles,
 * or null for an item with nothing to compare (a heading without text of its own), which is never
 * folded and folds nothing.
 *
 * Not pairwise: a prefix filter finds the few kept items an item could be a copy of. Both bounds
 * of the rule give t = |A ∩ B| ≥ ⌈|X| / 2⌉ for either set X (containment ≥ 0.8 · min and Jaccard
 * ≥ 0.5 force |B| ≥ |A| / 2, hence |A ∩ B| ≥ max(0.8 · min, (|A| + |B|) / 3) ≥ |X| / 2). In
 * ascending order the i-th common hash c_i has at most |X| − t smaller hashes of X that are not
 * common, so it sits at position ≤ |X| − t + i ≤ ⌊|X| / 2⌋ + i in X: the first ⌊|X| / 2⌋ + M
 * hashes of each set (`prefixLength`, M = `PREFIX_MARGIN`) share at least min(M, t) hashes, and t
 * ≥ max(⌈|A| / 2⌉, ⌈|B| / 2⌉) (`prefixNeed`). Kept items' prefixes are indexed by hash; an item's
 * prefix counts its meetings with each kept item, and only a kept item met at least that often is
 * compared in full (`nearCopy`). Demanding M = 3 meetings instead of one cut the full comparisons
 * of a 100-result SciFact list from about 700 to 50 (unrelated abstracts share a common 3-gram or
 * two, rarely three). Empty sets have no prefix: an empty item folds under the first kept empty
 * one (the rule's "both empty").
 */
export function foldNearCopies(
  sets: readonly (Shingles | null)[],
  limit: number,
): { index: number; copies: number[] }[] {
  const kept: { index: number; copies: number[] }[] = [];
  let total = 0;
  for (const set of sets) if (set !== null) total += prefixLength(set.length);
  const index = new PrefixIndex(total);
  let firstEmpty: { index: number; copies: number[] } | undefined;
  for (let i = 0; i < sets.length; i++) {
    const set = sets[i] ?? null;
    let head: { index: number; copies: number[] } | undefined;
    if (set !== null && set.length === 0) head = firstEmpty;
    else if (set !== null) {
      const best = index.earliest(set, prefixLength(set.length), (k, met) => {
        const other = sets[kept[k]!.index]!;
        return met >= prefixNeed(set.length, other.length) && nearCopy(other, set);
      });
      if (best >= 0) head = kept[best];
    }
    if (head !== undefined) head.copies.push(i);
    else if (kept.length < limit) {
      const item = { index: i, copies: [] };
      if (set !== null && set.length === 0) firstEmpty ??= item;
      else if (set !== null) index.add(set, prefixLength(set.length), kept.length);
      kept.push(item);
    }
  }
  return kept;
}

/**
 * Hash → kept position pairs, open addressing with linear probing over typed arrays (the hashes
 * are 32-bit, mostly outside the small-integer range a Map keys cheaply). A hash may appear under
 * several positions, each in its own slot. Sized for `capacity` pairs at load ≤ 1/2.
 */
class PrefixIndex {
  private readonly keys: Int32Array;
  private readonly values: Int32Array; // kept position + 1; 0 marks an empty slot
  private readonly mask: number;

  constructor(capacity: number) {
    let size = 16;
    while (size < 2 * capacity) size *= 2;
    this.keys = new Int32Array(size);
    this.values = new Int32Array(size);
    this.mask = size - 1;
  }

  add(set: Shingles, n: number, position: number): void {
    for (let j = 0; j < n; j++) {
      const h = set[j]!;
      let slot = Math.imul(h, 0x9e3779b1) & this.mask;
      while (this.values[slot] !== 0) slot = (slot + 1) & this.mask;
      this.keys[slot] = h;
      this.values[slot] = position + 1;
    }
  }

  /**
   * The least position whose prefix meets `set`'s first `n` hashes and passes `check`, else −1;
   * `check` gets the position and how many of those hashes its prefix holds.
   */
  earliest(set: Shingles, n: number, check: (position: number, met: number) => boolean): number {
    const met = new Map<number, number>();
    for (let j = 0; j < n; j++) {
      const h = set[j]!;
      for (
        let slot = Math.imul(h, 0x9e3779b1) & this.mask;
        this.values[slot] !== 0;
        slot = (slot + 1) & this.mask
      ) {
        if (this.keys[slot] !== h) continue;
        const k = this.values[slot]! - 1;
        met.set(k, (met.get(k) ?? 0) + 1);
      }
    }
    for (const k of [...met.keys()].sort((x, y) => x - y)) if (check(k, met.get(k)!)) return k;
    return -1;
  }
}

/** Meetings the prefix filter asks of a pair (see {@link foldNearCopies}). */
export const PREFIX_MARGIN = 3;

/** The prefix a set of `n` hashes is indexed and probed by: ⌊n / 2⌋ + `PREFIX_MARGIN`, at most n. */
export function prefixLength(n: number): number {
  return Math.min(n, Math.floor(n / 2) + PREFIX_MARGIN);
}

/**
 * Prefix hashes two near-copies of sizes `a` and `b` (both > 0) share at least:
 * min(`PREFIX_MARGIN`, max(⌈a / 2⌉, ⌈b / 2⌉)) (see {@link foldNearCopies}).
 */
export function prefixNeed(a: number, b: number): number {
  return Math.min(PREFIX_MARGIN, Math.max(Math.ceil(a / 2), Math.ceil(b / 2)));
}
