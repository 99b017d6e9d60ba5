// A plain in-memory BM25 reference (no library): Okapi BM25 with k1 0.9 and b 0.4 (Anserini's
// defaults), Lucene's idf ln(1 + (N − df + 0.5) / (df + 0.5)), title and text as one field,
// letters-and-digits tokens, English stop words dropped, Porter stems. Not tuned: it is the yardstick.
import { analyzeEnglish } from './english.js';
import type { Built, Doc, Peer } from './types.js';

export const K1 = 0.9;
export const B = 0.4;

interface Posting {
  doc: number;
  tf: number;
}

export class Bm25Reference {
  private readonly postings = new Map<string, Posting[]>();
  private readonly lengths: Float64Array;
  private readonly ids: string[];
  private readonly avgLength: number;

  constructor(docs: readonly Doc[]) {
    this.ids = docs.map((d) => d.id);
    this.lengths = new Float64Array(docs.length);
    let total = 0;
    docs.forEach((d, i) => {
      const tokens = analyzeEnglish(`${d.title}\n${d.text}`);
      this.lengths[i] = tokens.length;
      total += tokens.length;
      const tf = new Map<string, number>();
      for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1);
      for (const [t, n] of tf) {
        let list = this.postings.get(t);
        if (list === undefined) this.postings.set(t, (list = []));
        list.push({ doc: i, tf: n });
      }
    });
    this.avgLength = docs.length === 0 ? 0 : total / docs.length;
  }

  /** The best `k` ids; a term repeated in the query counts once per occurrence (as Lucene clauses do). */
  search(query: string, k: number): string[] {
    const n = this.ids.length;
    const scores = new Map<number, number>();
    for (const t of analyzeEnglish(query)) {
      const list = this.postings.get(t);
      if (list === undefined) continue;
      const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5));
      for (const { doc, tf } of list) {
        const norm = K1 * (1 - B + (B * this.lengths[doc]!) / this.avgLength);
        scores.set(doc, (scores.get(doc) ?? 0) + (idf * tf * (K1 + 1)) / (tf + norm));
      }
    }
    return [...scores]
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, k)
      .map(([doc]) => this.ids[doc]!);
  }
}

export const bm25Reference: Peer = {
  name: 'plain BM25 (reference)',
  size: 'in-memory',
  builds: 1,
  build(docs: readonly Doc[]): Promise<Built> {
    const index = new Bm25Reference(docs);
    return Promise.resolve({
      variants: [
        {
          config: `k1 ${K1}, b ${B}, title+text as one field, Porter, English stop words`,
          search: (q, k) => Promise.resolve(index.search(q, k)),
        },
      ],
      sizeBytes: () => Promise.resolve(null),
      close: () => Promise.resolve(),
    });
  },
};
