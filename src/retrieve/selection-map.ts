import type { Embedder } from '../embed/embedder.js';
import { principalAngles } from '../math/principal-angles.js';
import { cosine } from '../math/vector.js';
import type { Store } from '../store/store.js';
import type { ChunkRecord } from '../types.js';
import { DEFAULT_LEG_FETCH, hybridRetrieve, type HybridOptions } from './hybrid.js';
import { sectionVectors } from './section-vectors.js';
import { select } from './select/index.js';
import { selectionPoolSize, selectParams, type SelectionOptions, type SelectMethod } from './sections.js';
import { snippet } from './snippet.js';

/** The methods a selection map compares. */
export const MAP_METHODS: readonly SelectMethod[] = ['topk', 'mmr', 'dartboard'];

/** One candidate of the pool, placed for a plot around the query. */
export interface MapCandidate {
  sectionId: string;
  docId: string;
  source: string;
  title: string;
  breadcrumb: string;
  snippet: string;
  /** Fused score, and the 0-based position in the fused order. */
  score: number;
  retrievalRank: number;
  ranks: { lexical: number | null; vector: number | null };
  /** 1 − cos(query, section vector) ∈ [0, 2]; 1 for a section without vectors. */
  distance: number;
  /** Angle in (−π, π] from the pool's two principal directions (`math/principal-angles.ts`). */
  angle: number;
}

/** A query's candidate pool and what each selection method picks from it. */
export interface SelectionMap {
  k: number;
  candidates: MapCandidate[];
  /** Per method, the picked candidates' indexes into `candidates`, in pick order. */
  picks: Record<SelectMethod, number[]>;
}

/** 1 − cos(a, b) (`math/vector.ts` `cosine`): 1 when either is a zero vector (no direction). */
export function cosineDistance(a: Float32Array, b: Float32Array): number {
  return 1 - cosine(a, b);
}

/**
 * The pool that selection chooses `limit` sections from (`limit × oversample` fused sections, as
 * `searchSections` builds it), each candidate's distance to the query and angle, and the picks of
 * top-k, MMR and Dartboard with `selection`'s parameters. What the page's Dartboard plot draws.
 */
export async function selectionMap(
  store: Store,
  embedder: Embedder,
  text: string,
  limit: number,
  retrieval: Omit<HybridOptions, 'fetch' | 'needVector'>,
  selection: SelectionOptions,
): Promise<SelectionMap> {
  const k = Math.max(0, Math.floor(limit));
  const poolSize = selectionPoolSize(k, selection);
  const r = await hybridRetrieve(store, embedder, text, {
    ...retrieval,
    fetch: DEFAULT_LEG_FETCH(poolSize),
    needVector: true,
  });
  const pool = r.sections.slice(0, poolSize);
  const ids = pool.map((p) => p.sectionId);
  const chunks = new Map<string, ChunkRecord[]>(ids.map((id) => [id, []]));
  for (const c of await store.chunksOfSections(ids)) chunks.get(c.sectionId)?.push(c);
  const dims = embedder.dims;
  const vectorsOf = await sectionVectors(store, embedder, ids, chunks);
  const query = r.queryVector ?? new Float32Array(dims);
  const picks = {} as Record<SelectMethod, number[]>;
  for (const method of MAP_METHODS)
    picks[method] =
      method === 'topk' || pool.length <= 1
        ? pool.slice(0, k).map((_, i) => i)
        : select(
            method,
            { query, candidates: vectorsOf, relevance: pool.map((p) => p.score), k },
            selectParams(selection),
          ).map((p) => p.index);
  const sections = new Map((await store.getSections(ids)).map((s) => [s.id, s]));
  const docs = new Map((await store.getDocuments(pool.map((p) => p.docId))).map((d) => [d.id, d]));
  const angles = principalAngles(vectorsOf);
  const candidates = pool.map((p, i): MapCandidate => {
    const s = sections.get(p.sectionId);
    return {
      sectionId: p.sectionId,
      docId: p.docId,
      source: docs.get(p.docId)?.source ?? '',
      title: s?.title ?? '',
      breadcrumb: s?.breadcrumb ?? '',
      snippet: snippet(s === undefined ? '' : s.text.trim() === '' ? s.title : s.text),
      score: p.score,
      retrievalRank: i,
      ranks: p.ranks,
      distance: r.queryVector === null ? 1 : cosineDistance(query, vectorsOf[i]!),
      angle: angles[i] ?? 0,
    };
  });
  return { k, candidates, picks };
}
