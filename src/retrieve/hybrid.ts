import type { Embedder } from '../embed/embedder.js';
import type { FieldWeights, Store } from '../store/store.js';
import type { QueryMode, SearchFilter } from '../types.js';
import { DEFAULT_LEG_FETCH, rrf } from './fuse.js';
import { type FeedbackOptions, lexicalLeg } from './lexical-leg.js';
import { queryTerms } from './query-terms.js';
import { admitVectorHits, DEFAULT_MIN_SIMILARITY } from './vector-floor.js';

/** Which legs run. */
export type Legs = 'lexical' | 'vector' | 'both';

export interface HybridOptions {
  /** Rows each leg fetches (sections for the lexical leg, chunks for the vector leg). */
  fetch: number;
  mode: QueryMode;
  legs: Legs;
  lexicalWeight: number;
  vectorWeight: number;
  rrfK: number;
  fieldWeights: FieldWeights;
  filter?: SearchFilter;
  /** Pseudo-relevance feedback in the lexical leg (off when absent). */
  feedback?: FeedbackOptions;
  /** Lowest cosine of a vector-leg hit (`admitVectorHits`). Defaults to `DEFAULT_MIN_SIMILARITY` (0). */
  minSimilarity?: number;
  /** Embed the query even when the vector leg does not run (selection needs the vector). */
  needVector?: boolean;
  signal?: AbortSignal;
}

/** A fused section: its RRF score, its 0-based rank in each leg (null when absent) and the chunks the vector leg matched. */
export interface FusedSection {
  sectionId: string;
  docId: string;
  score: number;
  ranks: { lexical: number | null; vector: number | null };
  /** Chunk ids the vector leg returned for this section, best first. */
  chunkIds: number[];
}

export interface HybridResult {
  sections: FusedSection[];
  queryVector: Float32Array | null;
  timings: { lexicalMs: number; embedMs: number; vectorMs: number; fuseMs: number };
}

/**
 * The two retrieval legs and their fusion, at the section level: the lexical leg ranks sections by
 * BM25 over escaped terms; the vector leg ranks chunks by cosine and a section takes its best
 * chunk's rank; weighted reciprocal rank fusion combines them (`Σ w / (k + rank)`, 0-based).
 * A leg with weight 0 still runs when `legs` names it, so its ranks are reported, but adds nothing
 * to the score, and sections only it found are dropped.
 *
 * Vector-leg chunks pass `admitVectorHits` first: cosine > 0 and ≥ `minSimilarity`, and, for an
 * embedder whose similarity is `'surface'` (the built-in one), only when some word of the query
 * occurs in the documents searched. That is the lexical leg's own answer when it ran in `any`
 * mode; otherwise one `any`-mode lexical lookup of a single row (with the same filter) decides.
 */
export async function hybridRetrieve(
  store: Store,
  embedder: Embedder,
  text: string,
  o: HybridOptions,
): Promise<HybridResult> {
  const t0 = performance.now();
  const useLexical = o.legs !== 'vector';
  const useVector = o.legs !== 'lexical';
  const lexical = useLexical
    ? await lexicalLeg(store, text, {
        fetch: o.fetch,
        mode: o.mode,
        fieldWeights: o.fieldWeights,
        ...(o.filter === undefined ? {} : { filter: o.filter }),
        ...(o.feedback === undefined ? {} : { feedback: o.feedback }),
      })
    : [];
  const t1 = performance.now();
  let queryVector: Float32Array | null = null;
  if (useVector || o.needVector === true) {
    const [v] = await embedder.embed([text], {
      purpose: 'query',
      ...(o.signal === undefined ? {} : { signal: o.signal }),
    });
    queryVector = v ?? null;
  }
  const t2 = performance.now();
  const nearest =
    useVector && queryVector !== null
      ? await store.vectorSearch({
          vector: queryVector,
          fingerprint: embedder.id,
          limit: o.fetch,
          ...(o.filter === undefined ? {} : { filter: o.filter }),
        })
      : [];
  const surface = embedder.similarity === 'surface';
  let lexicalMatch = true; // asked only for a surface embedder with hits to judge
  if (surface && nearest.length > 0)
    lexicalMatch = useLexical && o.mode === 'any' ? lexical.length > 0 : await anyWordMatches(store, text, o);
  const vectorChunks = admitVectorHits(nearest, {
    minSimilarity: o.minSimilarity ?? DEFAULT_MIN_SIMILARITY,
    surface,
    lexicalMatch,
  });
  const t3 = performance.now();
  const info = new Map<string, { docId: string; chunkIds: number[] }>();
  for (const h of lexical) info.set(h.sectionId, { docId: h.docId, chunkIds: [] });
  const vectorSections: string[] = [];
  for (const c of vectorChunks) {
    let e = info.get(c.sectionId);
    if (e === undefined) info.set(c.sectionId, (e = { docId: c.docId, chunkIds: [] }));
    if (e.chunkIds.length === 0) vectorSections.push(c.sectionId);
    e.chunkIds.push(c.chunkId);
  }
  const legs: { name: string; weight: number; hits: { key: string }[] }[] = [];
  if (useLexical)
    legs.push({ name: 'lexical', weight: o.lexicalWeight, hits: lexical.map((h) => ({ key: h.sectionId })) });
  if (useVector)
    legs.push({ name: 'vector', weight: o.vectorWeight, hits: vectorSections.map((key) => ({ key })) });
  const allZero = legs.every((l) => l.weight === 0);
  const sections: FusedSection[] = rrf(legs, o.rrfK)
    .filter((f) => f.score > 0 || allZero)
    .map((f) => {
      const e = info.get(f.key)!;
      return {
        sectionId: f.key,
        docId: e.docId,
        score: f.score,
        ranks: { lexical: f.ranks.lexical ?? null, vector: f.ranks.vector ?? null },
        chunkIds: e.chunkIds,
      };
    });
  const t4 = performance.now();
  return {
    sections,
    queryVector,
    timings: { lexicalMs: t1 - t0, embedMs: t2 - t1, vectorMs: t3 - t2, fuseMs: t4 - t3 },
  };
}

/** Does any word of `text` occur in a document `o.filter` allows (one `any`-mode BM25 row)? */
async function anyWordMatches(store: Store, text: string, o: HybridOptions): Promise<boolean> {
  const hits = await store.lexicalSearch({
    terms: queryTerms(text, 'any'),
    mode: 'any',
    limit: 1,
    weights: o.fieldWeights,
    ...(o.filter === undefined ? {} : { filter: o.filter }),
  });
  return hits.length > 0;
}

export { DEFAULT_LEG_FETCH };
