import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { acceptsGzip } from './accepts-gzip.js';

describe('acceptsGzip', () => {
  it('is false without a header or with an empty one (identity only)', () => {
    expect(acceptsGzip(undefined)).toBe(false);
    expect(acceptsGzip(null)).toBe(false);
    expect(acceptsGzip('')).toBe(false);
    expect(acceptsGzip(' , ')).toBe(false);
  });

  it('is true when gzip is listed, in any case, among others, or as x-gzip', () => {
    expect(acceptsGzip('gzip')).toBe(true);
    expect(acceptsGzip('GZip')).toBe(true);
    expect(acceptsGzip('gzip, deflate, br, zstd')).toBe(true);
    expect(acceptsGzip('br;q=1.0, gzip;q=0.8, *;q=0.1')).toBe(true);
    expect(acceptsGzip('x-gzip')).toBe(true);
  });

  it('is false when gzip has weight 0, even if * allows everything', () => {
    expect(acceptsGzip('gzip;q=0')).toBe(false);
    expect(acceptsGzip('*, gzip; q=0')).toBe(false);
    expect(acceptsGzip('gzip;q=0.000')).toBe(false);
  });

  it('follows * when gzip is not listed', () => {
    expect(acceptsGzip('*')).toBe(true);
    expect(acceptsGzip('*;q=0')).toBe(false);
    expect(acceptsGzip('br, deflate')).toBe(false);
    expect(acceptsGzip('identity')).toBe(false);
  });

  it('reads a malformed weight as 1 and ignores other parameters', () => {
    expect(acceptsGzip('gzip;q=2')).toBe(true);
    expect(acceptsGzip('gzip;q=abc')).toBe(true);
    expect(acceptsGzip('gzip;level=9')).toBe(true);
  });

  it('never throws, and a header naming gzip only with weight 0 refuses it whatever else it says (property)', () => {
    fc.assert(
      fc.property(fc.string(), (h) => {
        expect(typeof acceptsGzip(h)).toBe('boolean');
        if (!/gzip/i.test(h)) expect(acceptsGzip(`${h},gzip;q=0`)).toBe(false);
      }),
    );
  });
});
