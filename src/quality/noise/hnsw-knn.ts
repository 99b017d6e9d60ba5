/** Approximate kNN for the noise features over large corpora, with hnswlib. */

import { createRequire } from 'node:module';
import type { KnnResult } from './primitives.js';

// hnswlib-node is loaded on first use: the noise features need it only on large corpora.
const require = createRequire(import.meta.url);

/**
 * Approximate cosine kNN over unit rows with an HNSW index (hnswlib, seed 100). Asks for k + 1
 * neighbours and removes the row itself **by id** (never by position, which fails with exact
 * duplicates), then keeps k. Similarity = 1 − cosine distance. Same edge cases as the exact `knn`.
 */
export function hnswKnn(V: readonly Float32Array[], k: number): KnnResult {
  const n = V.length;
  const kk = Math.min(Math.floor(k), n - 1);
  const idx: number[][] = V.map(() => []);
  const sim: number[][] = V.map(() => []);
  if (n < 3 || kk < 1) return { idx, sim };
  const hnswlib = require('hnswlib-node') as typeof import('hnswlib-node');
  const index = new hnswlib.HierarchicalNSW('cosine', V[0]!.length);
  index.initIndex({ maxElements: n, m: 16, efConstruction: 200, randomSeed: 100 });
  V.forEach((v, i) => index.addPoint(Array.from(v), i));
  index.setEf(Math.max(50, 2 * (kk + 1)));
  V.forEach((v, i) => {
    const r = index.searchKnn(Array.from(v), kk + 1);
    const pairs = r.neighbors
      .map((j, t) => [j, 1 - r.distances[t]!] as const)
      .filter(([j]) => j !== i)
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, kk);
    idx[i] = pairs.map((p) => p[0]);
    sim[i] = pairs.map((p) => p[1]);
  });
  return { idx, sim };
}
