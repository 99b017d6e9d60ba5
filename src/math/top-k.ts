/**
 * Bounded top-k selection over a stream of (index, score): a min-heap of size k.
 * Ties keep the earlier index (lower index wins), so results are deterministic.
 */
export class TopK {
  private readonly idx: Int32Array;
  private readonly score: Float64Array;
  private size = 0;

  constructor(readonly k: number) {
    this.idx = new Int32Array(Math.max(k, 0));
    this.score = new Float64Array(Math.max(k, 0));
  }

  /** Worst score kept so far (−∞ until full): a candidate must beat it to enter. */
  get threshold(): number {
    return this.size < this.k ? -Infinity : this.score[0]!;
  }

  /** Offer a candidate. With ties at the threshold, the earlier-offered index is kept. */
  push(index: number, score: number): void {
    if (this.k <= 0) return;
    if (this.size < this.k) {
      let i = this.size++;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!this.worse(score, index, this.score[p]!, this.idx[p]!)) break;
        this.score[i] = this.score[p]!;
        this.idx[i] = this.idx[p]!;
        i = p;
      }
      this.score[i] = score;
      this.idx[i] = index;
      return;
    }
    if (!this.worse(this.score[0]!, this.idx[0]!, score, index)) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= this.size) break;
      const r = l + 1;
      const c =
        r < this.size && this.worse(this.score[r]!, this.idx[r]!, this.score[l]!, this.idx[l]!) ? r : l;
      if (!this.worse(this.score[c]!, this.idx[c]!, score, index)) break;
      this.score[i] = this.score[c]!;
      this.idx[i] = this.idx[c]!;
      i = c;
    }
    this.score[i] = score;
    this.idx[i] = index;
  }

  /** (index, score) pairs, best first (higher score; ties → lower index). */
  result(): { index: number; score: number }[] {
    const out: { index: number; score: number }[] = [];
    for (let i = 0; i < this.size; i++) out.push({ index: this.idx[i]!, score: this.score[i]! });
    return out.sort((a, b) => b.score - a.score || a.index - b.index);
  }

  /** a is worse than b: lower score, or equal score and higher index. */
  private worse(sa: number, ia: number, sb: number, ib: number): boolean {
    return sa < sb || (sa === sb && ia > ib);
  }
}
