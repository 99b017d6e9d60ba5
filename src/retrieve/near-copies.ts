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
 * folded and folds nothing. Pairwise with an early exit: an unrelated pair is rejected after a
 * fifth of the smaller set.
 */
export function foldNearCopies(
  sets: readonly (Shingles | null)[],
  limit: number,
): { index: number; copies: number[] }[] {
  const kept: { index: number; copies: number[] }[] = [];
  for (let i = 0; i < sets.length; i++) {
    const set = sets[i] ?? null;
    const head =
      set === null
        ? undefined
        : kept.find((k) => {
            const other = sets[k.index] ?? null;
            return other !== null && nearCopy(other, set);
          });
    if (head !== undefined) head.copies.push(i);
    else if (kept.length < limit) kept.push({ index: i, copies: [] });
  }
  return kept;
}
