import type { Embedder } from '../embed/embedder.js';
import { meanNormalized } from '../math/vector.js';
import type { Store } from '../store/store.js';
import type { ChunkRecord } from '../types.js';

/**
 * Each section's vector, in `sectionIds` order: the normalised mean of its chunks' vectors
 * (`chunks`, by section id) made by `embedder`; a zero vector for a section whose chunks have none.
 */
export async function sectionVectors(
  store: Store,
  embedder: Embedder,
  sectionIds: readonly string[],
  chunks: ReadonlyMap<string, readonly ChunkRecord[]>,
): Promise<Float32Array[]> {
  const vectors = await store.chunkVectors(
    sectionIds.flatMap((id) => (chunks.get(id) ?? []).map((c) => c.id)),
    embedder.id,
  );
  return sectionIds.map((id) => {
    const m = meanNormalized(
      (chunks.get(id) ?? []).map((c) => vectors.get(c.id)).filter((v) => v !== undefined),
    );
    return m.length === embedder.dims ? m : new Float32Array(embedder.dims);
  });
}
