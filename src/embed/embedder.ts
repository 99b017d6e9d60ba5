/**
 * The Embedder seam: texts in, unit-length Float32Array vectors out.
 *
 * `id` is a fingerprint (name + model + dims + version). Vectors made by different fingerprints
 * never mix in one search; a vault built with one embedder refuses another until `quiver reindex`.
 */
export interface EmbedOptions {
  signal?: AbortSignal;
  /** Called with (done, total) as batches finish. */
  onProgress?: (done: number, total: number) => void;
  /** Queries and documents may be embedded differently (some models need prefixes). Default 'document'. */
  purpose?: 'query' | 'document';
}

export interface Embedder {
  /** Fingerprint: `name:model:dims:version`. Changes whenever vectors would change. */
  readonly id: string;
  readonly dims: number;
  /**
   * What a cosine between two of its vectors is evidence of. `'surface'`: shared words and
   * character n-grams only (the built-in hashing embedder), so between texts that share none the
   * cosine is hash-collision noise, and the vector leg keeps its hits only for a query with a word
   * in the documents searched (`admitVectorHits` in retrieve/vector-floor.ts). `'semantic'`, the
   * default when absent: a learned model, whose neighbours may share no word with the query.
   */
  readonly similarity?: 'surface' | 'semantic';
  /** One vector per text, in order, each of length `dims`, L2-normalised (a zero vector for empty text). */
  embed(texts: readonly string[], options?: EmbedOptions): Promise<Float32Array[]>;
}
