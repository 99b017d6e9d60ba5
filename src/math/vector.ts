/**
 * Vector helpers over Float32Array / number arrays. All pure and total.
 */

/** Dot product Σ a_i·b_i over the shorter length. Empty input gives 0. */
export function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const n = Math.min(a.length, b.length);
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = 0;
  for (; i + 3 < n; i += 4) {
    s0 += a[i]! * b[i]!;
    s1 += a[i + 1]! * b[i + 1]!;
    s2 += a[i + 2]! * b[i + 2]!;
    s3 += a[i + 3]! * b[i + 3]!;
  }
  for (; i < n; i++) s0 += a[i]! * b[i]!;
  return s0 + s1 + s2 + s3;
}

/** Euclidean norm ‖a‖. Empty input gives 0. */
export function norm(a: ArrayLike<number>): number {
  return Math.sqrt(dot(a, a));
}

/**
 * a/‖a‖ as a new Float32Array. A zero vector (or empty) stays all zeros: it has no direction, and
 * callers treat it as "no vector" (never returned by the vector leg, distance 1 in selection).
 */
export function normalize(a: ArrayLike<number>): Float32Array {
  const out = Float32Array.from(a as ArrayLike<number>);
  const n = norm(out);
  if (n > 0) for (let i = 0; i < out.length; i++) out[i] = out[i]! / n;
  return out;
}

/**
 * Cosine similarity a·b / (‖a‖‖b‖), in [−1, 1]. Zero-norm input gives 0 (not NaN).
 * Lengths must match; a mismatch throws, since it always means two embedders were mixed.
 */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length)
    throw new RangeError(`quiver: cosine of vectors of length ${a.length} and ${b.length}`);
  const na = norm(a);
  const nb = norm(b);
  if (na === 0 || nb === 0) return 0;
  return dot(a, b) / (na * nb);
}

/** Normalised mean of vectors (a section's vector from its chunks'). No vectors → empty array. */
export function meanNormalized(vectors: readonly ArrayLike<number>[]): Float32Array {
  const first = vectors[0];
  if (first === undefined) return new Float32Array(0);
  const acc = new Float64Array(first.length);
  for (const v of vectors) for (let i = 0; i < acc.length; i++) acc[i]! += v[i] ?? 0;
  return normalize(acc);
}
