/** Shared by remote/model embedders: batching, prefixes, blank texts, abort and progress. Internal. */
import { abortedError } from './_abort.js';
import type { EmbedOptions } from './embedder.js';

export interface BatchPlan {
  dims: number;
  batchSize: number;
  queryPrefix: string;
  documentPrefix: string;
}

/**
 * Embed `texts` in batches of `plan.batchSize` through `run`, with the purpose's prefix. Blank texts
 * are never sent and get a zero vector; the signal is checked before every batch; progress counts
 * texts done (blank ones included).
 */
export async function embedInBatches(
  texts: readonly string[],
  opts: EmbedOptions,
  plan: BatchPlan,
  run: (batch: string[], signal: AbortSignal | undefined) => Promise<Float32Array[]>,
): Promise<Float32Array[]> {
  const { signal, onProgress } = opts;
  if (signal?.aborted) throw abortedError(signal);
  const prefix = opts.purpose === 'query' ? plan.queryPrefix : plan.documentPrefix;
  const out: Float32Array[] = texts.map(() => new Float32Array(plan.dims));
  const todo: number[] = [];
  for (const [i, t] of texts.entries()) if (t.trim() !== '') todo.push(i);
  const skipped = texts.length - todo.length;
  for (let start = 0; start < todo.length; start += plan.batchSize) {
    if (signal?.aborted) throw abortedError(signal);
    const slots = todo.slice(start, start + plan.batchSize);
    const vectors = await run(
      slots.map((i) => prefix + texts[i]!),
      signal,
    );
    for (const [k, i] of slots.entries()) out[i] = vectors[k]!;
    onProgress?.(skipped + Math.min(start + plan.batchSize, todo.length), texts.length);
  }
  if (todo.length === 0 && texts.length > 0) onProgress?.(texts.length, texts.length);
  return out;
}
