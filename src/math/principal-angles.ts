import { dot } from './vector.js';

/**
 * Where each of n points sits around a centre, as an angle: the points (rows of equal length d),
 * centred on their mean, are projected on the two leading principal directions of their spread,
 * and each point's angle is atan2(p₂, p₁) ∈ (−π, π]. Points near each other in the vector space get
 * near angles, so near-copies sit together on a plot whose radius shows something else (a
 * candidate's distance to the query).
 *
 * The directions come from power iteration on XᵀX without forming it (v ← Xᵀ(Xv), normalised,
 * `iterations` times; the second kept orthogonal to the first). Deterministic: the first start is
 * the centred point of largest norm, the second the next point's residual; each direction's sign
 * is chosen so that the first point projects ≥ 0 on it.
 *
 * Edge cases: no points → []; one point, or points that are all the same (no spread) → every angle
 * 0; spread along one direction only → angles 0 or π; rows of different lengths → a RangeError.
 */
export function principalAngles(points: readonly ArrayLike<number>[], iterations = 60): number[] {
  const n = points.length;
  if (n === 0) return [];
  const d = points[0]!.length;
  if (points.some((p) => p.length !== d)) throw new RangeError('principalAngles: rows differ in length');
  const mean = new Float64Array(d);
  for (const p of points) for (let t = 0; t < d; t++) mean[t]! += p[t]! / n;
  const x = points.map((p) => Float64Array.from({ length: d }, (_, t) => p[t]! - mean[t]!));
  const first = direction(x, [], iterations);
  const second = first === null ? null : direction(x, [first], iterations);
  return x.map((row) => {
    const a = first === null ? 0 : dot(row, first);
    const b = second === null ? 0 : dot(row, second);
    return Math.abs(a) < 1e-12 && Math.abs(b) < 1e-12 ? 0 : Math.atan2(b, a);
  });
}

/** The leading direction of `x`'s rows orthogonal to `against` (unit vectors), or null when none. */
function direction(
  x: readonly Float64Array[],
  against: readonly Float64Array[],
  iterations: number,
): Float64Array | null {
  const d = x[0]!.length;
  const residual = (v: Float64Array): Float64Array => {
    const r = Float64Array.from(v);
    for (const u of against) {
      const c = dot(r, u);
      for (let t = 0; t < d; t++) r[t]! -= c * u[t]!;
    }
    return r;
  };
  // Start from the row with the largest residual norm.
  let v: Float64Array | null = null;
  let best = 1e-12;
  for (const row of x) {
    const r = residual(row);
    const norm = Math.sqrt(dot(r, r));
    if (norm > best) [best, v] = [norm, r];
  }
  if (v === null) return null;
  v = scale(v);
  for (let i = 0; i < iterations; i++) {
    const next = new Float64Array(d);
    for (const row of x) {
      const c = dot(row, v);
      for (let t = 0; t < d; t++) next[t]! += c * row[t]!;
    }
    const r = residual(next);
    if (Math.sqrt(dot(r, r)) < 1e-12) break;
    v = scale(r);
  }
  const s = dot(x[0]!, v);
  if (s < 0) for (let t = 0; t < d; t++) v[t] = -v[t]!;
  return v;
}

function scale(v: Float64Array): Float64Array {
  const norm = Math.sqrt(dot(v, v));
  return v.map((x) => x / norm);
}
