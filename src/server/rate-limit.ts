import type { BucketRate, SharedState } from '../store/shared-state.js';

/**
 * Per-token rate limits: a token bucket per key. A bucket holds at most `burst` requests and refills
 * at `perSecond`; a request takes one, or is refused with the seconds until one is back:
 *   tokens(t) = min(burst, tokens(t₀) + max(0, t − t₀) · perSecond)        ({@link refill})
 *   allowed ⇔ tokens(t) ≥ 1;  retryAfter = ⌈(1 − tokens(t)) / perSecond⌉ s, at least 1  ({@link retryAfter})
 * Edge cases: a first request finds a full bucket; `perSecond` ≤ 0 or `burst` < 1 is refused at
 * construction; a clock that goes backwards refills nothing.
 *
 * Two keepers of the buckets, one formula: {@link RateLimiter} keeps them in this process's memory
 * (a server alone on its store: SQLite); {@link SharedRateLimiter} keeps them in the store when
 * several servers share it (`Store.shared`, PostgreSQL), where one atomic statement transcribes
 * `refill` on the database's clock, so the servers together admit no more than one server would.
 * {@link rateLimiterFor} picks.
 */

/** A request admitted, or refused with the seconds to wait (`Retry-After`). */
export type Admission = { allowed: true } | { allowed: false; retryAfter: number };

/** What the server asks of a limiter. */
export interface RequestLimiter {
  /** Take one request for `key`. */
  take(key: string): Promise<Admission>;
}

/**
 * The requests in a bucket that held `tokens` at time `at` (seconds), refilled to time `t`:
 * min(burst, tokens + max(0, t − at) · perSecond). A clock that went back (t < at) adds nothing.
 */
export function refill(bucket: { tokens: number; at: number }, t: number, rate: BucketRate): number {
  return Math.min(rate.burst, bucket.tokens + Math.max(0, t - bucket.at) * rate.perSecond);
}

/** Whole seconds until a bucket holding `tokens` (< 1) has a request again: ⌈(1 − tokens) / perSecond⌉, at least 1. */
export function retryAfter(tokens: number, perSecond: number): number {
  return Math.max(1, Math.ceil((1 - tokens) / perSecond));
}

function checked(perSecond: number, burst: number): BucketRate {
  if (!(perSecond > 0) || !(burst >= 1)) throw new RangeError('rate limit: perSecond > 0 and burst ≥ 1');
  return { perSecond, burst };
}

/**
 * Buckets in this process's memory. Buckets idle for long are dropped (`sweep`), as a full bucket
 * is what a new one would be anyway.
 */
export class RateLimiter implements RequestLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly rate: BucketRate;

  constructor(
    perSecond: number,
    burst: number,
    private readonly now: () => number = () => performance.now() / 1000,
  ) {
    this.rate = checked(perSecond, burst);
  }

  /** Take one request for `key`: allowed, or refused with the seconds to wait. */
  takeNow(key: string): Admission {
    const t = this.now();
    const tokens = refill(this.buckets.get(key) ?? { tokens: this.rate.burst, at: t }, t, this.rate);
    if (tokens >= 1) {
      this.buckets.set(key, { tokens: tokens - 1, at: t });
      return { allowed: true };
    }
    this.buckets.set(key, { tokens, at: t });
    return { allowed: false, retryAfter: retryAfter(tokens, this.rate.perSecond) };
  }

  take(key: string): Promise<Admission> {
    return Promise.resolve(this.takeNow(key));
  }

  /** Drop buckets that have refilled completely (they are what a new bucket would be). */
  sweep(): void {
    const t = this.now();
    for (const [k, b] of this.buckets) if (refill(b, t, this.rate) >= this.rate.burst) this.buckets.delete(k);
  }
}

/**
 * Buckets in a store that several servers share (`Store.shared`): each take is one atomic step in
 * the database, on its clock. A store error refuses nothing by itself: it fails the request (500)
 * as any store error would.
 */
export class SharedRateLimiter implements RequestLimiter {
  private readonly rate: BucketRate;

  constructor(
    private readonly shared: SharedState,
    perSecond: number,
    burst: number,
  ) {
    this.rate = checked(perSecond, burst);
  }

  async take(key: string): Promise<Admission> {
    const r = await this.shared.takeRequest(key, this.rate);
    return r.allowed
      ? { allowed: true }
      : { allowed: false, retryAfter: retryAfter(r.tokens, this.rate.perSecond) };
  }
}

/** The limiter for a server on `store`: shared through it when it shares state, else in memory. */
export function rateLimiterFor(
  store: { readonly shared?: SharedState },
  perSecond: number,
  burst: number,
): RequestLimiter {
  return store.shared === undefined
    ? new RateLimiter(perSecond, burst)
    : new SharedRateLimiter(store.shared, perSecond, burst);
}
