/**
 * Area under the ROC curve, the metric of the noise evaluation.
 */

import { QuiverError } from '../errors.js';

/**
 * Average ranks (1-based) of `values`, ties sharing the mean of the ranks they span.
 * `[10, 20, 20, 5]` → `[2, 3.5, 3.5, 1]`. Empty → [].
 */
export function averageRanks(values: readonly number[]): number[] {
  const order = values.map((_, i) => i).sort((a, b) => values[a]! - values[b]! || a - b);
  const ranks = new Array<number>(values.length).fill(0);
  let i = 0;
  while (i < order.length) {
    let j = i;
    while (j + 1 < order.length && values[order[j + 1]!] === values[order[i]!]) j++;
    const r = (i + j) / 2 + 1;
    for (let t = i; t <= j; t++) ranks[order[t]!] = r;
    i = j + 1;
  }
  return ranks;
}

/**
 * Mann–Whitney AUC: `(Σ ranks of positives − n₊(n₊+1)/2) / (n₊·n₋)` with average ranks for ties,
 * i.e. P(score of a random positive > a random negative) + ½ P(tie). A constant score gives 0.5.
 * A label is positive when truthy / ≥ 0.5. Either class empty → NaN. Lengths must match
 * (BAD_INPUT). NaN scores are not allowed (BAD_INPUT).
 *
 * @example auc([0.1, 0.4, 0.4, 0.8, 0.2], [0, 1, 0, 1, 0]) // 0.916667
 */
export function auc(scores: readonly number[], labels: readonly (number | boolean)[]): number {
  if (scores.length !== labels.length) {
    throw new QuiverError(
      'BAD_INPUT',
      `quiver: auc needs as many labels as scores, got ${labels.length} and ${scores.length}`,
    );
  }
  if (scores.some((s) => Number.isNaN(s)))
    throw new QuiverError('BAD_INPUT', 'quiver: auc scores must not be NaN');
  const ranks = averageRanks(scores);
  let nPos = 0;
  let sumPos = 0;
  for (let i = 0; i < labels.length; i++) {
    const l = labels[i];
    if (l === true || (typeof l === 'number' && l >= 0.5)) {
      nPos++;
      sumPos += ranks[i]!;
    }
  }
  const nNeg = labels.length - nPos;
  if (nPos === 0 || nNeg === 0) return Number.NaN;
  return (sumPos - (nPos * (nPos + 1)) / 2) / (nPos * nNeg);
}
