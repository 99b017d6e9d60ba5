/**
 * Per-token rate limits: a token bucket per key. A bucket holds at most `burst` requests and refills
 * at `perSecond`; a request takes one, or is refused with the seconds until one is back:
 *   tokens(t) = min(burst, tokens(t₀) + (t − t₀) · perSecond),
 *   allowed ⇔ tokens(t) ≥ 1;  retryAfter = ⌈(1 − tokens(t)) / perSecond⌉ seconds (at least 1).
 * Edge cases: a first request finds a full bucket; `perSecond` ≤ 0 or `burst` < 1 is refused at
 * construction; a clock that goes backwards refills nothing. Buckets idle for long are dropped
 * (`sweep`), as a full bucket is what a new one would be anyway.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    private readonly now: () => number = () => performance.now() / 1000,
  ) {
    if (!(perSecond > 0) || !(burst >= 1)) throw new RangeError('rate limit: perSecond > 0 and burst ≥ 1');
  }

  /** Take one request for `key`: allowed, or refused with the seconds to wait. */
  take(key: string): { allowed: true } | { allowed: false; retryAfter: number } {
    const t = this.now();
    const b = this.buckets.get(key) ?? { tokens: this.burst, at: t };
    const tokens = Math.min(this.burst, b.tokens + Math.max(0, t - b.at) * this.perSecond);
    if (tokens >= 1) {
      this.buckets.set(key, { tokens: tokens - 1, at: t });
      return { allowed: true };
    }
    this.buckets.set(key, { tokens, at: t });
    return { allowed: false, retryAfter: Math.max(1, Math.ceil((1 - tokens) / this.perSecond)) };
  }

  /** Drop buckets that have refilled completely (they are what a new bucket would be). */
  sweep(): void {
    const t = this.now();
    for (const [k, b] of this.buckets)
      if (b.tokens + Math.max(0, t - b.at) * this.perSecond >= this.burst) this.buckets.delete(k);
  }
}
