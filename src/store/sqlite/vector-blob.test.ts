import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { blobDims, blobToVector, decodeBlobInto, FLOAT16_TAG, vectorToBlob } from './vector-blob.js';

const float32Blob = (v: Float32Array): Buffer =>
  Buffer.from(v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength));

describe('vector BLOBs', () => {
  it('writes half precision: 2 bytes a value and a tag byte, an odd length', () => {
    const b = vectorToBlob(new Float32Array([1, -0.5, 0.25]));
    expect(b.byteLength).toBe(7);
    expect(b[6]).toBe(FLOAT16_TAG);
    expect(blobDims(b.byteLength)).toBe(3);
    expect([...blobToVector(b)]).toEqual([1, -0.5, 0.25]);
  });

  it('still reads the float32 rows of older vaults (even length, 4 bytes a value), exactly', () => {
    const v = new Float32Array([0.1, -0.2, 0.3, 0.4]);
    const b = float32Blob(v);
    expect(blobDims(b.byteLength)).toBe(4);
    expect(blobToVector(b)).toEqual(v);
    const into = new Float32Array(6);
    decodeBlobInto(b, into, 2);
    expect([...into.subarray(2)]).toEqual([...v]);
  });

  it('edge case: an empty vector is one tag byte and decodes to nothing', () => {
    expect(vectorToBlob(new Float32Array(0)).byteLength).toBe(1);
    expect(blobToVector(vectorToBlob(new Float32Array(0))).length).toBe(0);
  });

  it('property: a unit vector comes back within 2^-11 per value, and its cosine with itself ≈ 1', () => {
    fc.assert(
      fc.property(
        fc.array(fc.float({ min: -1, max: 1, noNaN: true }), { minLength: 1, maxLength: 64 }),
        (xs) => {
          const norm = Math.hypot(...xs);
          fc.pre(norm > 1e-3);
          const v = new Float32Array(xs.map((x) => x / norm));
          const back = blobToVector(vectorToBlob(v));
          let dot = 0;
          for (let i = 0; i < v.length; i++) {
            expect(Math.abs(back[i]! - v[i]!)).toBeLessThanOrEqual(Math.abs(v[i]!) * 2 ** -11 + 2 ** -24);
            dot += back[i]! * v[i]!;
          }
          expect(Math.abs(dot - 1)).toBeLessThan(2e-3);
        },
      ),
    );
  });
});
