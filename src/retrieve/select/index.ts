/**
 * Selection: choose `k` of an over-fetched candidate pool with one of three pure algorithms.
 * The pool is the fused top `k × DEFAULT_OVERSAMPLE`; each candidate needs a vector (a section's
 * vector is the normalised mean of its chunks').
 */
import { QuiverError } from '../../errors.js';
import { dartboard, type DartboardOptions } from './dartboard.js';
import { mmr, type MmrOptions } from './mmr.js';
import type { Pick, SelectInput } from './selector.js';
import { topk } from './topk.js';

export type { Pick, SelectInput, Selector } from './selector.js';
export {
  dartboard,
  lognorm,
  DEFAULT_DARTBOARD,
  DEFAULT_DARTBOARD_DISTANCE,
  DEFAULT_DARTBOARD_RELEVANCE,
  DEFAULT_DARTBOARD_SCORE_SCALE,
  DEFAULT_DARTBOARD_TEMPERATURE,
  DEFAULT_DIVERSITY_WEIGHT,
  DEFAULT_RELEVANCE_WEIGHT,
  DEFAULT_SIGMA,
  MIN_SIGMA,
} from './dartboard.js';
export type {
  DartboardDistance,
  DartboardOptions,
  DartboardRelevance,
  DartboardScoreScale,
} from './dartboard.js';
export { mmr, DEFAULT_MMR_LAMBDA } from './mmr.js';
export type { MmrOptions } from './mmr.js';
export { topk } from './topk.js';

/** The selection methods. */
export type SelectMethod = 'topk' | 'mmr' | 'dartboard';
/** All methods, in a stable order (for CLIs and benchmarks). */
export const SELECT_METHODS: readonly SelectMethod[] = ['topk', 'mmr', 'dartboard'];
/** The default method. */
export const DEFAULT_SELECT: SelectMethod = 'dartboard';
/** The candidate pool is `k × DEFAULT_OVERSAMPLE` (the seed's 5 × 3 = 15). */
export const DEFAULT_OVERSAMPLE = 3;

/**
 * Options for {@link select}: one flat bag, each selector reads its own fields (`lambda` for MMR;
 * `sigma`, `diversityWeight`, `relevanceWeight`, `distance`, `relevance`, `temperature`,
 * `scoreScale` for Dartboard) and ignores the rest.
 */
export type SelectOptions = MmrOptions & DartboardOptions;

/**
 * Runs the named selector with the options it understands. Unknown methods throw BAD_INPUT.
 *
 * @example
 * select('dartboard', { query, candidates, k: 5 }, { sigma: 0.1 });
 */
export function select(method: SelectMethod, input: SelectInput, options: SelectOptions = {}): Pick[] {
  switch (method) {
    case 'topk':
      return topk(input);
    case 'mmr':
      return mmr(input, options);
    case 'dartboard':
      return dartboard(input, options);
    default:
      throw new QuiverError(
        'BAD_INPUT',
        `quiver: select must be one of topk, mmr, dartboard, got ${String(method)}`,
      );
  }
}
