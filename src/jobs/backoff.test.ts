import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nextRunAt, retryDelayMs } from './backoff.js';

describe('retryDelayMs (full jitter)', () => {
  it('doubles the ceiling per attempt: random just under 1 gives almost the ceiling', () => {
    expect(retryDelayMs(1, 0.999999, { baseMs: 1000 })).toBe(999);
    expect(retryDelayMs(2, 0.999999, { baseMs: 1000 })).toBe(1999);
    expect(retryDelayMs(4, 0.5, { baseMs: 1000 })).toBe(4000);
  });
  it('random 0 retries at once', () => {
    expect(retryDelayMs(5, 0)).toBe(0);
  });
  it('saturates at the cap, even for a huge attempt number', () => {
    expect(retryDelayMs(30, 0.5, { baseMs: 1000, capMs: 60_000 })).toBe(30_000);
    expect(retryDelayMs(1e9, 0.999, { capMs: 300_000 })).toBe(299_700);
  });
  it('reads attempt < 1 (and NaN) as the first retry', () => {
    expect(retryDelayMs(0, 0.5, { baseMs: 1000 })).toBe(500);
    expect(retryDelayMs(-3, 0.5, { baseMs: 1000 })).toBe(500);
    expect(retryDelayMs(Number.NaN, 0.5, { baseMs: 1000 })).toBe(500);
  });
  it('clamps random outside [0, 1)', () => {
    expect(retryDelayMs(1, -1, { baseMs: 1000 })).toBe(0);
    expect(retryDelayMs(1, 7, { baseMs: 1000 })).toBe(1000);
  });
  it('is always within [0, min(cap, base·2^(n−1))]', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2000 }), fc.double({ min: 0, max: 1, noNaN: true }), (n, r) => {
        const d = retryDelayMs(n, r, { baseMs: 1000, capMs: 300_000 });
        return d >= 0 && d <= Math.min(300_000, 1000 * 2 ** (n - 1)) && Number.isInteger(d);
      }),
    );
  });
});

describe('nextRunAt', () => {
  it('gives up once the attempts are spent', () => {
    expect(nextRunAt(1000, 3, 3, 0.5)).toBeNull();
    expect(nextRunAt(1000, 4, 3, 0.5)).toBeNull();
  });
  it('schedules the next try after the jittered delay', () => {
    expect(nextRunAt(1000, 2, 3, 0.5, { baseMs: 1000 })).toBe(2000);
  });
});
