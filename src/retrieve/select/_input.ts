/**
 * Internal helpers shared by the selectors: input validation and float64 cosine geometry.
 * Not re-exported.
 */
import { QuiverError } from '../../errors.js';
import type { SelectInput } from './selector.js';

/**
 * Validates `input` and returns the number of picks to make, `min(max(k, 0), N)`.
 * Throws BAD_INPUT for a NaN or fractional k, a candidate whose length differs from the query's,
 * or relevance scores that are not one finite number per candidate.
 */
export function checkInput(input: SelectInput): number {
  const { query, candidates, relevance, k } = input;
  if (typeof k !== 'number' || Number.isNaN(k) || (Number.isFinite(k) && !Number.isInteger(k))) {
    throw new QuiverError('BAD_INPUT', `quiver: k must be an integer, got ${String(k)}`);
  }
  const dim = query.length;
  candidates.forEach((c, i) => {
    if (c.length !== dim) {
      throw new QuiverError(
        'BAD_INPUT',
        `quiver: candidates[${i}] has length ${c.length}, the query has ${dim}`,
      );
    }
  });
  if (relevance !== undefined) {
    if (relevance.length !== candidates.length) {
      throw new QuiverError(
        'BAD_INPUT',
        `quiver: relevance must have one score per candidate (${candidates.length}), got ${relevance.length}`,
      );
    }
    relevance.forEach((r, i) => {
      if (!Number.isFinite(r))
        throw new QuiverError('BAD_INPUT', `quiver: relevance[${i}] must be finite, got ${r}`);
    });
  }
  return Math.max(0, Math.min(k, candidates.length));
}

/** Throws BAD_INPUT unless `value` is a finite number within [min, max]. */
export function checkRange(name: string, value: number, min: number, max = Infinity): void {
  if (!Number.isFinite(value) || value < min || value > max) {
    const range = max === Infinity ? `≥ ${min}` : `in [${min}, ${max}]`;
    throw new QuiverError('BAD_INPUT', `quiver: ${name} must be a finite number ${range}, got ${value}`);
  }
}

/**
 * Unit vectors packed row-major into one Float64Array (`rows × dim`), computed in double precision.
 * A zero (or empty) vector stays all zeros, so its cosine with anything is 0. `out` may be a
 * reused buffer of at least that size.
 */
export function unitRows(
  vectors: readonly ArrayLike<number>[],
  dim: number,
  out: Float64Array = new Float64Array(vectors.length * dim),
): Float64Array {
  for (let r = 0; r < vectors.length; r++) {
    const base = r * dim;
    out.set(vectors[r]!, base); // one native widening copy; the loops below stay monomorphic
    normalizeRow(out, base, dim);
  }
  return out;
}

function normalizeRow(out: Float64Array, base: number, dim: number): void {
  let ss = 0;
  for (let i = base; i < base + dim; i++) ss += out[i]! * out[i]!;
  const n = Math.sqrt(ss);
  if (n > 0) for (let i = base; i < base + dim; i++) out[i] = out[i]! / n;
}

/** Dot product of rows `a` and `b` (offsets in elements) of packed arrays, 4-way unrolled. */
export function dotAt(x: Float64Array, a: number, y: Float64Array, b: number, dim: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = 0;
  for (; i + 3 < dim; i += 4) {
    s0 += x[a + i]! * y[b + i]!;
    s1 += x[a + i + 1]! * y[b + i + 1]!;
    s2 += x[a + i + 2]! * y[b + i + 2]!;
    s3 += x[a + i + 3]! * y[b + i + 3]!;
  }
  for (; i < dim; i++) s0 += x[a + i]! * y[b + i]!;
  return s0 + s1 + s2 + s3;
}

/** Cosine of the query with every candidate, in float64 (0 where either is a zero vector). */
export function queryCosines(input: SelectInput): Float64Array {
  const dim = input.query.length;
  const q = unitRows([input.query], dim);
  const c = unitRows(input.candidates, dim, scratch(SLOT_UNITS, input.candidates.length * dim));
  const out = new Float64Array(input.candidates.length);
  for (let j = 0; j < out.length; j++) out[j] = dotAt(q, 0, c, j * dim, dim);
  return out;
}

/** Largest scratch buffer kept between calls, in float64 entries (8 MB; an N = 1,024 matrix). */
const RETAIN_ENTRIES = 1 << 20;
const slots: Float64Array[] = [];
/** Scratch slot for packed unit vectors; a caller using it must not call another user of it meanwhile. */
export const SLOT_UNITS = 0;
/** Scratch slots for Dartboard's two N×N matrices. */
export const SLOT_LOG_TABLE = 1;
export const SLOT_EXP_TABLE = 2;

/**
 * A Float64Array of `size` entries with unspecified contents, reused across calls for sizes up to
 * 8 MB. Touching fresh memory costs a page fault per 4 KB (measured ~80 ms for 8 MB in a sandboxed
 * VM), more than the whole selection; reuse is safe because selectors are synchronous and never
 * hand these buffers out. Each `slot` is one independent buffer.
 */
export function scratch(slot: number, size: number): Float64Array {
  if (size > RETAIN_ENTRIES) return new Float64Array(size);
  let buf = slots[slot];
  if (buf === undefined || buf.length < size) {
    buf = new Float64Array(Math.min(RETAIN_ENTRIES, Math.max(size, 2 * (buf?.length ?? 0))));
    slots[slot] = buf;
  }
  return buf.subarray(0, size);
}
