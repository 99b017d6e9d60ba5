/**
 * An answer's text cut into plain runs and citation markers, so each `[n]` can be a button. Pure.
 * Markers follow the server's reading (`src/answer/citations.ts`): `[3]`, `[1, 2]`, `[1-3]`; a
 * marker followed by `(` is a Markdown link, not a citation.
 */
import { wordsOf } from './highlight.js';

export type AnswerPart =
  | { kind: 'text'; text: string }
  | {
      kind: 'cite';
      /** The numbers the marker cites, in order. */
      numbers: number[];
      /** The claim the marker ends: the text since the previous marker or sentence end. */
      claim: string;
    };

/** The longest range `[a-b]` expanded into every number (longer ones cite their endpoints). */
export const MAX_CITATION_RANGE = 50;

const MARKER = /\[\s*(\d+(?:\s*[,–-]\s*\d+)*)\s*\](?!\()/gu;

/** The numbers of one marker's inside (`1, 2` or `1-3`). */
export function markerNumbers(inside: string): number[] {
  const out: number[] = [];
  for (const part of inside.split(',')) {
    const range = /^\s*(\d+)\s*[–-]\s*(\d+)\s*$/u.exec(part);
    const a = Number(range?.[1] ?? part.trim());
    const b = Number(range?.[2] ?? a);
    const span = a <= b && b - a <= MAX_CITATION_RANGE ? b - a + 1 : 0;
    const nums = span > 0 ? Array.from({ length: span }, (_, i) => a + i) : [a, b];
    for (const n of nums) if (Number.isSafeInteger(n) && !out.includes(n)) out.push(n);
  }
  return out;
}

/**
 * The answer as parts. A marker's `claim` is the text before it back to the previous marker or
 * sentence end (what the claim says), so the panel can find that sentence in the cited section.
 *
 * @example answerParts('Boil it [1].')
 * // [{kind: 'text', text: 'Boil it '}, {kind: 'cite', numbers: [1], claim: 'Boil it'}, {kind: 'text', text: '.'}]
 */
export function answerParts(answer: string): AnswerPart[] {
  const parts: AnswerPart[] = [];
  let last = 0;
  let claimStart = 0;
  for (const m of answer.matchAll(MARKER)) {
    const at = m.index;
    if (at > last) parts.push({ kind: 'text', text: answer.slice(last, at) });
    const before = answer.slice(claimStart, at);
    // Back to the end of the previous sentence when the run holds several.
    const cut = Math.max(before.search(/[.!?]\s+[^.!?]*$/u), -1);
    const claim = (cut >= 0 ? before.slice(cut + 1) : before).trim();
    parts.push({
      kind: 'cite',
      numbers: markerNumbers(m[1]!),
      claim: claim === '' ? lastClaim(parts) : claim,
    });
    last = at + m[0].length;
    claimStart = last;
  }
  if (last < answer.length) parts.push({ kind: 'text', text: answer.slice(last) });
  return parts;
}

/** The claim of the marker just before (for `[1][2]`, both end the same claim). */
function lastClaim(parts: readonly AnswerPart[]): string {
  for (let i = parts.length - 1; i >= 0; i--) {
    const p = parts[i]!;
    if (p.kind === 'cite') return p.claim;
    if (p.text.trim() !== '') return '';
  }
  return '';
}

/**
 * Of the claims citing `n`, the one closest to a marker's claim text (largest share of shared
 * words); the marker's own text when none cites `n`.
 */
export function claimFor(
  markerClaim: string,
  n: number,
  claims: readonly { text: string; citations: number[] }[],
): string {
  const want = new Set(wordsOf(markerClaim));
  let best = markerClaim;
  let bestScore = -1;
  for (const c of claims) {
    if (!c.citations.includes(n)) continue;
    const words = new Set(wordsOf(c.text));
    let shared = 0;
    for (const w of want) if (words.has(w)) shared++;
    const score = shared / Math.max(1, Math.max(want.size, words.size));
    if (score > bestScore) {
      best = c.text;
      bestScore = score;
    }
  }
  return best;
}
