/**
 * The verdict of bench/embedder-candidates.ts, derived from its numbers so a re-run states what
 * it measured:
 *   1. a candidate whose best fused SciFact nDCG@10 beats lexical alone significantly (95% paired
 *      bootstrap interval above 0) wins by fused nDCG@10;
 *   2. otherwise ranking does not separate the candidates: among those not significantly below
 *      lexical alone at their best weight and reaching the throughput bar (CPU chunks/s), the
 *      cheapest (fastest) wins;
 *   3. the weight: the winner's best weight if its interval is above 0; 0 if even its best weight is
 *      significantly below; else the smallest measured weight when it loses no recall@100.
 */

export interface Interval {
  mean: number;
  lo: number;
  hi: number;
}

export interface VerdictInput {
  names: readonly string[];
  weights: readonly number[];
  bar: number;
  lexical: { ndcg10: number; recall100: number; hotpot: string };
  /** Per candidate. */
  vector: readonly { ndcg10: number; recall100: number; hpR2: number; hpR10: number }[];
  /** Per candidate, per weight (SciFact). */
  fused: readonly (readonly { ndcg10: number; recall100: number; hotpot: string }[])[];
  /** Per candidate, per weight: fused − lexical, SciFact nDCG@10. */
  deltas: readonly (readonly Interval[])[];
  cpuRate: readonly number[];
  fitMs: readonly number[];
  dims: readonly number[];
}

const f3 = (x: number): string => x.toFixed(3);
const sgn = (x: number): string => `${x >= 0 ? '+' : '−'}${f3(Math.abs(x))}`;
/** `+0.001 [−0.003, +0.004]`. */
export const ci = (d: Interval): string => `${sgn(d.mean)} [${sgn(d.lo)}, ${sgn(d.hi)}]`;

export function verdict(v: VerdictInput): string {
  const all = v.names.map((_, k) => k);
  const bestW = all.map((k) => {
    const f = v.fused[k]!;
    let at = 0;
    f.forEach((m, i) => (at = m.ndcg10 > f[at]!.ndcg10 ? i : at));
    return at;
  });
  const best = (k: number): Interval => v.deltas[k]![bestW[k]!]!;
  const nd = (k: number): number => v.fused[k]![bestW[k]!]!.ndcg10;
  const fast = all.filter((k) => v.cpuRate[k]! >= v.bar);
  const pool = fast.length > 0 ? fast : all;
  const better = pool.filter((k) => best(k).lo > 0);
  let win: number;
  let why: string;
  if (better.length > 0) {
    win = better.reduce((a, k) => (nd(k) > nd(a) ? k : a));
    why = `its fusion beats lexical alone on SciFact nDCG@10 (${ci(best(win))})`;
  } else {
    const tied = pool.filter((k) => best(k).hi >= 0);
    const from = tied.length > 0 ? tied : pool;
    win = from.reduce((a, k) => (v.cpuRate[k]! > v.cpuRate[a]! ? k : a));
    why =
      `no candidate's fusion beats lexical alone on SciFact nDCG@10 (best Δ per candidate: ${all
        .map((k) => `${v.names[k]} ${ci(best(k))} at w_vec=${v.weights[bestW[k]!]}`)
        .join('; ')}), so ranking does not separate them; ` +
      `of those not significantly below lexical and at ≥ ${v.bar} chunks/s (CPU) it is the cheapest: ` +
      `${Math.round(v.cpuRate[win]!)} chunks/s, fitted in ${(v.fitMs[win]! / 1000).toFixed(1)} s on SciFact, ${v.dims[win]} dims`;
  }
  const wi = bestW[win]!;
  const d = best(win);
  const small = v.deltas[win]![0]!;
  const last = v.deltas[win]![v.weights.length - 1]!;
  const recall = v.fused[win]![0]!.recall100 - v.lexical.recall100;
  let weight: string;
  if (d.lo > 0) weight = `keep w_vec = ${v.weights[wi]} (${ci(d)})`;
  else if (d.hi < 0)
    weight = `w_vec = 0 for ranking (even w_vec=${v.weights[wi]} gives ${ci(d)}); the vectors still serve selection and noise features`;
  else if (recall >= 0)
    weight =
      `keep a small weight, w_vec = ${v.weights[0]}, not 0: it is neutral on SciFact nDCG@10 (${ci(small)}), loses no recall@100 (${sgn(recall)}) ` +
      `and gives HotpotQA ${v.fused[win]![0]!.hotpot} vs lexical ${v.lexical.hotpot}, while larger weights cost nDCG@10 (w_vec=${v.weights[v.weights.length - 1]}: ${ci(last)}); ` +
      `it is a safety net for queries the lexical leg misses, not a measured ranking gain`;
  else
    weight = `w_vec = 0 for ranking: the smallest weight is neutral on nDCG@10 (${ci(small)}) but loses recall@100 (${sgn(recall)})`;
  const bestVec = all.reduce((a, k) => (v.vector[k]!.ndcg10 > v.vector[a]!.ndcg10 ? k : a));
  const vw = v.vector[win]!;
  const vb = v.vector[bestVec]!;
  const vecNote =
    bestVec === win
      ? ''
      : ` ${v.names[bestVec]} has the best vector leg alone on SciFact (${f3(vb.ndcg10)} / ${f3(vb.recall100)} vs ${f3(vw.ndcg10)} / ${f3(vw.recall100)}), which would help selection and noise features, ` +
        `but on the small HotpotQA vault its vector leg is not clearly better (R@2 ${f3(vb.hpR2)} / R@10 ${f3(vb.hpR10)} vs ${f3(vw.hpR2)} / ${f3(vw.hpR10)}), ` +
        `it embeds ${Math.round(v.cpuRate[bestVec]!)} vs ${Math.round(v.cpuRate[win]!)} chunks/s (CPU) and fits in ${(v.fitMs[bestVec]! / 1000).toFixed(1)} s vs ${(v.fitMs[win]! / 1000).toFixed(1)} s (every refit re-embeds the vault): an option for large vaults rather than the default.`;
  return `**Verdict.** Default: **${v.names[win]}** — ${why}.${vecNote} Fusion weight: ${weight}.`;
}
