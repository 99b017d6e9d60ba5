import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RateLimiter } from './rate-limit.js';

describe('RateLimiter', () => {
  it('lets a burst through, then refuses with the seconds until a request is back', () => {
    let t = 0;
    const r = new RateLimiter(2, 3, () => t);
    expect([r.takeNow('a'), r.takeNow('a'), r.takeNow('a')].every((x) => x.allowed)).toBe(true);
    expect(r.takeNow('a')).toEqual({ allowed: false, retryAfter: 1 });
    // Other keys have their own bucket.
    expect(r.takeNow('b').allowed).toBe(true);
    t = 0.5; // one request refilled at 2 per second
    expect(r.takeNow('a').allowed).toBe(true);
    expect(r.takeNow('a').allowed).toBe(false);
  });

  it('a slow rate says so in Retry-After, and a clock going back refills nothing', () => {
    let t = 100;
    const r = new RateLimiter(0.1, 1, () => t);
    expect(r.takeNow('k').allowed).toBe(true);
    expect(r.takeNow('k')).toEqual({ allowed: false, retryAfter: 10 });
    t = 50;
    expect(r.takeNow('k').allowed).toBe(false);
  });

  it('refuses a bad configuration', () => {
    expect(() => new RateLimiter(0, 5)).toThrow(RangeError);
    expect(() => new RateLimiter(1, 0)).toThrow(RangeError);
  });

  it('never lets more than burst + rate × time through (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 2, noNaN: true }), { maxLength: 200 }),
        fc.integer({ min: 1, max: 10 }),
        fc.double({ min: 0.1, max: 20, noNaN: true }),
        (gaps, burst, rate) => {
          let t = 0;
          const r = new RateLimiter(rate, burst, () => t);
          let allowed = 0;
          for (const g of gaps) {
            t += g;
            if (r.takeNow('k').allowed) allowed++;
          }
          expect(allowed).toBeLessThanOrEqual(burst + rate * t + 1e-9);
        },
      ),
    );
  });

  it('sweep forgets only full buckets', () => {
    let t = 0;
    const r = new RateLimiter(1, 2, () => t);
    r.takeNow('a');
    r.takeNow('a');
    r.sweep();
    expect(r.takeNow('a').allowed).toBe(false);
    t = 10;
    r.sweep();
    expect([r.takeNow('a'), r.takeNow('a'), r.takeNow('a')].map((x) => x.allowed)).toEqual([
      true,
      true,
      false,
    ]);
  });
});
