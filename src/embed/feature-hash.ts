/**
 * Stable 32-bit hashes for feature hashing: FNV-1a for strings, MurmurHash3's `fmix32` finaliser
 * to spread the bits, and a pair combiner. Integer-only (`Math.imul`, xor, shifts), so the result
 * is the same on every machine and every run.
 */

/** FNV-1a 32-bit offset basis. */
export const FNV_OFFSET = 0x811c9dc5;
/** FNV-1a 32-bit prime. */
export const FNV_PRIME = 0x01000193;

/**
 * FNV-1a over the UTF-16 code units of `text`: `h = offset; for each unit u: h = (h ^ u) · prime`.
 * For ASCII text this is exactly the standard byte-wise FNV-1a 32 (`fnv1a32('a') === 0xe40c292c`);
 * non-ASCII units are fed whole (one step per 16-bit unit), which is stable but not the byte-wise
 * digest. Empty text gives the offset basis. Returns an unsigned 32-bit integer.
 *
 * @example fnv1a32('foobar') // 0xbf9cf968
 */
export function fnv1a32(text: string, seed: number = FNV_OFFSET): number {
  let h = seed | 0;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), FNV_PRIME);
  return h >>> 0;
}

/**
 * MurmurHash3 finaliser: `h ^= h >>> 16; h *= 0x85ebca6b; h ^= h >>> 13; h *= 0xc2b2ae35;
 * h ^= h >>> 16`. A bijection on 32-bit integers with full avalanche; `fmix32(0) === 0`.
 * Returns an unsigned 32-bit integer.
 */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * Order-sensitive combination of two 32-bit hashes: `fmix32(a · φ32 ⊕ b)`, φ32 = 0x9e3779b1
 * (the golden-ratio constant). `combine32(a, b) !== combine32(b, a)` in general, so bigram
 * "white matter" differs from "matter white".
 */
export function combine32(a: number, b: number): number {
  return fmix32(Math.imul(a, 0x9e3779b1) ^ b);
}

/**
 * Where a feature lands in a `dims`-bucket signed hash: the sign comes from bit 0 and the bucket
 * from the remaining 31 bits modulo `dims`. `key` is any 32-bit integer (signed or not).
 */
export function bucketOf(key: number, dims: number): { bucket: number; sign: 1 | -1 } {
  return { bucket: (key >>> 1) % dims, sign: (key & 1) === 1 ? -1 : 1 };
}
