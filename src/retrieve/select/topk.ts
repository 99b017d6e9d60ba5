import { checkInput, queryCosines } from './_input.js';
import type { Pick, SelectInput } from './selector.js';

/**
 * Plain top-k: the `k` most relevant candidates, best first. Relevance is `input.relevance` when
 * given, else the cosine between the query and each candidate (a zero vector scores 0). Ties go to
 * the lowest index. Each pick's `stepScore` is its relevance.
 *
 * Edge cases: `k ≤ 0` or no candidates → []; `k ≥ N` → all N in relevance order.
 *
 * @example
 * topk({ query: [1, 0], candidates: [[0, 1], [1, 0]], k: 1 }); // [{ index: 1, stepScore: 1 }]
 */
export function topk(input: SelectInput): Pick[] {
  const take = checkInput(input);
  if (take === 0) return [];
  const rel = input.relevance ?? Array.from(queryCosines(input));
  const order = rel.map((_, i) => i).sort((a, b) => rel[b]! - rel[a]! || a - b);
  return order.slice(0, take).map((index) => ({ index, stepScore: rel[index]! }));
}
