import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { bucketOf, combine32, fmix32, fnv1a32 } from './feature-hash.js';

/** Naive FNV-1a 32 over bytes with BigInt arithmetic: the reference. */
function fnvReference(bytes: readonly number[]): number {
  let h = 0x811c9dc5n;
  for (const b of bytes) h = ((h ^ BigInt(b)) * 0x01000193n) % 2n ** 32n;
  return Number(h);
}

/** Naive MurmurHash3 fmix32 with BigInt arithmetic. */
function fmixReference(x: number): number {
  const M = 2n ** 32n;
  let h = BigInt(x >>> 0);
  h ^= h >> 16n;
  h = (h * 0x85ebca6bn) % M;
  h ^= h >> 13n;
  h = (h * 0xc2b2ae35n) % M;
  h ^= h >> 16n;
  return Number(h);
}

describe('fnv1a32', () => {
  it('matches the published FNV-1a 32 test vectors', () => {
    expect(fnv1a32('')).toBe(0x811c9dc5);
    expect(fnv1a32('a')).toBe(0xe40c292c);
    expect(fnv1a32('foobar')).toBe(0xbf9cf968);
  });

  it('equals byte-wise FNV-1a for any ASCII string', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.integer({ min: 0, max: 127 }).map((c) => String.fromCharCode(c)) }),
        (s) => {
          expect(fnv1a32(s)).toBe(fnvReference([...s].map((c) => c.charCodeAt(0))));
        },
      ),
    );
  });

  it('returns an unsigned 32-bit integer for any text, including astral characters', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (s) => {
        const h = fnv1a32(s);
        expect(Number.isInteger(h) && h >= 0 && h < 2 ** 32).toBe(true);
      }),
    );
  });
});

describe('fmix32', () => {
  it('maps 0 to 0 and matches a BigInt reference', () => {
    expect(fmix32(0)).toBe(0);
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 31), max: 2 ** 32 - 1 }), (x) => {
        expect(fmix32(x)).toBe(fmixReference(x));
      }),
    );
  });

  it('is injective on a sample (it is a bijection)', () => {
    const seen = new Set<number>();
    for (let i = 0; i < 20000; i++) seen.add(fmix32(i));
    expect(seen.size).toBe(20000);
  });
});

describe('combine32', () => {
  it('depends on order', () => {
    const a = fnv1a32('white');
    const b = fnv1a32('matter');
    expect(combine32(a, b)).not.toBe(combine32(b, a));
    expect(combine32(a, b)).toBe(combine32(a, b));
  });
});

describe('bucketOf', () => {
  it('puts every key in [0, dims) with sign ±1', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
        fc.integer({ min: 1, max: 4096 }),
        (k, d) => {
          const { bucket, sign } = bucketOf(k, d);
          expect(bucket >= 0 && bucket < d && Number.isInteger(bucket)).toBe(true);
          expect(sign === 1 || sign === -1).toBe(true);
        },
      ),
    );
  });

  it('spreads keys roughly evenly and signs half/half', () => {
    const counts = new Array<number>(16).fill(0);
    let neg = 0;
    for (let i = 0; i < 16000; i++) {
      const { bucket, sign } = bucketOf(fmix32(i), 16);
      counts[bucket]!++;
      if (sign < 0) neg++;
    }
    for (const c of counts) expect(c).toBeGreaterThan(800);
    expect(neg).toBeGreaterThan(7500);
    expect(neg).toBeLessThan(8500);
  });
});
