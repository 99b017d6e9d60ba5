import { QuiverError } from '../errors.js';

/** RRF's rank offset k (Cormack et al. 2009). */
export const DEFAULT_RRF_K = 60;

/** Rows each leg fetches for a result list of `limit`: `max(3 × limit, 30)`. */
export const DEFAULT_LEG_FETCH = (limit: number): number => Math.max(3 * limit, 30);

/** One ranked list to fuse: hits best first. */
export interface RrfLeg<K> {
  /** Unique leg name; the key in each result's `ranks`. */
  name: string;
  /** Weight ≥ 0; 0 keeps the leg's ranks in the report but adds nothing to scores. */
  weight: number;
  hits: readonly { key: K }[];
}

/** A fused result. */
export interface RrfResult<K> {
  key: K;
  /** `Σ_leg w_leg / (k + rank_leg)` over the legs that returned the key; ≥ 0. */
  score: number;
  /** 0-based rank in every leg (null where the leg did not return the key). */
  ranks: Record<string, number | null>;
}

/**
 * Reciprocal rank fusion: `score(d) = Σ_leg w_leg / (k + rank_leg(d))`, rank 0-based, over the legs
 * that returned d. Keys are compared as Map keys (SameValueZero), so any key type works.
 *
 * Sorted by score descending; ties by the best rank in any leg of weight > 0, then by first
 * appearance (legs in order, hits in order). Scores are summed in a canonical order, so they do
 * not depend on the order of the legs.
 *
 * Edge cases: no legs or only empty legs → []; a key repeated within a leg counts at its first
 * rank only; a key returned only by weight-0 legs is kept with score 0. k must be a finite
 * number > 0 (with 0-based ranks, k = 0 would divide by zero at rank 0), weights finite and ≥ 0,
 * leg names unique: otherwise BAD_INPUT.
 *
 * @example
 * rrf([{ name: 'lexical', weight: 1, hits: [{ key: 'a' }, { key: 'b' }] },
 *      { name: 'vector', weight: 1, hits: [{ key: 'b' }] }]);
 * // b: 1/61 + 1/60, a: 1/60
 */
export function rrf<K>(legs: readonly RrfLeg<K>[], k: number = DEFAULT_RRF_K): RrfResult<K>[] {
  if (!Number.isFinite(k) || !(k > 0))
    throw new QuiverError('BAD_INPUT', `quiver: rrf k must be a finite number > 0, got ${k}`);
  const names = new Set<string>();
  for (const leg of legs) {
    if (names.has(leg.name))
      throw new QuiverError('BAD_INPUT', `quiver: rrf leg names must be unique, got ${leg.name} twice`);
    names.add(leg.name);
    if (!Number.isFinite(leg.weight) || leg.weight < 0) {
      throw new QuiverError(
        'BAD_INPUT',
        `quiver: rrf weight of leg ${leg.name} must be a finite number ≥ 0, got ${leg.weight}`,
      );
    }
  }
  interface Entry {
    key: K;
    ranks: (number | null)[];
    first: number;
  }
  const entries = new Map<K, Entry>();
  let seen = 0;
  legs.forEach((leg, l) => {
    leg.hits.forEach((hit, rank) => {
      let e = entries.get(hit.key);
      if (e === undefined) {
        e = { key: hit.key, ranks: legs.map(() => null), first: seen++ };
        entries.set(hit.key, e);
      }
      if (e.ranks[l] === null) e.ranks[l] = rank;
    });
  });
  const scored = [...entries.values()].map((e) => {
    const parts: number[] = [];
    let best = Infinity;
    e.ranks.forEach((r, l) => {
      const w = legs[l]!.weight;
      if (r === null || w === 0) return;
      parts.push(w / (k + r));
      if (r < best) best = r;
    });
    parts.sort((a, b) => a - b);
    let score = 0;
    for (const p of parts) score += p;
    const ranks: Record<string, number | null> = {};
    legs.forEach((leg, l) => (ranks[leg.name] = e.ranks[l] ?? null));
    return { key: e.key, score, ranks, best, first: e.first };
  });
  scored.sort((a, b) => b.score - a.score || a.best - b.best || a.first - b.first);
  return scored.map(({ key, score, ranks }) => ({ key, score, ranks }));
}
