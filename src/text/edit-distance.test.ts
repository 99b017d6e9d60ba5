import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { closest, editDistance } from './edit-distance.js';

describe('editDistance', () => {
  it('is 0 for equal strings and the other length against the empty string', () => {
    expect(editDistance('limit', 'limit')).toBe(0);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('abc', '')).toBe(3);
  });

  it('counts insertions, deletions and substitutions', () => {
    expect(editDistance('limt', 'limit')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('flaw', 'lawn')).toBe(2);
  });

  it('property: symmetric, bounded by the longer length, and a metric (triangle inequality)', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 8 }),
        fc.string({ maxLength: 8 }),
        fc.string({ maxLength: 8 }),
        (a, b, c) => {
          const ab = editDistance(a, b);
          expect(ab).toBe(editDistance(b, a));
          expect(ab).toBeLessThanOrEqual(Math.max(a.length, b.length));
          expect(ab).toBeGreaterThanOrEqual(Math.abs(a.length - b.length));
          expect(editDistance(a, c)).toBeLessThanOrEqual(ab + editDistance(b, c));
        },
      ),
    );
  });
});

describe('closest', () => {
  it('suggests a near miss and nothing for a short or distant word', () => {
    expect(closest('limt', ['limit', 'legs'])).toBe('limit');
    expect(closest('k', ['q', 'json'])).toBeNull();
    expect(closest('banana', ['limit', 'legs'])).toBeNull();
    expect(closest('x', [])).toBeNull();
  });

  it('breaks ties by order', () => {
    expect(closest('abcd', ['abce', 'abcf'])).toBe('abce');
  });
});
