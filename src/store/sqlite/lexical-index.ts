import { BM25_B, BM25_K1, bm25Idf } from '../../math/bm25.js';
import { TopK } from '../../math/top-k.js';

/**
 * An in-memory inverted index over FTS5's own tokens of `sections_fts` (built by
 * `lexical-index-build.ts` from FTS5's vocabulary, so terms, counts and row lengths are exactly
 * FTS5's): postings sorted by term, then by row, each with the term's count in each column.
 * Rows are numbered densely (`rids[i]` is row i's section rid, ascending).
 *
 * Why it exists: FTS5 computes `bm25()` through its auxiliary-function API for every matching row
 * before it can sort, and a query of common words matches most of a large vault (a SciFact claim
 * matches ~65% of the sections of the 100k-chunk bench vault). Scoring the same postings from
 * typed arrays is an order of magnitude cheaper; {@link LexicalSearcher} gives FTS5's scores.
 */
export interface LexicalIndexParts {
  /** Distinct terms, one per posting list, in FTS5's vocabulary order. */
  terms: string[];
  /** Postings of term t are [termStart[t], termStart[t + 1]). Length terms.length + 1. */
  termStart: Uint32Array;
  /** Row number of each posting (ascending within a term). */
  postRow: Uint32Array;
  /** Count of the term in each column (body, title, heading) of that row, capped at 65,535. */
  postBody: Uint16Array;
  postTitle: Uint16Array;
  postHeading: Uint16Array;
  /** Section rid of each row, ascending. */
  rids: Float64Array;
  /** Section id of each row (`<doc_id>#<seq>`), so results need no lookup. */
  sectionIds: string[];
  /** Tokens in each row over all columns (FTS5's `xColumnSize(-1)`). */
  rowTokens: Uint32Array;
}

/**
 * `any` queries of at most this many phrases use MaxScore; longer ones score every posting. On the
 * 1.3M-chunk bench vault, SciFact claims (6–12 terms, top 100) took 3.0 ms by MaxScore against
 * 6.9 ms exhaustively, but the 20-term feedback query 10.1 ms against 6.8 ms: with many terms of
 * similar weight little can be pruned and the per-candidate bookkeeping dominates.
 */
export const MAXSCORE_MAX_PHRASES = 16;

/** Per-term maxima for score upper bounds ({@link LexicalIndex.termBounds}). */
export interface TermBounds {
  maxBody: Uint16Array;
  maxTitle: Uint16Array;
  maxHeading: Uint16Array;
  minTokens: Uint32Array;
}

export class LexicalIndex {
  readonly parts: LexicalIndexParts;
  private readonly termIds: Map<string, number>;
  /** Σ rowTokens. */
  readonly totalTokens: number;

  constructor(parts: LexicalIndexParts) {
    this.parts = parts;
    this.termIds = new Map(parts.terms.map((t, i) => [t, i] as const));
    let total = 0;
    for (const n of parts.rowTokens) total += n;
    this.totalTokens = total;
  }

  get rows(): number {
    return this.parts.rids.length;
  }

  get postings(): number {
    return this.parts.postRow.length;
  }

  private bounds: TermBounds | null = null;

  /**
   * Per term, the largest count in each column and the shortest row among its postings: enough
   * for an upper bound of the term's BM25 share in any row under any column weights (see
   * `lexical-maxscore.ts`). Computed on first use, one pass over the postings.
   */
  termBounds(): TermBounds {
    if (this.bounds !== null) return this.bounds;
    const { termStart, postRow, postBody, postTitle, postHeading, rowTokens } = this.parts;
    const n = this.parts.terms.length;
    const b: TermBounds = {
      maxBody: new Uint16Array(n),
      maxTitle: new Uint16Array(n),
      maxHeading: new Uint16Array(n),
      minTokens: new Uint32Array(n),
    };
    for (let t = 0; t < n; t++) {
      let mb = 0;
      let mt = 0;
      let mh = 0;
      let ml = 0xffffffff;
      for (let p = termStart[t]!; p < termStart[t + 1]!; p++) {
        if (postBody[p]! > mb) mb = postBody[p]!;
        if (postTitle[p]! > mt) mt = postTitle[p]!;
        if (postHeading[p]! > mh) mh = postHeading[p]!;
        const len = rowTokens[postRow[p]!]!;
        if (len < ml) ml = len;
      }
      b.maxBody[t] = mb;
      b.maxTitle[t] = mt;
      b.maxHeading[t] = mh;
      b.minTokens[t] = ml;
    }
    this.bounds = b;
    return b;
  }

  /** The term's id (index into `terms` and the bounds), or -1. */
  termId(term: string): number {
    return this.termIds.get(term) ?? -1;
  }

  /** [start, end) of a term's postings; [0, 0) when absent. */
  range(term: string): [number, number] {
    const t = this.termIds.get(term);
    if (t === undefined) return [0, 0];
    return [this.parts.termStart[t]!, this.parts.termStart[t + 1]!];
  }

  /** Row number of a rid, or -1 (binary search over the ascending rids). */
  rowOf(rid: number): number {
    const r = this.parts.rids;
    let lo = 0;
    let hi = r.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = r[mid]!;
      if (v === rid) return mid;
      if (v < rid) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }
}

/** Column weights of `bm25(sections_fts, body, title, heading)`. */
export interface ColumnWeights {
  body: number;
  title: number;
  heading: number;
}

/** One index and the rows of it that are no longer live (null: all live). */
export interface IndexSegment {
  index: LexicalIndex;
  dead: Uint8Array | null;
}

/** A phrase's score in one row (by rid), as FTS5 computed it. */
export interface ScoredRid {
  rid: number;
  score: number;
}

/** A ranked row: its rid, section id and score. */
export interface RankedSection extends ScoredRid {
  sectionId: string;
}

/**
 * Searches one or more segments as if they were one FTS5 table: a base index with tombstones and a
 * small index of rows added since it was built. Row counts, mean row length and each phrase's
 * document frequency are those of the live rows of all segments, which is what FTS5 uses, so
 * scores match `bm25()` (to floating-point summation order) and the order matches FTS5's
 * `ORDER BY bm25(...), rowid`. Score buffers are reused between queries (one searcher per state).
 */
export class LexicalSearcher {
  private readonly offsets: number[] = [];
  private readonly score: Float64Array;
  private readonly hits: Uint16Array;
  private readonly epoch: Uint32Array;
  private current = 0;
  private readonly touched: Uint32Array;
  /** Live rows over all segments. */
  readonly liveRows: number;
  /** Tokens of live rows over all segments. */
  readonly liveTokens: number;
  /** N and Σ tokens that BM25 uses: FTS5's own totals when given, else the live rows'. */
  private readonly bm25Rows: number;
  private readonly bm25Tokens: number;

  /**
   * `totals`: FTS5's row count and token total from its averages record (`readFtsTotals`). FTS5
   * does not lower them when a row of a contentless-delete table is deleted, so they can exceed
   * the live rows' figures; bm25() uses them, and so does this searcher when given them.
   */
  constructor(
    private readonly segments: readonly IndexSegment[],
    totals?: { rows: number; tokens: number },
  ) {
    let rows = 0;
    let live = 0;
    let tokens = 0;
    for (const s of segments) {
      this.offsets.push(rows);
      rows += s.index.rows;
      live += s.index.rows;
      tokens += s.index.totalTokens;
      if (s.dead !== null) {
        const rt = s.index.parts.rowTokens;
        for (let i = 0; i < s.dead.length; i++) {
          if (s.dead[i] === 1) {
            live--;
            tokens -= rt[i]!;
          }
        }
      }
    }
    this.liveRows = live;
    this.liveTokens = tokens;
    this.bm25Rows = totals?.rows ?? live;
    this.bm25Tokens = totals?.tokens ?? tokens;
    this.score = new Float64Array(rows);
    this.hits = new Uint16Array(rows);
    this.epoch = new Uint32Array(rows);
    this.touched = new Uint32Array(rows);
  }

  /** Live rows containing `term` in any column. */
  df(term: string): number {
    let n = 0;
    for (const s of this.segments) {
      const [a, b] = s.index.range(term);
      if (s.dead === null) {
        n += b - a;
        continue;
      }
      const rows = s.index.parts.postRow;
      const dead = s.dead;
      for (let p = a; p < b; p++) if (dead[rows[p]!] !== 1) n++;
    }
    return n;
  }

  /**
   * The best `limit` live rows for the query's phrases: a token (one-token phrase), `null` (a
   * phrase with no token, which matches nothing), or a phrase's own scores per row, computed by
   * FTS5 (longer phrases need positions, which the index does not keep). `any`: rows matching at
   * least one phrase; `all`: every phrase. Each phrase scores on its own and adds in query order,
   * as in FTS5, so a repeated token counts twice. Best first, ties by rid.
   */
  search(
    phrases: readonly (string | null | readonly ScoredRid[])[],
    w: ColumnWeights,
    limit: number,
    mode: 'any' | 'all',
  ): RankedSection[] {
    if (limit <= 0 || phrases.length === 0 || this.liveRows === 0 || this.bm25Rows <= 0) return [];
    return mode === 'any' && phrases.length <= MAXSCORE_MAX_PHRASES
      ? this.searchMaxScore(phrases, w, limit)
      : this.searchExhaustive(phrases, w, limit, mode);
  }

  /**
   * {@link search} by scoring every posting of every phrase (term at a time); `all` mode uses it,
   * and tests use it as the oracle for {@link searchMaxScore}.
   */
  searchExhaustive(
    phrases: readonly (string | null | readonly ScoredRid[])[],
    w: ColumnWeights,
    limit: number,
    mode: 'any' | 'all',
  ): RankedSection[] {
    if (limit <= 0 || phrases.length === 0 || this.liveRows === 0 || this.bm25Rows <= 0) return [];
    if (mode === 'all' && phrases.some((p) => p === null)) return [];
    const avg = this.bm25Tokens / this.bm25Rows;
    const ep = this.nextEpoch();
    const { score, hits, epoch, touched } = this;
    let nTouched = 0;
    let needed = 0;
    const touch = (g: number): void => {
      if (epoch[g] !== ep) {
        epoch[g] = ep;
        score[g] = 0;
        hits[g] = 0;
        touched[nTouched++] = g;
      }
    };
    for (const term of phrases) {
      if (term === null) continue;
      needed++;
      if (typeof term !== 'string') {
        if (term.length === 0 && mode === 'all') return [];
        for (const { rid, score: c } of term) {
          const g = this.rowOf(rid);
          if (g < 0) continue;
          touch(g);
          score[g] = score[g]! + c;
          hits[g] = hits[g]! + 1;
        }
        continue;
      }
      const df = this.df(term);
      if (df === 0) {
        if (mode === 'all') return [];
        continue;
      }
      const idf = bm25Idf(this.bm25Rows, df);
      const norm = this.norms(avg);
      for (let si = 0; si < this.segments.length; si++) {
        const s = this.segments[si]!;
        const off = this.offsets[si]!;
        const [a, b] = s.index.range(term);
        const { postRow, postBody, postTitle, postHeading } = s.index.parts;
        const dead = s.dead;
        for (let p = a; p < b; p++) {
          const r = postRow[p]!;
          if (dead !== null && dead[r] === 1) continue;
          const g = off + r;
          const f = postBody[p]! * w.body + postTitle[p]! * w.title + postHeading[p]! * w.heading;
          touch(g);
          // bm25Term(idf, f, rowTokens[r], avg) with the length part precomputed per row, in the
          // same operation order as FTS5's C code, so equal scores there are equal here.
          score[g] = score[g]! + idf * ((f * (BM25_K1 + 1)) / (f + norm[g]!));
          hits[g] = hits[g]! + 1;
        }
      }
    }
    return this.top(nTouched, limit, mode === 'all' ? needed : 0);
  }

  /**
   * `any` mode by MaxScore (Turtle & Flood 1995), document at a time over row-ordered postings,
   * one segment after another into one bounded heap. Each phrase has an upper bound on its share
   * in any row (from {@link LexicalIndex.termBounds}: the largest column counts and the shortest
   * row, since the share grows with f and shrinks with D). Phrases sorted by bound; the longest
   * prefix whose bounds sum below the heap's threshold θ is "non-essential": a row that matches
   * none of the others cannot enter the top, so candidates come from the essential phrases only,
   * and a candidate is dropped as soon as its partial score plus the bounds still unscored falls
   * below θ. Kept rows are scored in full, summed in phrase order, so scores and order are
   * exactly those of {@link searchExhaustive} (and FTS5's). Bounds are compared with a relative
   * slack of 1e-9, so rounding can only make pruning more cautious.
   */
  private searchMaxScore(
    phrases: readonly (string | null | readonly ScoredRid[])[],
    w: ColumnWeights,
    limit: number,
  ): RankedSection[] {
    const avg = this.bm25Tokens / this.bm25Rows;
    const norm = this.norms(avg);
    const K1 = BM25_K1 + 1;
    const top = new TopK(limit);
    const threshold = (): number => top.threshold * (1 - 1e-9);
    // Per phrase: idf over all segments, and FTS5's per-row scores as global rows, sorted.
    const idfs = phrases.map((p) => (typeof p === 'string' ? bm25Idf(this.bm25Rows, this.df(p)) : 0));
    const lists = phrases.map((p) => {
      if (p === null || typeof p === 'string') return null;
      const rows: { g: number; c: number }[] = [];
      for (const { rid, score: c } of p) {
        const g = this.rowOf(rid);
        if (g >= 0) rows.push({ g, c });
      }
      return rows.sort((a, b) => a.g - b.g);
    });
    const contrib = new Float64Array(phrases.length);
    // Phrases given a share for the current candidate (reset after it), without allocating.
    const set = new Int32Array(phrases.length);
    for (let si = 0; si < this.segments.length; si++) {
      const seg = this.segments[si]!;
      const off = this.offsets[si]!;
      const { postRow, postBody, postTitle, postHeading } = seg.index.parts;
      const bounds = seg.index.termBounds();
      const dead = seg.dead;
      const terms: MaxScoreTerm[] = [];
      phrases.forEach((p, i) => {
        if (p === null) return;
        if (typeof p === 'string') {
          const t = seg.index.termId(p);
          if (t < 0) return;
          const [a, b] = seg.index.range(p);
          const F =
            bounds.maxBody[t]! * w.body + bounds.maxTitle[t]! * w.title + bounds.maxHeading[t]! * w.heading;
          const kMin = BM25_K1 * (1 - BM25_B + (BM25_B * bounds.minTokens[t]!) / avg);
          const ub = F > 0 ? idfs[i]! * ((F * K1) / (F + kMin)) : 0;
          terms.push({ phrase: i, ub, rows: postRow, pos: a, end: b, base: a, idf: idfs[i]!, vals: null });
          return;
        }
        const all = lists[i]!.filter((x) => x.g >= off && x.g < off + seg.index.rows);
        if (all.length === 0) return;
        terms.push({
          phrase: i,
          ub: Math.max(...all.map((x) => x.c)),
          rows: Uint32Array.from(all, (x) => x.g - off),
          pos: 0,
          end: all.length,
          base: 0,
          idf: 0,
          vals: Float64Array.from(all, (x) => x.c),
        });
      });
      if (terms.length === 0) continue;
      terms.sort((a, b) => a.ub - b.ub);
      const pre = [0];
      for (const t of terms) pre.push(pre[pre.length - 1]! + t.ub);
      let e = 0;
      const share = (t: MaxScoreTerm, p: number, g: number): number => {
        if (t.vals !== null) return t.vals[p]!;
        const f = postBody[p]! * w.body + postTitle[p]! * w.title + postHeading[p]! * w.heading;
        return t.idf * ((f * K1) / (f + norm[g]!));
      };
      for (;;) {
        const theta = threshold();
        while (e < terms.length && pre[e + 1]! < theta) e++;
        if (e === terms.length) break;
        // The next candidate: the smallest current row among the essential phrases.
        let d = 0xffffffff;
        for (let k = e; k < terms.length; k++) {
          const t = terms[k]!;
          if (t.pos < t.end && t.rows[t.pos]! < d) d = t.rows[t.pos]!;
        }
        if (d === 0xffffffff) break;
        const g = off + d;
        let partial = 0;
        let nSet = 0;
        for (let k = e; k < terms.length; k++) {
          const t = terms[k]!;
          if (t.pos < t.end && t.rows[t.pos] === d) {
            if (dead === null || dead[d] !== 1) {
              const c = share(t, t.pos, g);
              contrib[t.phrase] = c;
              set[nSet++] = t.phrase;
              partial += c;
            }
            t.pos++;
          }
        }
        if (nSet === 0) continue;
        let upper = partial + pre[e]!;
        let keep = upper >= theta;
        for (let k = e - 1; keep && k >= 0; k--) {
          const t = terms[k]!;
          seek(t, d);
          upper -= t.ub;
          if (t.pos < t.end && t.rows[t.pos] === d) {
            const c = share(t, t.pos, g);
            contrib[t.phrase] = c;
            set[nSet++] = t.phrase;
            upper += c;
          }
          keep = upper >= theta;
        }
        if (keep) {
          let s = 0;
          for (let i = 0; i < phrases.length; i++) s += contrib[i]!;
          top.push(g, s);
        }
        for (let k = 0; k < nSet; k++) contrib[set[k]!] = 0;
      }
    }
    return top.result().map(({ index, score }) => this.rowAt(index, score));
  }

  private norm: Float64Array | null = null;

  /** k1(1 − b + b·D/avgdl) of every row (global numbering), computed once per searcher. */
  private norms(avg: number): Float64Array {
    if (this.norm !== null) return this.norm;
    const norm = new Float64Array(this.score.length);
    this.segments.forEach((s, si) => {
      const off = this.offsets[si]!;
      const rt = s.index.parts.rowTokens;
      for (let r = 0; r < rt.length; r++) norm[off + r] = BM25_K1 * (1 - BM25_B + (BM25_B * rt[r]!) / avg);
    });
    this.norm = norm;
    return norm;
  }

  private nextEpoch(): number {
    this.current++;
    if (this.current === 0xffffffff) {
      this.epoch.fill(0);
      this.current = 1;
    }
    return this.current;
  }

  /** Global row number of a live rid, or -1. */
  private rowOf(rid: number): number {
    for (let si = 0; si < this.segments.length; si++) {
      const s = this.segments[si]!;
      const r = s.index.rowOf(rid);
      if (r >= 0) return s.dead !== null && s.dead[r] === 1 ? -1 : this.offsets[si]! + r;
    }
    return -1;
  }

  /** The section of global row `g`, ranked with `score`. */
  private rowAt(g: number, score: number): RankedSection {
    let si = this.offsets.length - 1;
    while (this.offsets[si]! > g) si--;
    const p = this.segments[si]!.index.parts;
    const r = g - this.offsets[si]!;
    return { rid: p.rids[r]!, sectionId: p.sectionIds[r]!, score };
  }

  /** The best `limit` touched rows (with at least `minHits` phrase hits) by score, then rid. */
  private top(nTouched: number, limit: number, minHits: number): RankedSection[] {
    const { score, hits, touched } = this;
    // Global row order follows rid order (segments hold ascending, disjoint rid ranges), so
    // TopK's tie rule (lower index first) is FTS5's `ORDER BY bm25(...), rowid`.
    const top = new TopK(limit);
    for (let i = 0; i < nTouched; i++) {
      const g = touched[i]!;
      if (hits[g]! >= minHits) top.push(g, score[g]!);
    }
    return top.result().map(({ index, score: s }) => this.rowAt(index, s));
  }
}

/** One phrase's cursor in one segment for MaxScore. */
interface MaxScoreTerm {
  phrase: number;
  /** Upper bound of the phrase's share in any row of the segment. */
  ub: number;
  /** Row-ordered rows of its postings; `pos` runs from `base` to `end`. */
  rows: Uint32Array;
  pos: number;
  end: number;
  base: number;
  idf: number;
  /** FTS5's share per position (multi-token phrases), else null (computed from the postings). */
  vals: Float64Array | null;
}

/** Move `t.pos` to the first position whose row is ≥ d (galloping, then binary search). */
function seek(t: MaxScoreTerm, d: number): void {
  const rows = t.rows;
  let lo = t.pos;
  if (lo >= t.end || rows[lo]! >= d) return;
  // rows[lo] < d: gallop until rows[hi] >= d or past the end.
  let step = 1;
  let hi = lo + 1;
  while (hi < t.end && rows[hi]! < d) {
    lo = hi;
    step *= 2;
    hi = lo + step;
  }
  if (hi > t.end) hi = t.end;
  // Invariant: rows[lo] < d, and hi is end or rows[hi] >= d.
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (rows[mid]! < d) lo = mid;
    else hi = mid;
  }
  t.pos = hi;
}
