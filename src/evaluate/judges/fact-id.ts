/**
 * The fact-id judge, for authored test sets (seed 000's teaching model): sources and claims carry
 * fact ids, and support is membership. Exact and offline; not a proxy.
 */
import type { Judge, JudgeClaim, JudgeSource } from './judge.js';

/**
 * True when the claim has at least one fact id and every one of them is among `sourceFactIds`.
 * A claim without fact ids is never supported.
 */
export function factsCover(
  sourceFactIds: Iterable<string>,
  claimFactIds: readonly string[] | undefined,
): boolean {
  const ids = claimFactIds ?? [];
  if (ids.length === 0) return false;
  const have = new Set(sourceFactIds);
  return ids.every((f) => have.has(f));
}

/**
 * `supports(source, claim)`: every claim fact id is listed by the source.
 * `supportsJointly(sources, claim)`: every claim fact id is listed by at least one of the sources.
 */
export function createFactIdJudge(): Judge {
  return {
    id: 'fact-id',
    proxy: false,
    supports(source: JudgeSource, claim: JudgeClaim): Promise<boolean> {
      return Promise.resolve(factsCover(source.factIds ?? [], claim.factIds));
    },
    supportsJointly(sources: readonly JudgeSource[], claim: JudgeClaim): Promise<boolean> {
      return Promise.resolve(
        factsCover(
          sources.flatMap((s) => s.factIds ?? []),
          claim.factIds,
        ),
      );
    },
  };
}
