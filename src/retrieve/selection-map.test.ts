import { describe, expect, it } from 'vitest';
import { cosineDistance } from './selection-map.js';

const v = (...x: number[]) => Float32Array.from(x);

describe('cosineDistance', () => {
  it('is 0 for the same direction, 1 for a right angle, 2 for the opposite', () => {
    expect(cosineDistance(v(1, 0), v(1, 0))).toBe(0);
    expect(cosineDistance(v(1, 0), v(0, 1))).toBe(1);
    expect(cosineDistance(v(1, 0), v(-1, 0))).toBe(2);
  });

  it('reads the second vector’s direction whatever its length', () => {
    expect(cosineDistance(v(1, 0), v(3, 0))).toBeCloseTo(0, 12);
  });

  it('is 1 for a zero vector (no direction: neither near nor far)', () => {
    expect(cosineDistance(v(1, 0), v(0, 0))).toBe(1);
  });
});
