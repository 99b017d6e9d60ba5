/**
 * mulberry32: a small deterministic PRNG (32-bit state) for reproducible test data and benchmark
 * corpora — never for anything secret. Returns a function giving uniform numbers in [0, 1).
 * The same seed gives the same sequence on every machine (integer arithmetic only); the seed is taken
 * modulo 2^32.
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
