import { failpoint } from '../_failpoint.js';
import { QuiverError } from '../errors.js';
import type { Store } from '../store/store.js';
import type { Embedder } from '../embed/embedder.js';

/** Chunks re-embedded per transaction. */
export const DEFAULT_REINDEX_BATCH = 512;

export const REINDEX_TARGET_KEY = 'reindex.target';
export const REINDEX_AFTER_KEY = 'reindex.after';
export const EMBEDDER_KEY = 'embedder';

export interface ReindexOptions {
  batchSize?: number;
  /**
   * More meta keys and blobs to write in the same transaction that switches the embedder (a
   * refit's IDF), so no reader ever sees the new state half made.
   */
  commit?: { meta?: Record<string, string>; blobs?: Record<string, Uint8Array | null> };
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
}

export interface ReindexResult {
  from: string | null;
  to: string;
  chunks: number;
  resumed: boolean;
}

/**
 * Re-embed every live chunk with `embedder`, in batches, each batch one transaction. Resumable: the
 * target fingerprint and the last chunk id done are kept in the store's meta, so a crash resumes
 * where it stopped. When every chunk has a vector under the new fingerprint, the vault's embedder
 * is switched and the old fingerprint's vectors deleted in one transaction (`Store.switchEmbedder`):
 * until then every reader keeps the old embedder and all its vectors. The caller holds the writer
 * slot, so no chunk is added meanwhile.
 */
export async function reindex(
  store: Store,
  embedder: Embedder,
  options: ReindexOptions = {},
): Promise<ReindexResult> {
  const batchSize = options.batchSize ?? DEFAULT_REINDEX_BATCH;
  if (!Number.isInteger(batchSize) || batchSize < 1)
    throw new QuiverError(
      'BAD_INPUT',
      `quiver: reindex batchSize must be a positive integer, got ${batchSize}`,
    );
  const from = await store.getMeta(EMBEDDER_KEY);
  const target = await store.getMeta(REINDEX_TARGET_KEY);
  const resumed = target === embedder.id;
  let after = resumed ? Number((await store.getMeta(REINDEX_AFTER_KEY)) ?? 0) : 0;
  await store.setMeta(REINDEX_TARGET_KEY, embedder.id);
  await store.setMeta(REINDEX_AFTER_KEY, String(after));
  const total = (await store.stats()).chunks;
  let done = resumed ? ((await store.stats()).vectors[embedder.id] ?? 0) : 0;
  const crumbs = new Map<string, string>();
  for (;;) {
    if (options.signal?.aborted === true)
      throw new QuiverError('ABORTED', 'quiver: reindex aborted; run it again to resume');
    const chunks = await store.scanChunks(after, batchSize);
    if (chunks.length === 0) break;
    const missing = [...new Set(chunks.map((c) => c.sectionId))].filter((id) => !crumbs.has(id));
    for (const s of await store.getSections(missing)) crumbs.set(s.id, s.breadcrumb);
    const vectors = await embedder.embed(
      chunks.map((c) => {
        const b = crumbs.get(c.sectionId) ?? '';
        return b === '' ? c.text : `${b}\n\n${c.text}`;
      }),
      { purpose: 'document', ...(options.signal === undefined ? {} : { signal: options.signal }) },
    );
    await store.putVectors(
      embedder.id,
      chunks.map((c, i) => ({ chunkId: c.id, vector: vectors[i]! })),
    );
    after = chunks[chunks.length - 1]!.id;
    await store.setMeta(REINDEX_AFTER_KEY, String(after));
    failpoint('reindex.batch');
    done += chunks.length;
    if (crumbs.size > 50_000) crumbs.clear();
    options.onProgress?.(Math.min(done, total), total);
  }
  await store.switchEmbedder({
    to: embedder.id,
    meta: { ...options.commit?.meta, [REINDEX_TARGET_KEY]: '' },
    blobs: options.commit?.blobs ?? {},
    deleteFingerprint: from !== null && from !== embedder.id ? from : null,
  });
  return { from, to: embedder.id, chunks: done, resumed };
}
