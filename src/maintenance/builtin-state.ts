import type { Store } from '../store/store.js';
import type { Embedder } from '../embed/embedder.js';
import {
  createHashingEmbedder,
  hashingFeatureOptions,
  type HashingEmbedder,
  type HashingEmbedderOptions,
} from '../embed/hashing.js';
import { decodeHashingIdf, encodeHashingIdf, fitHashingIdf, type HashingIdf } from '../embed/hashing-idf.js';

/**
 * The built-in embedder learns one thing from the vault: document frequencies of its hashed
 * features (IDF), which lifts SciFact nDCG@10 of the vector leg from 0.50 to 0.64 (bench/RESULTS.md).
 * The fitted state lives in the store; refitting changes the embedder's fingerprint, so every
 * vector is re-embedded (cheap: the built-in embedder does >10k chunks/s).
 */
export const IDF_BLOB = 'embedder.builtin.idf';
/**
 * A refit's new IDF while its re-embedding runs: readers keep {@link IDF_BLOB} (the embedder the
 * vault's vectors were made by) until `reindex` promotes this one in the transaction that switches
 * the embedder. Its presence with no reindex running marks a refit that was interrupted.
 */
export const PENDING_IDF_BLOB = 'embedder.builtin.idf.pending';

/** Fit once the vault has this many chunks (fewer give a noisy IDF). */
export const MIN_FIT_CHUNKS = 100;
/** Refit when the vault has grown to this multiple of the chunks the IDF was fitted on. */
export const REFIT_GROWTH = 2;

export async function loadBuiltinIdf(store: Store): Promise<HashingIdf | undefined> {
  const blob = await store.getBlob(IDF_BLOB);
  return blob === null ? undefined : decodeHashingIdf(blob);
}

/** The built-in embedder with the vault's fitted IDF, when it has one. */
export async function builtinEmbedder(
  store: Store,
  options: HashingEmbedderOptions = {},
): Promise<HashingEmbedder> {
  const idf = await loadBuiltinIdf(store);
  return createHashingEmbedder({ ...options, ...(idf === undefined ? {} : { idf }) });
}

/** Does the vault need a (re)fit: enough chunks and none yet, or grown by `REFIT_GROWTH`×? */
export function needsFit(fittedOn: number | null, chunks: number): boolean {
  if (chunks < MIN_FIT_CHUNKS) return false;
  return fittedOn === null || chunks >= fittedOn * REFIT_GROWTH;
}

/**
 * Fit IDF on every live chunk's embedding text (breadcrumb + text), store it as the pending IDF
 * ({@link PENDING_IDF_BLOB}), and return the new embedder with the encoded IDF; the caller
 * re-embeds with `reindex`, committing `idf` as {@link IDF_BLOB} when it switches the embedder.
 */
export async function fitBuiltin(
  store: Store,
  options: HashingEmbedderOptions = {},
): Promise<{ embedder: Embedder; idf: Uint8Array }> {
  const texts: string[] = [];
  const crumbs = new Map<string, string>();
  let after = 0;
  for (;;) {
    const chunks = await store.scanChunks(after, 2000);
    if (chunks.length === 0) break;
    const missing = [...new Set(chunks.map((c) => c.sectionId))].filter((id) => !crumbs.has(id));
    for (const s of await store.getSections(missing)) crumbs.set(s.id, s.breadcrumb);
    for (const c of chunks) {
      const b = crumbs.get(c.sectionId) ?? '';
      texts.push(b === '' ? c.text : `${b}\n\n${c.text}`);
    }
    after = chunks[chunks.length - 1]!.id;
  }
  const idf = fitHashingIdf(texts, hashingFeatureOptions(options));
  const encoded = encodeHashingIdf(idf);
  await store.putBlob(PENDING_IDF_BLOB, encoded);
  return { embedder: createHashingEmbedder({ ...options, idf }), idf: encoded };
}
