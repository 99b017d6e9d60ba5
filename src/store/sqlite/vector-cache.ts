import { TopK } from '../../retrieve/top-k.js';

/**
 * The live vectors of one embedder fingerprint, held contiguously for an exact cosine scan
 * (vectors are stored unit-length, so cosine = dot product). Rebuilt from the database when stale.
 */
export class VectorMatrix {
  readonly count: number;
  readonly dims: number;

  constructor(
    readonly chunkIds: Float64Array,
    readonly docIds: string[],
    readonly sectionIds: string[],
    readonly data: Float32Array,
    dims: number,
  ) {
    this.count = chunkIds.length;
    this.dims = dims;
  }

  /**
   * Indices of the `limit` rows with the highest dot product with `q`, best first. Rows for which
   * `allow(row)` is false are skipped inside the scan (filters are never a post-filter). Zero rows
   * (empty text) have no direction and are never returned.
   */
  scan(q: Float32Array, limit: number, allow?: (row: number) => boolean): { index: number; score: number }[] {
    const { dims, data, count } = this;
    if (q.length !== dims) return [];
    const top = new TopK(limit);
    for (let r = 0, off = 0; r < count; r++, off += dims) {
      if (allow !== undefined && !allow(r)) continue;
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      let i = 0;
      for (; i + 3 < dims; i += 4) {
        s0 += q[i]! * data[off + i]!;
        s1 += q[i + 1]! * data[off + i + 1]!;
        s2 += q[i + 2]! * data[off + i + 2]!;
        s3 += q[i + 3]! * data[off + i + 3]!;
      }
      for (; i < dims; i++) s0 += q[i]! * data[off + i]!;
      const s = s0 + s1 + s2 + s3;
      if (s === 0) {
        // A zero row has dot 0 with everything; skip it only when it truly is a zero vector.
        let zero = true;
        for (let j = 0; j < dims; j++)
          if (data[off + j] !== 0) {
            zero = false;
            break;
          }
        if (zero) continue;
      }
      if (s >= top.threshold) top.push(r, s);
    }
    return top.result();
  }
}

/** Float32Array → little-endian bytes for a BLOB (copy, so the buffer is exactly the vector). */
export function vectorToBlob(v: Float32Array): Buffer {
  return Buffer.from(v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength));
}

/** BLOB → Float32Array (copied into an aligned buffer). */
export function blobToVector(b: Uint8Array): Float32Array {
  const copy = new Uint8Array(b.byteLength);
  copy.set(b);
  return new Float32Array(copy.buffer);
}
