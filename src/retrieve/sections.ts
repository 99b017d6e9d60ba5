import type { Embedder } from '../embed/embedder.js';
import type { Store } from '../store/store.js';
import type { DocumentRecord, SectionRecord } from '../types.js';
import { contentTerms } from '../text/tokens.js';
import type { ChunkRecord } from '../types.js';
import { DEFAULT_LEG_FETCH, hybridRetrieve, type HybridOptions } from './hybrid.js';
import { select } from './select/index.js';
import { foldNearCopies, type Shingles, shingles } from './near-copies.js';
import { sectionVectors } from './section-vectors.js';
import { snippet } from './snippet.js';

export { SNIPPET_CHARS } from './snippet.js';

export type SelectMethod = 'topk' | 'mmr' | 'dartboard';

/** Selection settings (see retrieval.md). */
export interface SelectionOptions {
  method: SelectMethod;
  /** Pool = k × oversample fused sections. */
  oversample: number;
  sigma: number;
  diversityWeight: number;
  relevanceWeight: number;
  lambda: number;
  /** Dartboard relevance from fused scores (softmax at `temperature`) or from query cosine (the seed). */
  relevance: 'scores' | 'cosine';
  temperature: number;
  /** Top-k only: fold near-copies of a higher hit under it (retrieve/near-copies.ts). */
  foldNearCopies?: boolean;
}

/** The pool MMR or Dartboard chooses `k` sections from: ⌈k × oversample⌉ (oversample below 1 reads 1). */
export function selectionPoolSize(k: number, selection: Pick<SelectionOptions, 'oversample'>): number {
  return Math.ceil(k * Math.max(1, selection.oversample));
}

/** The selector's parameters out of the selection settings. */
export function selectParams(selection: SelectionOptions) {
  const { sigma, diversityWeight, relevanceWeight, lambda, relevance, temperature } = selection;
  return { sigma, diversityWeight, relevanceWeight, lambda, relevance, temperature };
}

/** A hit folded under a higher one as its near-copy. */
export interface NearCopyRef {
  sectionId: string;
  docId: string;
  source: string;
  title: string;
  breadcrumb: string;
  score: number;
  /** 0-based position in the fused order. */
  retrievalRank: number;
}

export const MAX_SNIPPETS = 3;

/** One section found for a query, with why it is here. */
export interface SectionHit {
  sectionId: string;
  docId: string;
  source: string;
  docTitle: string;
  kind: string;
  title: string;
  breadcrumb: string;
  pages: [number, number] | null;
  /** Fused score of the section's best chunk. */
  score: number;
  /** 0-based position in the fused order, before selection. */
  retrievalRank: number;
  /** 0-based position after selection, and the selector's step score (null for the first pick or top-k). */
  selectionRank: number;
  stepScore: number | null;
  /** Leg ranks of the best chunk. */
  ranks: { lexical: number | null; vector: number | null };
  /**
   * Up to `MAX_SNIPPETS` chunk texts that best show the match, each cut to `SNIPPET_CHARS`; for a
   * section with no text of its own, one: the start of its subtree's first text, else its title
   * (`subtreeText`). Never holds `''`; empty only for an untitled, empty section with an empty subtree.
   */
  snippets: string[];
  chunkIds: number[];
  /** The section's own text, when asked for. */
  text?: string;
  /** Lower hits that are near-copies of this one, folded under it (top-k with folding on). */
  nearCopies?: NearCopyRef[];
}

/** A pool candidate selection did not choose: what a caller needs to look at it again. */
export interface PassedOver {
  sectionId: string;
  docId: string;
  score: number;
  /** 0-based position in the fused order. */
  retrievalRank: number;
  ranks: { lexical: number | null; vector: number | null };
  chunkIds: number[];
}

export interface SectionSearchResult {
  hits: SectionHit[];
  /** Size of the candidate pool selection chose from. */
  pool: number;
  /**
   * The pool candidates selection passed over, best first (MMR and Dartboard; empty for top-k):
   * `ask` looks among them for a near-copy that states a different value (`answer/conflicts.ts`).
   */
  passedOver: PassedOver[];
  timings: Record<string, number>;
}

/**
 * What a section with no text of its own (a heading followed at once by a sub-heading) shows as its
 * snippet: the own text of the first section in its subtree (pre-order: by `seq`, following
 * `parentId`) that has any, else its title, else `''`. `sections` are its document's sections, in
 * any order; a section not among them gives `''`.
 *
 * @example
 * // # Title → ## Sub ("Body."):
 * subtreeText('d#0', [root, sub]); // 'Body.'
 */
export function subtreeText(sectionId: string, sections: readonly SectionRecord[]): string {
  const ordered = [...sections].sort((a, b) => a.seq - b.seq);
  const self = ordered.find((s) => s.id === sectionId);
  if (self === undefined) return '';
  const inTree = new Set([self.id]);
  for (const s of ordered) {
    if (s.id !== self.id && (s.parentId === null || !inTree.has(s.parentId))) continue;
    inTree.add(s.id);
    if (s.text.trim() !== '') return s.text;
  }
  return self.title.trim();
}

/**
 * Retrieve, group by section, over-fetch a pool of `limit × oversample` sections, then select
 * `limit` of them (top-k, MMR or Dartboard). Section vectors are the normalised mean of their chunks'.
 */
export async function searchSections(
  store: Store,
  embedder: Embedder,
  text: string,
  limit: number,
  retrieval: Omit<HybridOptions, 'fetch' | 'needVector'>,
  selection: SelectionOptions,
  options: { withText?: boolean } = {},
): Promise<SectionSearchResult> {
  const k = Math.max(0, Math.floor(limit));
  const selecting = selection.method !== 'topk';
  const folding = !selecting && selection.foldNearCopies === true;
  const poolSize = selecting
    ? selectionPoolSize(k, selection)
    : folding
      ? k + Math.min(k, NEAR_COPY_SPARE)
      : k;
  const r = await hybridRetrieve(store, embedder, text, {
    ...retrieval,
    fetch: DEFAULT_LEG_FETCH(poolSize),
    needVector: selecting,
  });
  const pool = r.sections.slice(0, poolSize);
  const t0 = performance.now();

  const chunksBySection = new Map<string, ChunkRecord[]>();
  const loadChunks = async (ids: string[]): Promise<void> => {
    const missing = ids.filter((id) => !chunksBySection.has(id));
    for (const id of missing) chunksBySection.set(id, []);
    for (const c of await store.chunksOfSections(missing)) chunksBySection.get(c.sectionId)!.push(c);
  };

  let order: { index: number; stepScore: number | null }[];
  if (!selecting || pool.length <= 1 || r.queryVector === null) {
    order = pool.slice(0, folding ? poolSize : k).map((_, index) => ({ index, stepScore: null }));
  } else {
    await loadChunks(pool.map((p) => p.sectionId));
    const candidates = await sectionVectors(
      store,
      embedder,
      pool.map((p) => p.sectionId),
      chunksBySection,
    );
    order = select(
      selection.method,
      { query: r.queryVector, candidates, relevance: pool.map((p) => p.score), k },
      selectParams(selection),
    );
  }
  const t1 = performance.now();

  let picked = order.map((p) => ({
    fused: pool[p.index]!,
    retrievalRank: p.index,
    stepScore: p.stepScore,
  }));
  const sections = new Map<string, SectionRecord>();
  const docs = new Map<string, DocumentRecord>();
  const loadRecords = async (part: typeof picked): Promise<void> => {
    for (const s of await store.getSections(part.map((p) => p.fused.sectionId))) sections.set(s.id, s);
    for (const d of await store.getDocuments(part.map((p) => p.fused.docId))) docs.set(d.id, d);
  };
  const copies = new Map<string, NearCopyRef[]>();
  if (!folding) await loadRecords(picked);
  else {
    // Read the first `k` candidates; only when some fold away, read on (up to the spare ones)
    // until `k` distinct passages are kept: a list without copies costs no extra reads.
    const all = picked;
    let read = Math.min(k, all.length);
    await loadRecords(all.slice(0, read));
    let kept = foldNearCopies(
      all.slice(0, read).map((p) => sectionShingles(sections.get(p.fused.sectionId))),
      k,
    );
    while (kept.length < k && read < all.length) {
      const next = Math.min(all.length, read + (k - kept.length));
      await loadRecords(all.slice(read, next));
      read = next;
      kept = foldNearCopies(
        all.slice(0, read).map((p) => sectionShingles(sections.get(p.fused.sectionId))),
        k,
      );
    }
    picked = kept.map((h) => all[h.index]!);
    for (const h of kept) {
      const refs = h.copies.flatMap((i) => {
        const p = all[i]!;
        const s = sections.get(p.fused.sectionId);
        const d = docs.get(p.fused.docId);
        return s === undefined || d === undefined
          ? []
          : [
              {
                sectionId: s.id,
                docId: d.id,
                source: d.source,
                title: s.title,
                breadcrumb: s.breadcrumb,
                score: p.fused.score,
                retrievalRank: p.retrievalRank,
              },
            ];
      });
      if (refs.length > 0) copies.set(all[h.index]!.fused.sectionId, refs);
    }
  }
  await loadChunks(picked.map((p) => p.fused.sectionId));
  const terms = new Set(contentTerms(text));
  // Sections with no text of their own snippet their subtree's: load those documents' trees.
  const trees = new Map<string, SectionRecord[]>();
  for (const s of sections.values())
    if (s.text.trim() === '' && !trees.has(s.docId)) trees.set(s.docId, await store.listSections(s.docId));
  const hits: SectionHit[] = [];
  picked.forEach((p, selectionRank) => {
    const s: SectionRecord | undefined = sections.get(p.fused.sectionId);
    const d = docs.get(p.fused.docId) ?? null;
    if (s === undefined || d === null) return;
    const best = bestChunks(chunksBySection.get(s.id) ?? [], terms, p.fused.chunkIds);
    let snippets = best
      .slice(0, MAX_SNIPPETS)
      .map(chunkSnippet)
      .filter((t) => t !== '');
    if (snippets.length === 0) snippets = [snippet(subtreeText(s.id, trees.get(s.docId) ?? [s]))];
    const hit: SectionHit = {
      ...whereFound(s, d),
      score: p.fused.score,
      retrievalRank: p.retrievalRank,
      selectionRank,
      stepScore: p.stepScore,
      ranks: p.fused.ranks,
      snippets: snippets.filter((t) => t !== ''),
      chunkIds: best.map((c) => c.id),
    };
    if (options.withText === true) hit.text = s.text;
    if (folding) hit.nearCopies = copies.get(s.id) ?? [];
    hits.push(hit);
  });
  const chosen = new Set(hits.map((h) => h.sectionId));
  const passedOver = selecting
    ? pool.flatMap((p, i) =>
        chosen.has(p.sectionId)
          ? []
          : [
              {
                sectionId: p.sectionId,
                docId: p.docId,
                score: p.score,
                retrievalRank: i,
                ranks: p.ranks,
                chunkIds: p.chunkIds,
              },
            ],
      )
    : [];
  return {
    hits,
    pool: pool.length,
    passedOver,
    timings: { ...r.timings, selectMs: t1 - t0, hydrateMs: performance.now() - t1 },
  };
}

/** Where a hit was found: its section and document, as a hit names them. */
export function whereFound(
  s: SectionRecord,
  d: DocumentRecord,
): Pick<
  SectionHit,
  'sectionId' | 'docId' | 'source' | 'docTitle' | 'kind' | 'title' | 'breadcrumb' | 'pages'
> {
  return {
    sectionId: s.id,
    docId: d.id,
    source: d.source,
    docTitle: d.title,
    kind: d.kind,
    title: s.title,
    breadcrumb: s.breadcrumb,
    pages: s.pageStart === null ? null : [s.pageStart, s.pageEnd ?? s.pageStart],
  };
}

/**
 * Extra candidates a folded top-k list reads past `limit` (at most `limit` more), so that folding
 * copies away still leaves `limit` distinct passages when the pool has them.
 */
export const NEAR_COPY_SPARE = 10;

/**
 * A section's 3-gram set, memoised by section id while its text is the same (a section id
 * survives re-ingest of its document with new text); null for a section without text of its own
 * (two headings named alike are not copies).
 */
const SHINGLES = new Map<string, { text: string; set: Shingles }>();
const SHINGLES_MAX = 20_000;

function sectionShingles(s: SectionRecord | undefined): Shingles | null {
  if (s === undefined || s.text.trim() === '') return null;
  const text = s.text;
  const m = SHINGLES.get(s.id);
  if (m !== undefined && m.text === text) return m.set;
  const set = shingles(text);
  if (SHINGLES.size >= SHINGLES_MAX) SHINGLES.clear();
  SHINGLES.set(s.id, { text, set });
  return set;
}

/**
 * What hydration derives from a chunk's text alone — its distinct content terms (for choosing
 * snippets) and its snippet — memoised by chunk id while its text is the same: stemming every
 * word of every returned chunk, then cutting its snippet, was the largest cost of hydrating 100
 * hits. The text is compared because ids are unique within one vault only (a process may open
 * several). Bounded: cleared when it reaches `CHUNK_MEMO_MAX` chunks.
 */
interface ChunkMemo {
  text: string;
  terms?: ReadonlySet<string>;
  snippet?: string;
}
const CHUNK_MEMO = new Map<number, ChunkMemo>();
const CHUNK_MEMO_MAX = 20_000;

function chunkMemo(c: ChunkRecord): ChunkMemo {
  let m = CHUNK_MEMO.get(c.id);
  if (m === undefined || m.text !== c.text) {
    if (CHUNK_MEMO.size >= CHUNK_MEMO_MAX) CHUNK_MEMO.clear();
    CHUNK_MEMO.set(c.id, (m = { text: c.text }));
  }
  return m;
}

function chunkTerms(c: ChunkRecord): ReadonlySet<string> {
  const m = chunkMemo(c);
  return (m.terms ??= new Set(contentTerms(c.text)));
}

function chunkSnippet(c: ChunkRecord): string {
  const m = chunkMemo(c);
  return (m.snippet ??= snippet(c.text));
}

/**
 * A section's chunks as term → bit mask (bit i set: chunk i holds the term), for sections of at
 * most `MASK_CHUNKS` chunks: one lookup per query term then counts every chunk's overlap, where
 * testing each chunk's term set cost a lookup per chunk and term. Memoised by section id while its
 * chunks are the same (ids and texts); bounded like the chunk memo.
 */
interface SectionMasks {
  chunks: readonly ChunkRecord[];
  masks: ReadonlyMap<string, number>;
}
const MASK_CHUNKS = 31;
const SECTION_MASKS = new Map<string, SectionMasks>();
const SECTION_MASKS_MAX = 10_000;

function sameChunks(a: readonly ChunkRecord[], b: readonly ChunkRecord[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i]!.id !== b[i]!.id || a[i]!.text !== b[i]!.text) return false;
  return true;
}

function sectionMasks(chunks: readonly ChunkRecord[]): ReadonlyMap<string, number> {
  const key = chunks[0]!.sectionId;
  const m = SECTION_MASKS.get(key);
  if (m !== undefined && sameChunks(m.chunks, chunks)) return m.masks;
  const masks = new Map<string, number>();
  chunks.forEach((c, i) => {
    for (const t of chunkTerms(c)) masks.set(t, (masks.get(t) ?? 0) | (1 << i));
  });
  if (SECTION_MASKS.size >= SECTION_MASKS_MAX) SECTION_MASKS.clear();
  SECTION_MASKS.set(key, { chunks: [...chunks], masks });
  return masks;
}

/** How many of `terms` each chunk holds: `counts[i]` for `chunks[i]`. */
function overlapCounts(chunks: readonly ChunkRecord[], terms: ReadonlySet<string>): number[] {
  const counts = new Array<number>(chunks.length).fill(0);
  if (chunks.length <= MASK_CHUNKS && chunks.every((c) => c.sectionId === chunks[0]!.sectionId)) {
    const masks = sectionMasks(chunks);
    for (const t of terms) {
      let mask = masks.get(t) ?? 0;
      while (mask !== 0) {
        const i = 31 - Math.clz32(mask & -mask);
        counts[i]! += 1;
        mask &= mask - 1;
      }
    }
  } else
    chunks.forEach((c, i) => {
      const have = chunkTerms(c);
      let n = 0;
      for (const t of terms) if (have.has(t)) n++;
      counts[i] = n;
    });
  return counts;
}

/**
 * A section's chunks ordered by how well they show the match: query-term overlap (distinct
 * content terms) first, then the vector leg's order, then position. Chunks with no overlap that
 * the vector leg did not return come last.
 */
export function bestChunks(
  chunks: readonly ChunkRecord[],
  terms: ReadonlySet<string>,
  vectorOrder: readonly number[],
): ChunkRecord[] {
  if (chunks.length <= 1) return [...chunks];
  const overlap = overlapCounts(chunks, terms);
  // The vector leg returns a few chunks per section: a linear search beats building a map.
  const ranked = chunks.map((c, i) => {
    const v = vectorOrder.indexOf(c.id);
    return { c, overlap: overlap[i]!, vrank: v < 0 ? Infinity : v };
  });
  ranked.sort((a, b) => b.overlap - a.overlap || a.vrank - b.vrank || a.c.ord - b.c.ord);
  return ranked.map((r) => r.c);
}
