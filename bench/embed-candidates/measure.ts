/**
 * Measurement helpers for bench/embedder-candidates.ts: brute-force vector rankings, an in-memory
 * FTS5 lexical leg as quiver ranks it (BM25, title weight 3, `any`-mode terms, no feedback pass),
 * RRF fusion, and near-duplicate geometry. The edit procedure and statistics repeat those of
 * bench/embedders.ts (same seed, same passages; they are not exported there) so numbers compare.
 */
import Database from 'better-sqlite3';
import { rrf } from '../../src/retrieve/fuse.js';
import { queryTerms } from '../../src/retrieve/query-terms.js';
import { compileFtsQuery } from '../../src/store/sqlite/fts-query.js';
import { Prng } from '../../src/quality/prng.js';
import { makeEdits, quantile, type Edits } from '../near-dup-edits.js';
export { makeEdits, quantile, type Edits };

export type Embed = (text: string) => Float32Array;

/** A corpus document: `id` is what judgements name. */
export interface Doc {
  id: string;
  title: string;
  text: string;
}

/** Rows per leg before fusion: quiver's `DEFAULT_LEG_FETCH(100)`. */
export const LEG_DEPTH = 300;

/** Texts embedded per document: title and body on separate lines. */
export const docText = (d: Doc): string => `${d.title}\n${d.text}`;

/** Embeds every text into one row-major matrix (n × dims). */
export function embedAll(embed: Embed, texts: readonly string[]): { m: Float32Array; dims: number } {
  const first = embed(texts[0] ?? '');
  const dims = first.length;
  const m = new Float32Array(texts.length * dims);
  texts.forEach((t, i) => m.set(i === 0 ? first : embed(t), i * dims));
  return { m, dims };
}

/**
 * Top `depth` documents by dot product (vectors are unit or zero) for each query, ties by index.
 * Documents with a zero vector, and every document for a zero query, are left out (quiver's vector
 * leg returns nothing for a vector without direction).
 */
export function vectorRankings(
  docs: readonly Doc[],
  docM: { m: Float32Array; dims: number },
  queries: readonly string[],
  embed: Embed,
  depth = LEG_DEPTH,
): string[][] {
  const { m, dims } = docM;
  const n = docs.length;
  const zero = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    let sq = 0;
    for (let c = 0; c < dims; c++) sq += m[i * dims + c]! ** 2;
    zero[i] = sq === 0 ? 1 : 0;
  }
  const scores = new Float64Array(n);
  return queries.map((q) => {
    const qv = embed(q);
    let qsq = 0;
    for (let c = 0; c < dims; c++) qsq += qv[c]! ** 2;
    if (qsq === 0) return [];
    for (let i = 0; i < n; i++) {
      let s = 0;
      const o = i * dims;
      for (let c = 0; c < dims; c++) s += qv[c]! * m[o + c]!;
      scores[i] = s;
    }
    const idx: number[] = [];
    for (let i = 0; i < n; i++) if (zero[i] === 0) idx.push(i);
    idx.sort((a, b) => scores[b]! - scores[a]! || a - b);
    return idx.slice(0, depth).map((i) => docs[i]!.id);
  });
}

/** BM25 rankings from an in-memory FTS5 table (porter unicode61 remove_diacritics 2; weights id 0, title 3, body 1). */
export function lexicalRankings(
  docs: readonly Doc[],
  queries: readonly string[],
  depth = LEG_DEPTH,
): string[][] {
  const db = new Database(':memory:');
  db.exec(
    `CREATE VIRTUAL TABLE d USING fts5(id UNINDEXED, title, body, tokenize='porter unicode61 remove_diacritics 2')`,
  );
  const ins = db.prepare('INSERT INTO d(id, title, body) VALUES (?, ?, ?)');
  db.transaction(() => {
    for (const d of docs) ins.run(d.id, d.title, d.text);
  })();
  const st = db.prepare(`SELECT id FROM d WHERE d MATCH ? ORDER BY bm25(d, 0, 3, 1), rowid LIMIT ?`);
  const out = queries.map((q) => {
    const match = compileFtsQuery(queryTerms(q, 'any'), 'any');
    return match === null ? [] : (st.all(match, depth) as { id: string }[]).map((r) => r.id);
  });
  db.close();
  return out;
}

/** RRF (k = 60) of the lexical leg at weight 1 and the vector leg at `wVec`, as quiver fuses. */
export function fuse(lexical: readonly string[], vector: readonly string[], wVec: number): string[] {
  return rrf([
    { name: 'lexical', weight: 1, hits: lexical.map((key) => ({ key })) },
    { name: 'vector', weight: wVec, hits: vector.map((key) => ({ key })) },
  ]).map((r) => r.key);
}

// ---- near-duplicate geometry (as bench/embedders.ts) ----

const PASSAGE = 512;

export const avg = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

export interface Geometry {
  drop: number[];
  swap: number[];
  number: number[];
  far: number[];
  /** p5 of all near-duplicate cosines − p95 of unrelated cosines. */
  margin: number;
}

export function geometry(embed: Embed, edits: Edits): Geometry {
  const cos = (pairs: [string, string][]): number[] =>
    pairs.map(([a, b]) => {
      const x = embed(a);
      const y = embed(b);
      let s = 0;
      for (let i = 0; i < x.length; i++) s += x[i]! * y[i]!;
      return s;
    });
  const drop = cos(edits.drop);
  const swap = cos(edits.swap);
  const number = cos(edits.number);
  const far = cos(edits.far);
  return {
    drop,
    swap,
    number,
    far,
    margin: quantile([...drop, ...swap, ...number], 0.05) - quantile(far, 0.95),
  };
}

/** CPU time of this process (user + system) in ms. */
export function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** ~`target` chunks of ≤ 512 characters cut from the bodies (as bench/embedders.ts). */
export function throughputChunks(docs: readonly Doc[], target = 20_000): string[] {
  const out: string[] = [];
  for (const offset of [0, PASSAGE / 2]) {
    for (const d of docs) {
      for (let i = offset; i + 64 < d.text.length; i += PASSAGE) {
        if (out.length >= target) return out;
        out.push(d.text.slice(i, i + PASSAGE));
      }
    }
  }
  return out;
}

/**
 * Mean of paired per-query differences with a 95% percentile-bootstrap interval (`resamples`
 * resamples of the queries with replacement, seeded, so a re-run gives the same interval).
 */
export function pairedBootstrap(
  diffs: readonly number[],
  resamples = 2000,
  seed = 1,
): { mean: number; lo: number; hi: number } {
  const rng = new Prng(seed);
  const n = diffs.length;
  const means: number[] = [];
  for (let r = 0; r < resamples; r++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += diffs[rng.int(n)]!;
    means.push(s / n);
  }
  return { mean: avg(diffs), lo: quantile(means, 0.025), hi: quantile(means, 0.975) };
}
