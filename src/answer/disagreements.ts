/**
 * Disagreements worth telling a reader about: conflicting statements (`conflicts.ts`) between two
 * context sections that are copies of one passage (near-copies by their word 3-grams, as a ranked
 * list folds them) or that share a title, about the question (a side holds one of its content
 * terms). Sentences alone cannot tell an altered copy from a sibling page written from the same
 * template ("the 44th season" beside "the 45th season"); requiring the sections to be one passage
 * told twice, or one subject, can. Pure.
 */
import { nearCopy, shingles } from '../retrieve/near-copies.js';
import { contentTerms } from '../text/tokens.js';
import { type Conflict, findConflicts } from './conflicts.js';
import type { ContextSection } from './context-section.js';

/** The disagreements among `sections` that bear on `question`, in `findConflicts` order. */
export function disagreements(question: string, sections: readonly ContextSection[]): Conflict[] {
  if (sections.length < 2) return [];
  const asked = new Set(contentTerms(question));
  const byN = new Map(sections.map((s) => [s.n, s] as const));
  const sets = new Map<number, ReturnType<typeof shingles>>();
  const setOf = (s: ContextSection): ReturnType<typeof shingles> => {
    let v = sets.get(s.n);
    if (v === undefined) sets.set(s.n, (v = shingles(s.text)));
    return v;
  };
  const samePassage = (a: ContextSection, b: ContextSection): boolean =>
    (a.title.trim() !== '' && a.title.trim() === b.title.trim()) || nearCopy(setOf(a), setOf(b));
  return findConflicts(sections).filter((c) => {
    const [x, y] = c.sides;
    const a = byN.get(x.n);
    const b = byN.get(y.n);
    if (a === undefined || b === undefined || !samePassage(a, b)) return false;
    return c.sides.some((side) => contentTerms(side.sentence).some((t) => asked.has(t)));
  });
}

/**
 * The note an LLM generator reads after the sections: each disagreement with its two sides, and
 * the instruction to say that the sources disagree and cite both. '' when there is none.
 */
export function disagreementNote(conflicts: readonly Conflict[]): string {
  if (conflicts.length === 0) return '';
  const lines = conflicts.map(
    (c) => `- [${c.sides[0].n}] says "${c.sides[0].span}" where [${c.sides[1].n}] says "${c.sides[1].span}".`,
  );
  return [
    'The sources disagree:',
    ...lines,
    'Say that the sources disagree, give each version with its citation, and do not pick one unless a section explains which is right.',
  ].join('\n');
}
