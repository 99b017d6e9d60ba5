import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isDefined, ratio, undefinedMeasurement, valueOf } from './measurement.js';

describe('ratio', () => {
  it('divides and keeps numerator and denominator', () => {
    expect(ratio(2, 3, 'r')).toEqual({ num: 2, den: 3, value: 2 / 3 });
    expect(ratio(0, 4, 'r')).toEqual({ num: 0, den: 4, value: 0 });
  });
  it('a zero denominator is Undefined with the reason, never 0 or 1', () => {
    const m = ratio(0, 0, 'no claims');
    expect(m).toEqual({ num: 0, den: 0, value: null, undefinedReason: 'no claims' });
    expect(isDefined(m)).toBe(false);
    expect(valueOf(m)).toBeNull();
  });
  it('property: defined exactly when den ≠ 0, and then value = num / den', () => {
    fc.assert(
      fc.property(fc.nat(100), fc.nat(100), (num, den) => {
        const m = ratio(num, den, 'x');
        return den === 0 ? m.value === null : isDefined(m) && m.value === num / den;
      }),
    );
  });
});

describe('undefinedMeasurement', () => {
  it('defaults num and den to 0', () => {
    expect(undefinedMeasurement('no reference')).toEqual({
      num: 0,
      den: 0,
      value: null,
      undefinedReason: 'no reference',
    });
  });
});
