// Choose a system's options on the tuning queries by nDCG@10: every variant of every build, then
// the refinements of the winner (ties keep the earlier candidate). The chosen build stays open.
import type { BeirSet } from '../../src/evaluate/datasets/beir.js';
import { means, perQuery, rankAll } from './evaluate.js';
import type { BuildContext, Built, Doc, Peer, Variant } from './types.js';

/** Where the chosen variant sits, so it can be rebuilt on another corpus. */
export interface Choice {
  build: number;
  variant: number;
  /** Index in the winner's refinements, or null when no refinement beat it. */
  refinement: number | null;
}

export interface Tuned {
  built: Built;
  variant: Variant;
  choice: Choice;
  /** Candidates scored on the tuning queries (0 when there was only one, which needs no tuning). */
  candidates: number;
  /** nDCG@10 of the best and worst candidate on the tuning queries; null when not tuned. */
  best: number | null;
  worst: number | null;
}

export async function tune(
  peer: Peer,
  docs: readonly Doc[],
  ctx: BuildContext,
  set: BeirSet,
  log: (line: string) => void,
): Promise<Tuned> {
  const score = async (v: Variant): Promise<number> => {
    const s = means(perQuery(set, await rankAll(v, set))).ndcg10;
    log(`  ${peer.name} [${v.config}]: tuning nDCG@10 ${s.toFixed(4)}`);
    return s;
  };
  const first = await peer.build(docs, 0, ctx);
  const only = first.variants[0];
  if (
    peer.builds === 1 &&
    first.variants.length === 1 &&
    only !== undefined &&
    only.refinements === undefined
  )
    return {
      built: first,
      variant: only,
      choice: { build: 0, variant: 0, refinement: null },
      candidates: 0,
      best: null,
      worst: null,
    };
  let best: { built: Built; variant: Variant; choice: Choice; score: number } | null = null;
  const scores: number[] = [];
  for (let b = 0; b < peer.builds; b++) {
    const built = b === 0 ? first : await peer.build(docs, b, ctx);
    let keep = false;
    for (const [j, v] of built.variants.entries()) {
      const s = await score(v);
      scores.push(s);
      if (best === null || s > best.score) {
        if (best !== null && best.built !== built) await best.built.close();
        best = { built, variant: v, choice: { build: b, variant: j, refinement: null }, score: s };
        keep = true;
      }
    }
    if (!keep) await built.close();
  }
  if (best === null) throw new Error(`${peer.name}: no variant to tune`);
  const round1 = best;
  for (const [r, v] of (round1.variant.refinements?.() ?? []).entries()) {
    const s = await score(v);
    scores.push(s);
    if (s > best.score)
      best = { ...round1, variant: v, choice: { ...round1.choice, refinement: r }, score: s };
  }
  return {
    built: best.built,
    variant: best.variant,
    choice: best.choice,
    candidates: scores.length,
    best: Math.max(...scores),
    worst: Math.min(...scores),
  };
}

/** Build the chosen configuration of `peer` on another corpus. */
export async function replay(
  peer: Peer,
  docs: readonly Doc[],
  ctx: BuildContext,
  choice: Choice,
): Promise<{ built: Built; variant: Variant }> {
  const built = await peer.build(docs, choice.build, ctx);
  const base = built.variants[choice.variant];
  const variant = choice.refinement === null ? base : base?.refinements?.()[choice.refinement];
  if (variant === undefined) throw new Error(`${peer.name}: chosen variant not found on replay`);
  return { built, variant };
}
