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

/**
 * The 3-gram set of a text, as 32-bit hashes: each word is hashed once (FNV-1a over its UTF-16
 * code units), and a 3-gram's hash mixes its three word hashes with a different odd multiplier per
 * position, so `a b c` and `c b a` differ. (A collision merges two 3-grams of one pair of texts
 * with odds about n²/2³³ for n 3-grams: negligible for passages.)
 */
export function shingles(text: string): Set<number> {
  const w = words(text);
  const out = new Set<number>();
  const h = w.map(fnv1a);
  if (h.length < 3) {
    for (const x of h) out.add(x);
    return out;
  }
  for (let i = 0; i + 2 < h.length; i++)
    out.add(
      (Math.imul(h[i]!, 0x9e3779b1) ^ Math.imul(h[i + 1]!, 0x85ebca77) ^ Math.imul(h[i + 2]!, 0xc2b2ae3d)) >>>
        0,
    );
  return out;
}

/** FNV-1a, 32 bits, over a string's UTF-16 code units. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Are two shingle sets near-copies (the rule above)? */
export function nearCopy(a: ReadonlySet<number>, b: ReadonlySet<number>): boolean {
  if (a.size === 0 || b.size === 0) return a.size === b.size;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  if (small.size < NEAR_COPY_JACCARD * large.size) return false;
  let common = 0;
  for (const x of small) if (large.has(x)) common++;
  return nearCopyCounts(common, a.size, b.size);
}

/**
 * The rule above from the counts alone: `common` = |A ∩ B| of non-empty sets of sizes `a`, `b`.
 * (Both bounds together need the smaller set to be at least half the larger.)
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
 * indexes, each with its copies' indexes, in rank order. Pure: `sets[i]` is item i's shingle set,
 * or null for an item with nothing to compare (a heading without text of its own), which is never
 * folded and folds nothing.
 */
export function foldNearCopies(
  sets: readonly (ReadonlySet<number> | null)[],
  limit: number,
): { index: number; copies: number[] }[] {
  const kept: { index: number; copies: number[] }[] = [];
  // Which kept items hold each 3-gram: an item's overlap with every kept item in one pass over its
  // own 3-grams, instead of a set intersection per pair (100 results: 5,000 pairs a query).
  const owners = new Map<number, number[]>();
  let emptyHead: { index: number; copies: number[] } | undefined;
  const common = new Map<number, number>();
  for (let i = 0; i < sets.length; i++) {
    const set = sets[i] ?? null;
    if (set === null) {
      if (kept.length < limit) kept.push({ index: i, copies: [] });
      continue;
    }
    let head: { index: number; copies: number[] } | undefined;
    if (set.size === 0) head = emptyHead;
    else {
      common.clear();
      for (const x of set) for (const k of owners.get(x) ?? []) common.set(k, (common.get(k) ?? 0) + 1);
      let best = Infinity;
      for (const [k, n] of common)
        if (k < best && nearCopyCounts(n, set.size, sets[kept[k]!.index]!.size)) best = k;
      if (best !== Infinity) head = kept[best];
    }
    if (head !== undefined) head.copies.push(i);
    else if (kept.length < limit) {
      const k = kept.length;
      const entry = { index: i, copies: [] };
      kept.push(entry);
      if (set.size === 0) emptyHead = entry;
      for (const x of set) {
        const o = owners.get(x);
        if (o === undefined) owners.set(x, [k]);
        else o.push(k);
      }
    }
  }
  return kept;
}
