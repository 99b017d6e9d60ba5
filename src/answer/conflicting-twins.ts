import { nearCopy, shingles } from '../retrieve/near-copies.js';
import { type PassedOver, type SectionHit, whereFound } from '../retrieve/sections.js';
import type { DocumentRecord, SectionRecord } from '../types.js';
import { findConflicts } from './conflicts.js';

/**
 * Conflicting twins: a passage and a copy of it that states a different value (a number, date,
 * name or negation) score almost the same, and a selector for coverage keeps one of them, hiding
 * that the sources disagree (and letting ingest order decide which version is quoted). A
 * passed-over candidate among the best `2 × |chosen|` of the pool that is a near-copy of a chosen
 * section (word 3-grams) and states a conflicting sentence (`conflicts.ts`) joins the context right
 * after it; at most `MAX_CONFLICT_TWINS`.
 */
export const MAX_CONFLICT_TWINS = 2;

type Numbered = SectionHit & { n: number; text: string };

/** The passed-over candidates worth looking at: the best 2 × |chosen| (none when nothing was chosen). */
export function twinCandidates(chosen: readonly Numbered[], passedOver: readonly PassedOver[]): PassedOver[] {
  if (chosen.length === 0) return [];
  return passedOver.slice(0, 2 * chosen.length);
}

/**
 * `chosen` with each conflicting twin inserted after the section it copies, given the candidates'
 * section and document records (a candidate without both, or with empty text, is skipped). The
 * inserted hits keep their retrieval rank and leg ranks; `n` is 0 (the caller renumbers).
 */
export function withConflictingTwins<T extends Numbered>(
  chosen: readonly T[],
  candidates: readonly PassedOver[],
  sections: readonly SectionRecord[],
  documents: readonly DocumentRecord[],
): (T | Numbered)[] {
  const records = new Map(sections.map((s) => [s.id, s]));
  const docs = new Map(documents.map((d) => [d.id, d]));
  const out: (T | Numbered)[] = [...chosen];
  let added = 0;
  for (const c of candidates) {
    if (added >= MAX_CONFLICT_TWINS) break;
    const s = records.get(c.sectionId);
    const d = docs.get(c.docId);
    if (s === undefined || d === undefined || s.text.trim() === '') continue;
    const twin = out.findIndex(
      (h) =>
        nearCopy(shingles(h.text), shingles(s.text)) &&
        findConflicts([
          { n: 1, sectionId: h.sectionId, text: h.text },
          { n: 2, sectionId: s.id, text: s.text },
        ]).length > 0,
    );
    if (twin < 0) continue;
    out.splice(twin + 1, 0, {
      ...whereFound(s, d),
      score: c.score,
      retrievalRank: c.retrievalRank,
      selectionRank: out.length,
      stepScore: null,
      ranks: c.ranks,
      snippets: [],
      chunkIds: c.chunkIds,
      text: s.text,
      n: 0,
    });
    added++;
  }
  return out;
}
