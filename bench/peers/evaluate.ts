// Per-query metrics of a system on a BEIR set, and the seeded split of SciFact's judged queries
// into tuning and held-out parts.
import type { BeirSet } from '../../src/evaluate/datasets/beir.js';
import { mrrAtK, ndcgAtK, recallAtK } from '../../src/evaluate/retrieval-metrics.js';
import { createPrng } from '../../src/math/prng.js';
import { mean } from '../lib.js';
import type { Variant } from './types.js';

/** Depth of the quality runs: every system is asked for its top 100. */
export const QUALITY_DEPTH = 100;

export interface PerQuery {
  /** Aligned with the set's queries. */
  ndcg10: number[];
  recall100: number[];
  mrr10: number[];
}

export interface Means {
  ndcg10: number;
  recall100: number;
  mrr10: number;
}

/** Metrics of `rankings` (query id → doc ids) per query; a query with no ranking scores 0. */
export function perQuery(set: BeirSet, rankings: ReadonlyMap<string, readonly string[]>): PerQuery {
  const out: PerQuery = { ndcg10: [], recall100: [], mrr10: [] };
  for (const q of set.queries) {
    const gains = Object.fromEntries(set.qrels.get(q.id) ?? []);
    const rel = Object.keys(gains).filter((d) => (gains[d] ?? 0) > 0);
    const ranked = rankings.get(q.id) ?? [];
    out.ndcg10.push(ndcgAtK(ranked, gains, 10) ?? 0);
    out.recall100.push(recallAtK(ranked, rel, 100) ?? 0);
    out.mrr10.push(mrrAtK(ranked, rel, 10) ?? 0);
  }
  return out;
}

export function means(p: PerQuery): Means {
  return { ndcg10: mean(p.ndcg10), recall100: mean(p.recall100), mrr10: mean(p.mrr10) };
}

/** Run every query of `set` through `variant` at the quality depth. */
export async function rankAll(variant: Variant, set: BeirSet): Promise<Map<string, string[]>> {
  const rankings = new Map<string, string[]>();
  for (const q of set.queries) rankings.set(q.id, await variant.search(q.text, QUALITY_DEPTH));
  return rankings;
}

/** The same set restricted to `queries` (judgements kept as they are). */
function withQueries(set: BeirSet, queries: BeirSet['queries']): BeirSet {
  return { ...set, queries, qrels: new Map(queries.map((q) => [q.id, set.qrels.get(q.id) ?? new Map()])) };
}

/**
 * A seeded random split of `set`'s queries: `heldOut` of them for scoring, the rest for choosing
 * options. Each part keeps the file order of its queries.
 */
export function splitQueries(
  set: BeirSet,
  heldOut: number,
  seed: number,
): { tune: BeirSet; heldOut: BeirSet } {
  const order = set.queries.map((_, i) => i);
  const rng = createPrng(seed);
  for (let i = order.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const held = new Set(order.slice(0, heldOut));
  return {
    tune: withQueries(
      set,
      set.queries.filter((_, i) => !held.has(i)),
    ),
    heldOut: withQueries(
      set,
      set.queries.filter((_, i) => held.has(i)),
    ),
  };
}
