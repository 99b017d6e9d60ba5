import { float16Table, toFloat16Bits } from '../../math/float16.js';

/**
 * How a vector is stored in the `vectors` table. New rows are half precision: 2 bytes per value
 * (little-endian binary16) and one trailing tag byte, so a row's length is odd, 2·dims + 1, and
 * can never be mistaken for the earlier float32 rows (4·dims bytes, always even), which are still
 * read. Half precision halves the vault's largest table at no measured cost to ranking (see
 * bench/RESULTS.md, "Vector storage"); search always scans float32 in memory.
 */
export const FLOAT16_TAG = 0x16;

/** Float32Array → a half-precision BLOB (2·dims + 1 bytes). */
export function vectorToBlob(v: Float32Array): Buffer {
  const out = Buffer.allocUnsafe(v.length * 2 + 1);
  for (let i = 0; i < v.length; i++) out.writeUInt16LE(toFloat16Bits(v[i]!), i * 2);
  out[v.length * 2] = FLOAT16_TAG;
  return out;
}

/** The number of values in a stored vector of `byteLength` bytes (half or single precision). */
export function blobDims(byteLength: number): number {
  return byteLength % 2 === 1 ? (byteLength - 1) / 2 : byteLength / 4;
}

/** Decode a stored vector into `target` at `offset` (no allocation: matrices are filled in place). */
export function decodeBlobInto(b: Uint8Array, target: Float32Array, offset: number): void {
  if (b.byteLength % 2 === 1) {
    const table = float16Table();
    const n = (b.byteLength - 1) / 2;
    for (let i = 0; i < n; i++) target[offset + i] = table[b[2 * i]! | (b[2 * i + 1]! << 8)]!;
    return;
  }
  const copy = new Uint8Array(b.byteLength);
  copy.set(b);
  target.set(new Float32Array(copy.buffer), offset);
}

/** A stored vector as a new Float32Array. */
export function blobToVector(b: Uint8Array): Float32Array {
  const out = new Float32Array(blobDims(b.byteLength));
  decodeBlobInto(b, out, 0);
  return out;
}
