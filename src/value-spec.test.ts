import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeValue, readValue, type ValueSpec } from './value-spec.js';

const int: ValueSpec = { type: 'integer', min: 1 };
const num: ValueSpec = { type: 'number', min: 0, max: 1 };

describe('readValue', () => {
  it('reads numbers from JSON numbers and from decimal strings, spaces ignored', () => {
    expect(readValue(int, 5)).toBe(5);
    expect(readValue(int, ' 7 ')).toBe(7);
    expect(readValue(int, '1.0')).toBe(1);
    expect(readValue(num, '0.25')).toBe(0.25);
    expect(readValue({ type: 'number' }, '-1e3')).toBe(-1000);
  });

  it('edge cases: empty, hex, Infinity, 1e400, fractions for integers and out of range are refused', () => {
    for (const bad of ['', ' ', '0x10', 'Infinity', '1e400', '1.5', '0', 'abc', true, null])
      expect(readValue(int, bad)).toBeUndefined();
    expect(readValue(num, 1.01)).toBeUndefined();
    expect(readValue({ type: 'number', gt: 0 }, 0)).toBeUndefined();
    expect(readValue({ type: 'number', gt: 0 }, 0.001)).toBe(0.001);
  });

  it('reads booleans from true/false and the strings true, false, 1, 0, on, off', () => {
    const b: ValueSpec = { type: 'boolean' };
    expect(['true', '1', 'on', true].map((v) => readValue(b, v))).toEqual([true, true, true, true]);
    expect(['false', '0', 'off', false].map((v) => readValue(b, v))).toEqual([false, false, false, false]);
    expect(readValue(b, 'yes')).toBeUndefined();
  });

  it('enums match exactly; strings refuse numbers, and nonEmpty refuses ""', () => {
    const e: ValueSpec = { type: 'enum', choices: ['topk', 'mmr'] };
    expect(readValue(e, 'mmr')).toBe('mmr');
    expect(readValue(e, 'MMR')).toBeUndefined();
    expect(readValue({ type: 'string' }, 3)).toBeUndefined();
    expect(readValue({ type: 'string' }, '')).toBe('');
    expect(readValue({ type: 'string', nonEmpty: true }, '')).toBeUndefined();
  });

  it('property: every integer in range reads back, every one outside is refused', () => {
    const spec: ValueSpec = { type: 'integer', min: -5, max: 5 };
    fc.assert(
      fc.property(fc.integer({ min: -100, max: 100 }), fc.boolean(), (n, asText) => {
        const got = readValue(spec, asText ? String(n) : n);
        expect(got).toBe(n >= -5 && n <= 5 ? n : undefined);
      }),
    );
  });

  it('property: any finite double printed by JS reads back as itself', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        expect(readValue({ type: 'number' }, String(x))).toBe(x === 0 ? 0 : x);
      }),
    );
  });
});

describe('describeValue', () => {
  it('words every kind of value once', () => {
    expect(describeValue(int)).toBe('an integer ≥ 1');
    expect(describeValue(num)).toBe('a number from 0 to 1');
    expect(describeValue({ type: 'number', max: 2 })).toBe('a number ≤ 2');
    expect(describeValue({ type: 'number', gt: 0 })).toBe('a number > 0');
    expect(describeValue({ type: 'enum', choices: ['a', 'b'] })).toBe('one of a, b');
    expect(describeValue({ type: 'boolean' })).toBe('true or false');
    expect(describeValue({ type: 'string', nonEmpty: true })).toBe('a non-empty string');
  });
});
