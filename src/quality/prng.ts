/**
 * The distributions quality draws from (uniform, normal, Gamma, Beta) for k-means++ seeding,
 * Thompson draws of the Beta prior and pair sampling in the ranker, on top of quiver's one
 * generator (`src/math/prng.ts`, xoshiro128**). Same seed → same stream, on every platform.
 */

import { QuiverError } from '../errors.js';
import { createPrng, type Prng as CorePrng } from '../math/prng.js';

/** Default seed used when a caller asks for a generator and gives none. */
export const DEFAULT_SEED = 0;

/**
 * A seeded stream with the distributions quality needs.
 *
 * @example
 * const rng = new Prng(7);
 * rng.random(); // same value for seed 7, always
 */
export class Prng {
  private readonly core: CorePrng;

  /** `seed` is any finite number; it is reduced to 32 bits (`seed >>> 0`, fractional part dropped). */
  constructor(seed: number = DEFAULT_SEED) {
    if (!Number.isFinite(seed))
      throw new QuiverError('BAD_INPUT', `quiver: seed must be a finite number, got ${seed}`);
    this.core = createPrng(Math.trunc(seed) >>> 0);
  }

  /** Next unsigned 32-bit integer of the stream (quiver's one generator, `src/math/prng.ts`). */
  nextUint32(): number {
    return this.core.uint32();
  }

  /** Uniform in [0, 1): `uint32 / 2^32`. Never 1. */
  random(): number {
    return this.nextUint32() / 4294967296;
  }

  /**
   * Uniform integer in [0, n) (`floor(random()·n)`). `n` must be a positive integer ≤ 2^32.
   * Throws BAD_INPUT otherwise.
   */
  int(n: number): number {
    if (!Number.isInteger(n) || n < 1 || n > 4294967296) {
      throw new QuiverError('BAD_INPUT', `quiver: int(n) needs an integer 1 ≤ n ≤ 2^32, got ${n}`);
    }
    return Math.floor(this.random() * n);
  }

  /**
   * Standard normal N(0, 1) by Box–Muller: `√(−2 ln u1) · cos(2π u2)` with u1 ∈ (0, 1].
   * Uses two uniforms per call (the sine partner is discarded, so the stream stays simple).
   */
  normal(): number {
    const u1 = 1 - this.random(); // (0, 1]: log is finite
    const u2 = this.random();
    return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
  }

  /**
   * Gamma(shape, 1) by Marsaglia–Tsang (2000): d = shape − 1/3, c = 1/√(9d); repeat
   * x ~ N(0,1), v = (1 + c·x)³ until v > 0 and ln u < x²/2 + d − d·v + d·ln v; return d·v.
   * For shape < 1 the boost `Gamma(shape + 1) · u^(1/shape)` is used. Mean = variance = shape.
   * `shape` must be > 0 and finite (BAD_INPUT otherwise).
   */
  gamma(shape: number): number {
    if (!(shape > 0) || !Number.isFinite(shape)) {
      throw new QuiverError('BAD_INPUT', `quiver: gamma shape must be > 0, got ${shape}`);
    }
    if (shape < 1) {
      const g = this.gamma(shape + 1);
      const u = 1 - this.random(); // (0, 1]
      return g * Math.pow(u, 1 / shape);
    }
    const d = shape - 1 / 3;
    const c = 1 / Math.sqrt(9 * d);
    for (;;) {
      let x: number;
      let v: number;
      do {
        x = this.normal();
        v = 1 + c * x;
      } while (v <= 0);
      v = v * v * v;
      const u = 1 - this.random();
      if (u < 1 - 0.0331 * x * x * x * x) return d * v;
      if (Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
    }
  }

  /**
   * Beta(a, b) as X/(X+Y) with X ~ Gamma(a), Y ~ Gamma(b). Mean a/(a+b), variance
   * ab/((a+b)²(a+b+1)). Both parameters must be > 0. If both gamma draws underflow to 0 (only for
   * tiny shapes) the mean a/(a+b) is returned, so the result is always finite.
   */
  beta(a: number, b: number): number {
    const x = this.gamma(a);
    const y = this.gamma(b);
    const s = x + y;
    return s > 0 ? x / s : a / (a + b);
  }
}
