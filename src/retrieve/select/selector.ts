/**
 * The selection interface: choose `k` of `N` over-fetched candidates. Every selector is a pure
 * function over vectors (and optional external relevance scores) that returns picks in pick order.
 */

/** What every selector reads. */
export interface SelectInput {
  /** The query vector (any length, compared by cosine; a zero vector has no direction). */
  query: Float32Array | number[];
  /** One vector per candidate, each the query's length. */
  candidates: (Float32Array | number[])[];
  /**
   * Optional external relevance scores, one per candidate, higher is better (for example the fused
   * RRF score). Each selector documents whether and how it uses them.
   */
  relevance?: number[];
  /** How many to pick. `k ≤ 0` gives [], `k ≥ N` gives all N (`Infinity` is allowed). */
  k: number;
}

/** One pick, in pick order. */
export interface Pick {
  /** Index into `SelectInput.candidates`. */
  index: number;
  /** The value the selector maximised at this step; null where the algorithm has none (Dartboard's first pick). */
  stepScore: number | null;
}

/** A selection algorithm. */
export type Selector<O = unknown> = (input: SelectInput, options?: O) => Pick[];
