/**
 * Levenshtein distance: the fewest single-character insertions, deletions and substitutions that
 * turn `a` into `b`, computed with one row of the usual dynamic programme,
 * d[i][j] = min(d[i-1][j] + 1, d[i][j-1] + 1, d[i-1][j-1] + (a[i] ≠ b[j])).
 * Edge cases: equal strings are 0; against the empty string it is the other's length; it counts
 * UTF-16 code units (options and command names are ASCII).
 */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      next.push(Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + cost));
    }
    row = next;
  }
  return row[b.length]!;
}

/**
 * The candidate closest to `word` when it is a plausible typo: distance ≤ 2 and less than half of
 * `word`'s length (so `--k` does not "mean" `--q`). Ties go to the first candidate; none → null.
 */
export function closest(word: string, candidates: Iterable<string>): string | null {
  let best: string | null = null;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = editDistance(word, c);
    if (d < bestD) {
      best = c;
      bestD = d;
    }
  }
  return best !== null && bestD <= 2 && bestD * 2 < word.length ? best : null;
}
