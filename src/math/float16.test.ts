import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exactlyHalf, float16Table, fromFloat16Bits, toFloat16Bits } from './float16.js';

const round = (x: number): number => fromFloat16Bits(toFloat16Bits(x));

describe('float16', () => {
  it('keeps values a half represents exactly', () => {
    for (const x of [0, 1, -1, 0.5, 2, 1024, 65504, -65504, 2 ** -14, 2 ** -24, 1 + 2 ** -10])
      expect(round(x)).toBe(x);
  });

  it('edge cases: overflow to Infinity, underflow to a signed zero, NaN and infinities kept', () => {
    expect(round(65520)).toBe(Infinity);
    expect(round(65519)).toBe(65504);
    expect(round(-1e9)).toBe(-Infinity);
    expect(round(2 ** -26)).toBe(0);
    expect(Object.is(round(-(2 ** -26)), -0)).toBe(true);
    expect(round(Infinity)).toBe(Infinity);
    expect(round(-Infinity)).toBe(-Infinity);
    expect(round(NaN)).toBeNaN();
  });

  it('rounds to nearest, ties to even', () => {
    // Between 1 and 1 + 2^-10 the midpoint 1 + 2^-11 goes to the even neighbour, 1.
    expect(round(1 + 2 ** -11)).toBe(1);
    // Between 1 + 2^-10 and 1 + 2^-9 the midpoint goes to 1 + 2^-9 (even fraction).
    expect(round(1 + 3 * 2 ** -11)).toBe(1 + 2 ** -9);
    expect(round(1 + 2 ** -11 + 2 ** -20)).toBe(1 + 2 ** -10);
    // Subnormals round too: 1.5 × 2^-24 is a tie between 2^-24 (odd) and 2^-23 (even).
    expect(round(1.5 * 2 ** -24)).toBe(2 ** -23);
  });

  it('the table agrees with fromFloat16Bits for every half', () => {
    const t = float16Table();
    for (let h = 0; h < 65536; h += 97) {
      const v = fromFloat16Bits(h);
      if (Number.isNaN(v)) expect(t[h]).toBeNaN();
      else expect(t[h]).toBe(v);
    }
  });

  it('property: relative error ≤ 2^-11 in the normal range, and encoding is monotone', () => {
    const normal = fc.double({ min: 2 ** -14, max: 65504, noNaN: true });
    fc.assert(
      fc.property(normal, fc.boolean(), (x, neg) => {
        const v = neg ? -x : x;
        expect(Math.abs(round(v) - v)).toBeLessThanOrEqual(Math.abs(v) * 2 ** -11);
      }),
    );
    fc.assert(
      fc.property(
        fc.double({ min: -65504, max: 65504, noNaN: true }),
        fc.double({ min: -65504, max: 65504, noNaN: true }),
        (a, b) => {
          if (a <= b) expect(round(a)).toBeLessThanOrEqual(round(b));
        },
      ),
    );
  });

  it('property: every half round-trips through toFloat16Bits', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 65535 }), (h) => {
        const v = fromFloat16Bits(h);
        if (!Number.isNaN(v)) expect(toFloat16Bits(v)).toBe(h);
      }),
    );
  });
});

describe('exactlyHalf', () => {
  it('holds for halves (−0 and ±Infinity too) and an empty vector, not for NaN or values between halves', () => {
    expect(exactlyHalf(new Float32Array([]))).toBe(true);
    expect(exactlyHalf(new Float32Array([0.5, -0, 65504, -Infinity, 2 ** -24]))).toBe(true);
    expect(exactlyHalf(new Float32Array([0.1]))).toBe(false);
    expect(exactlyHalf(new Float32Array([NaN]))).toBe(false);
    expect(exactlyHalf(new Float32Array([65519]))).toBe(false);
  });
});
