import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { principalAngles } from './principal-angles.js';

describe('principalAngles', () => {
  it('gives nothing for no points and 0 for one point or points without spread', () => {
    expect(principalAngles([])).toEqual([]);
    expect(principalAngles([[1, 2, 3]])).toEqual([0]);
    expect(
      principalAngles([
        [1, 0],
        [1, 0],
        [1, 0],
      ]),
    ).toEqual([0, 0, 0]);
  });

  it('puts points spread along one line at 0 and π, the first at 0', () => {
    const a = principalAngles([
      [0, 0, 3],
      [0, 0, 1],
      [0, 0, -1],
      [0, 0, -3],
    ]);
    expect(a[0]).toBe(0);
    expect(a[1]).toBe(0);
    expect(Math.abs(a[2]!)).toBeCloseTo(Math.PI, 9);
    expect(Math.abs(a[3]!)).toBeCloseTo(Math.PI, 9);
  });

  it('keeps the angles of points in a plane apart by their angles in it', () => {
    // Points on a circle in the plane of axes 0 and 2 of a 4-dimensional space.
    const turn = [0, 1, 2, 3, 4, 5].map((i) => (i * Math.PI) / 3);
    const a = principalAngles(turn.map((t) => [Math.cos(t) * 2, 0, Math.sin(t) * 2, 0]));
    const gap = (i: number, j: number) =>
      Math.abs(Math.atan2(Math.sin(a[i]! - a[j]!), Math.cos(a[i]! - a[j]!)));
    for (let i = 0; i < 6; i++) expect(gap(i, (i + 1) % 6)).toBeCloseTo(Math.PI / 3, 6);
  });

  it('puts near-copies next to each other', () => {
    const a = principalAngles([
      [1, 0, 0],
      [0.99, 0.01, 0],
      [0, 1, 0],
      [0, 0, 1],
    ]);
    const gap = (i: number, j: number) =>
      Math.abs(Math.atan2(Math.sin(a[i]! - a[j]!), Math.cos(a[i]! - a[j]!)));
    expect(gap(0, 1)).toBeLessThan(gap(0, 2));
    expect(gap(0, 1)).toBeLessThan(gap(0, 3));
  });

  it('refuses rows of different lengths', () => {
    expect(() => principalAngles([[1, 2], [1]])).toThrow(RangeError);
  });

  it('gives one finite angle in (−π, π] per point, the same for the same input (property)', () => {
    const point = fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 3, maxLength: 3 });
    fc.assert(
      fc.property(fc.array(point, { maxLength: 12 }), (points) => {
        const a = principalAngles(points);
        expect(a).toHaveLength(points.length);
        for (const x of a) {
          expect(Number.isFinite(x)).toBe(true);
          expect(x).toBeGreaterThan(-Math.PI - 1e-12);
          expect(x).toBeLessThanOrEqual(Math.PI + 1e-12);
        }
        expect(principalAngles(points)).toEqual(a);
      }),
    );
  });
});
