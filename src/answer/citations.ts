/**
 * Citations in an answer: `[n]` markers, the claims (sentences) they attach to, and reasoning blocks
 * (`<think>…</think>`) that must not count. Pure.
 */
import { QuiverError } from '../errors.js';
import { splitSentences } from './sentences.js';

/** A range `[a-b]` wider than this reads as its two endpoints, not an expansion. */
export const MAX_CITATION_RANGE = 50;

/**
 * A bracket holding numbers separated by commas or a dash: `[3]`, `[1, 2]`, `[1-3]`. Not followed by
 * `(`, so a markdown link `[1](url)` is not a citation (and `[text](url)` is not numeric anyway).
 */
const MARKER = /\[\s*(\d+(?:\s*[,–-]\s*\d+)*)\s*\](?!\()/gu;

/** A list marker opening a line (`- `, `* `, `• `, `1. `, `2) `), dropped from claim text. */
const LIST_MARKER = /^(?:[-*•–+]|\d{1,3}[.)])\s+/u;

/**
 * A verdict opening a claim (`Yes: Verdi was an Italian opera composer.`, `The sources disagree:
 * …`): the conclusion drawn from the cited sentences, not part of what a sentence states, so it is
 * not in the claim.
 */
const VERDICT = /^(?:yes|no|the sources disagree)[:,.]\s+(?=\S)/iu;

/** One sentence of an answer with its citations. */
export interface Claim {
  /** The sentence with its citation markers and leading list marker removed, whitespace normalised. */
  text: string;
  /** The numbers cited in the sentence, de-duplicated in order (valid or not). */
  citations: number[];
}

export interface ExtractedClaims {
  claims: Claim[];
  /** Valid citations (1 ≤ n ≤ nSections), de-duplicated, in order of first appearance. */
  cited: number[];
  /** Out-of-range citations, de-duplicated, in order of first appearance: reported, never dropped silently. */
  invalid: number[];
}

function pushUnique(out: number[], seen: Set<number>, n: number): void {
  if (!Number.isSafeInteger(n) || seen.has(n)) return;
  seen.add(n);
  out.push(n);
}

/**
 * The numbers cited in `text`, de-duplicated in order of first appearance.
 *
 * `[3]` → 3; `[1][2]`, `[1, 2]`, `[1,2,3]` → each number; `[1-3]` (or `–`) → 1, 2, 3 when
 * `a ≤ b` and `b − a ≤ MAX_CITATION_RANGE`, otherwise the endpoints; `[01]` → 1. Ignored: `[a]`,
 * `[]`, `[^1]`, markdown links `[text](url)` and `[1](url)`, numbers beyond `Number.MAX_SAFE_INTEGER`.
 * @example parseCitations('Boil for ten minutes [2][1, 2].') // [2, 1]
 */
export function parseCitations(text: string): number[] {
  const out: number[] = [];
  const seen = new Set<number>();
  for (const m of text.matchAll(MARKER)) {
    for (const part of m[1]!.split(',')) {
      const range = /^\s*(\d+)\s*[–-]\s*(\d+)\s*$/u.exec(part);
      if (range === null) {
        pushUnique(out, seen, Number(part.trim()));
        continue;
      }
      const a = Number(range[1]);
      const b = Number(range[2]);
      if (a <= b && b - a <= MAX_CITATION_RANGE) for (let n = a; n <= b; n++) pushUnique(out, seen, n);
      else {
        pushUnique(out, seen, a);
        pushUnique(out, seen, b);
      }
    }
  }
  return out;
}

/** `text` with its citation markers removed and whitespace normalised (space before punctuation dropped). */
export function stripCitations(text: string): string {
  return text
    .replace(MARKER, ' ')
    .replace(/\s+/gu, ' ')
    .replace(/\s+([.,;:!?…])/gu, '$1')
    .trim();
}

/** The answer and the reasoning removed from it. */
export interface SplitReasoning {
  answer: string;
  /** The removed reasoning, blocks joined by a blank line ('' when none). */
  thinking: string;
}

const THINK_BLOCK = /<(think|thinking|reasoning)>([\s\S]*?)<\/\1>/giu;
const LONE_CLOSE = /^([\s\S]*)<\/(?:think|thinking|reasoning)>/iu;
const LONE_OPEN = /<(?:think|thinking|reasoning)>([\s\S]*)$/iu;

/**
 * Separate reasoning from an answer: every `<think>…</think>` block (also `<thinking>`,
 * `<reasoning>`; case-insensitive, multi-line, several) is removed; then text up to a lone closing
 * tag (a model whose template opened the block for it) and text after a lone opening tag (reasoning
 * cut off by the token limit) are removed too. The answer is trimmed.
 */
export function splitReasoning(text: string): SplitReasoning {
  const thoughts: string[] = [];
  let answer = text.replace(THINK_BLOCK, (_m, _tag: string, inner: string) => {
    thoughts.push(inner.trim());
    return '';
  });
  const close = LONE_CLOSE.exec(answer);
  if (close !== null) {
    thoughts.unshift(close[1]!.trim());
    answer = answer.slice(close[0].length);
  }
  const open = LONE_OPEN.exec(answer);
  if (open !== null) {
    thoughts.push(open[1]!.trim());
    answer = answer.slice(0, open.index);
  }
  return { answer: answer.trim(), thinking: thoughts.filter((t) => t.length > 0).join('\n\n') };
}

/** `text` without reasoning blocks (see `splitReasoning`). */
export function stripReasoning(text: string): string {
  return splitReasoning(text).answer;
}

/**
 * A sentence cut after each citation marker that closes a sentence or a lead-in inside it: a marker
 * right after `.`, `!`, `?`, `…`, `:` or `;` (spaces between allowed) and followed by more text
 * ends a claim there. The sentence splitter keeps `You need: [1] A kettle. [2]` together (no
 * capital after the colon, or a marker where it looks for one), and one claim citing two sections
 * would be judged against each for words the other holds. A marker inside a clause (`eggs [1] and
 * salt [2]`) does not cut. Pure; a sentence without such a marker comes back whole.
 */
export function splitAfterInnerCitations(sentence: string): string[] {
  const out: string[] = [];
  let from = 0;
  for (const m of sentence.matchAll(MARKER)) {
    const before = sentence.slice(from, m.index).trimEnd();
    const end = m.index + m[0].length;
    const rest = sentence.slice(end);
    if (!/[.!?…:;]$/u.test(before) || !/^\s*(?:\[[^\]]*\]\s*)*[\p{L}\p{N}]/u.test(rest)) continue;
    // Later markers right after this one (`[1][2]`) stay with it.
    const tail = /^(?:\s*\[\s*\d+(?:\s*[,–-]\s*\d+)*\s*\](?!\())*/u.exec(rest)?.[0] ?? '';
    out.push(sentence.slice(from, end + tail.length).trim());
    from = end + tail.length;
  }
  const last = sentence.slice(from).trim();
  if (last !== '' || out.length === 0) out.push(last);
  return out;
}

/**
 * Split an answer into claims and check its citations against `nSections` numbered sections.
 *
 * Reasoning is stripped first (a citation that appears only in reasoning does not count). Each
 * sentence (see `splitSentences`, cut after inner citations by `splitAfterInnerCitations`) with a
 * letter or digit left after removing its markers (and a leading list marker such as `- ` or `1. `,
 * and a leading `Yes:`/`No:` verdict) is a claim;
 * a sentence that is only markers (`[2]` on its own line) gives its citations to the claim before it.
 * `cited` keeps `1 ≤ n ≤ nSections`; every other number goes to `invalid`. An empty answer gives
 * no claims and no citations.
 * @example extractClaims('Eggs boil in 10 minutes [1]. Salt helps [7].', 2).invalid // [7]
 */
export function extractClaims(answer: string, nSections: number): ExtractedClaims {
  if (!Number.isInteger(nSections) || nSections < 0) {
    throw new QuiverError('BAD_INPUT', `quiver: nSections must be an integer ≥ 0, got ${String(nSections)}`);
  }
  const claims: Claim[] = [];
  const cited: number[] = [];
  const invalid: number[] = [];
  const seenCited = new Set<number>();
  const seenInvalid = new Set<number>();
  for (const sentence of splitSentences(stripReasoning(answer)).flatMap(splitAfterInnerCitations)) {
    const citations = parseCitations(sentence);
    for (const n of citations) {
      if (n >= 1 && n <= nSections) pushUnique(cited, seenCited, n);
      else pushUnique(invalid, seenInvalid, n);
    }
    const text = stripCitations(sentence).replace(LIST_MARKER, '').replace(VERDICT, '');
    const last = claims[claims.length - 1];
    if (!/[\p{L}\p{N}]/u.test(text)) {
      if (last !== undefined)
        for (const n of citations) if (!last.citations.includes(n)) last.citations.push(n);
      continue;
    }
    claims.push({ text, citations });
  }
  return { claims, cited, invalid };
}
