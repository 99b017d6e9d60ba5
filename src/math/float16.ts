/**
 * IEEE 754 half precision (binary16) ↔ single precision, for storing vectors in half the space.
 * A half has 1 sign bit, 5 exponent bits (bias 15) and 10 fraction bits: normal values
 * (−1)^s · 2^(e−15) · (1 + f/1024) for 1 ≤ e ≤ 30, subnormals (−1)^s · 2^−14 · f/1024 for e = 0,
 * and e = 31 for ±Infinity (f = 0) and NaN (f ≠ 0).
 *
 * Encoding rounds to nearest, ties to even. Edge cases: |x| ≥ 65520 (the first value that rounds
 * past the largest half, 65504) becomes ±Infinity; |x| < 2^−25 becomes ±0 (sign kept); values in
 * the subnormal range keep 10 − (−14 − e) fraction bits; NaN stays NaN (a quiet NaN). For a unit
 * vector's components the relative error is at most 2^−11 (≈ 4.9e−4) outside the subnormal range.
 */

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** The binary16 bits (0..65535) nearest to `x`. */
export function toFloat16Bits(x: number): number {
  f32[0] = x;
  const bits = u32[0]!;
  const sign = (bits >>> 16) & 0x8000;
  const exp = (bits >>> 23) & 0xff;
  const frac = bits & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (frac !== 0 ? 0x200 : 0);
  // Unbiased exponent, rebiased for half precision.
  const e = exp - 127 + 15;
  if (e >= 31) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    // Subnormal: the implicit 1 becomes explicit, shifted right by 1 − e more places.
    const m = frac | 0x800000;
    const shift = 14 - e;
    const half = m >>> shift;
    const rest = m & ((1 << shift) - 1);
    const mid = 1 << (shift - 1);
    return sign | (rest > mid || (rest === mid && (half & 1) === 1) ? half + 1 : half);
  }
  const half = (e << 10) | (frac >>> 13);
  const rest = frac & 0x1fff;
  // Rounding up may carry into the exponent (and up to Infinity): that is the correct result.
  return sign | (rest > 0x1000 || (rest === 0x1000 && (half & 1) === 1) ? half + 1 : half);
}

/** The number the binary16 bits `h` stand for (exact: every half is a float32). */
export function fromFloat16Bits(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >>> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac === 0 ? sign * Infinity : NaN;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

let table: Float32Array | undefined;

/** Every half's float value, built once (256 KiB), so decoding a vector is one lookup per value. */
export function float16Table(): Float32Array {
  if (table === undefined) {
    table = new Float32Array(65536);
    for (let h = 0; h < 65536; h++) table[h] = fromFloat16Bits(h);
  }
  return table;
}

/**
 * Is every value of `v` a binary16 number, so half precision carries it bit for bit (−0 included;
 * NaN never, as its payload would not survive)? True for an empty vector.
 */
export function exactlyHalf(v: Float32Array): boolean {
  const t = float16Table();
  for (let i = 0; i < v.length; i++) {
    const x = v[i]!;
    const back = t[toFloat16Bits(x)]!;
    if (back !== x || (x === 0 && 1 / x !== 1 / back)) return false;
  }
  return true;
}
