import { describe, it, expect } from 'vitest';
import { ALL_NOISE_FEATURES, NOISE_FEATURES, noiseFeatures } from './features.js';
import type { NoiseChunk } from './features.js';
import { REFERENCE_NOISE_WEIGHTS, noiseScores } from './blend.js';
import { toFloat16Round } from './primitives.js';
import { INTRINSIC_FEATURES } from './intrinsic.js';

const rep = (s: string): string => s.repeat(3);
const boiler = 'We use cookies. All rights reserved.';
const A5: [string, string, number[]][] = [
  ['d1', rep('Refraction bends the beam at the lens surface and the focal length follows. '), [1, 0, 0, 0]],
  ['d1', rep('Diffraction limits aperture resolution for a given wavelength of light. '), [0.9, 0.3, 0, 0]],
  ['d2', rep('Inflation forced the committee to raise interest rates and tighten liquidity. '), [0, 1, 0, 0]],
  ['d2', boiler, [0.1, 0.1, 0.1, 1.0]],
  ['d3', boiler, [0.1, 0.1, 0.1, 1.0]],
  ['d3', boiler + ' Contact us.', [0.12, 0.1, 0.1, 0.99]],
  [
    'd4',
    rep('Alloy tempering and quench hardness of austenite and ferrite in carbide lattice. '),
    [0, 0, 1, 0],
  ],
];
const a5Chunks: NoiseChunk[] = A5.map(([docId, text, v]) => ({
  docId,
  text,
  vector: Float32Array.from(v.map(toFloat16Round)),
}));
const a5Questions = new Map([
  ['d1', new Set(['q1', 'q2'])],
  ['d3', new Set(['q1'])],
]);

describe('noiseFeatures', () => {
  it('A5: the nine reference features reproduce the reference raw X', () => {
    const f = noiseFeatures({ chunks: a5Chunks, questionsByDoc: a5Questions, k: 2 });
    expect(f.docIds).toEqual(['d1', 'd2', 'd3', 'd4']);
    expect(f.names).toEqual([...ALL_NOISE_FEATURES]);
    const expected = [
      [-0.330719, 0.0, 0.421918, 0, 0, -1.159046, 1.0, 0.0, 1.0],
      [0.0, 0.5, 0.409104, 0, 0, -0.856252, 0.0, 0.5, 0.0],
      [0.992157, 1.0, 0.192005, 0, 0, -0.646259, 1.0, 1.0, 0.5],
      [-1.322876, 0.0, 0.695597, 0, 0, -1.10345, 0.0, 0.0, 0.0],
    ];
    f.X.forEach((row, d) => {
      expect(row.length).toBe(NOISE_FEATURES.length + INTRINSIC_FEATURES.length);
      expected[d]!.forEach((v, j) => expect(Math.abs(row[j]! - v)).toBeLessThan(1e-5));
    });
  });

  it('A5: the reference blend reproduces the reference scores and order', () => {
    const f = noiseFeatures({ chunks: a5Chunks, questionsByDoc: a5Questions, k: 2 });
    const s = noiseScores(f.X, f.names, REFERENCE_NOISE_WEIGHTS, f.docIds);
    expect(s.map((r) => r.docId)).toEqual(['d3', 'd2', 'd1', 'd4']);
    [0.792917, 0.057667, -0.187417, -0.663167].forEach((v, i) =>
      expect(Math.abs(s[i]!.score - v)).toBeLessThan(1e-5),
    );
  });

  it('no chunks → no rows; fewer than 3 chunks → zero kNN features; no log → promiscuity 0', () => {
    expect(noiseFeatures({ chunks: [] }).X).toEqual([]);
    const f = noiseFeatures({ chunks: a5Chunks.slice(0, 2) });
    expect(f.docIds).toEqual(['d1']);
    const row = f.X[0]!;
    expect([row[0], row[1], row[6], row[8]]).toEqual([0, 0, 0, 0]);
  });

  it('skips chunks with empty vectors and counts short in code points', () => {
    const emoji = '😀'.repeat(150); // 150 code points, 300 UTF-16 units → short
    const f = noiseFeatures({
      chunks: [
        { docId: 'a', text: emoji, vector: Float32Array.from([1, 0]) },
        { docId: 'b', text: 'x'.repeat(250), vector: Float32Array.from([0, 1]) },
        { docId: 'c', text: 'ignored', vector: new Float32Array(0) },
      ],
    });
    expect(f.docIds).toEqual(['a', 'b']);
    expect(f.X[0]![7]).toBe(1);
    expect(f.X[1]![7]).toBe(0);
  });

  it('spread features are computed from seeded k-means beyond 8 chunks and are deterministic', () => {
    const chunks: NoiseChunk[] = [];
    for (let i = 0; i < 24; i++) {
      const v = new Float32Array(6);
      v[i % 3] = 1;
      v[3 + (i % 2)] = i < 12 ? 0.1 : 0.9; // docs in the second half straddle topics
      chunks.push({ docId: `d${Math.floor(i / 3)}`, text: `chunk ${i} text`, vector: v });
    }
    const a = noiseFeatures({ chunks, topics: 4, seed: 3 });
    const b = noiseFeatures({ chunks, topics: 4, seed: 3 });
    expect(a.X).toEqual(b.X);
    expect(a.X.some((r) => r[3]! > 0)).toBe(true);
    expect(a.X.every((r) => r[4]! >= 0 && r[4]! <= 1)).toBe(true);
  });
});
