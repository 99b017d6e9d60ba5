/**
 * A small seedable pseudo-random generator for reproducible experiments (bootstrap resampling,
 * shuffles, sampling). xoshiro128** (Blackman & Vigna) over four 32-bit words, seeded through
 * splitmix32 so that nearby seeds give unrelated streams. Not cryptographic.
 */
import { QuiverError } from '../errors.js';

/** A deterministic stream of pseudo-random numbers. */
export interface Prng {
  /** A float uniform in [0, 1) with 32 random bits. */
  next(): number;
  /** An integer uniform in [0, n) for an integer 1 ≤ n ≤ 2^32 (unbiased: rejection sampling). */
  int(n: number): number;
  /** A 32-bit unsigned integer. */
  uint32(): number;
}

/** The seed used when none is given. */
export const DEFAULT_PRNG_SEED = 0;

function splitmix32(seed: number): () => number {
  let a = seed | 0;
  return () => {
    a = (a + 0x9e3779b9) | 0;
    let t = a ^ (a >>> 16);
    t = Math.imul(t, 0x21f0aaad);
    t ^= t >>> 15;
    t = Math.imul(t, 0x735a2d97);
    return (t ^ (t >>> 15)) >>> 0;
  };
}

const rotl = (x: number, k: number): number => (x << k) | (x >>> (32 - k));

/**
 * Create a generator from an integer seed (negative and values beyond 32 bits are fine: the high
 * and low halves are both mixed in). The same seed always gives the same stream.
 *
 * @example const rng = createPrng(42); rng.next(); rng.int(6);
 */
export function createPrng(seed: number = DEFAULT_PRNG_SEED): Prng {
  if (!Number.isSafeInteger(seed)) {
    throw new QuiverError('BAD_INPUT', `quiver: seed must be a safe integer, got ${seed}`);
  }
  const lo = seed % 0x1_0000_0000;
  const hi = Math.floor(seed / 0x1_0000_0000);
  const mix = splitmix32(lo ^ Math.imul(hi | 0, 0x85ebca6b));
  let s0 = mix();
  let s1 = mix();
  let s2 = mix();
  let s3 = mix();
  if ((s0 | s1 | s2 | s3) === 0) s0 = 1; // the all-zero state is a fixed point

  const uint32 = (): number => {
    const result = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
    const t = s1 << 9;
    s2 ^= s0;
    s3 ^= s1;
    s1 ^= s2;
    s0 ^= s3;
    s2 ^= t;
    s3 = rotl(s3, 11);
    return result;
  };

  return {
    uint32,
    next: () => uint32() / 0x1_0000_0000,
    int(n: number): number {
      if (!Number.isInteger(n) || n < 1 || n > 0x1_0000_0000) {
        throw new QuiverError('BAD_INPUT', `quiver: n must be an integer in [1, 2^32], got ${n}`);
      }
      // Reject the top partial block so every residue is equally likely.
      const limit = 0x1_0000_0000 - (0x1_0000_0000 % n);
      for (;;) {
        const x = uint32();
        if (x < limit) return x % n;
      }
    },
  };
}

/** Fisher–Yates shuffle of a copy of `items` with the given generator. */
export function shuffled<T>(items: readonly T[], rng: Prng): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    const tmp = out[i]!;
    out[i] = out[j]!;
    out[j] = tmp;
  }
  return out;
}
