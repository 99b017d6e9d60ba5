/**
 * The judge interface: does a source support a claim? Implementations: `fact-id.ts` (authored fact
 * ids, exact), `lexical.ts` (word coverage, a cheap proxy) and `llm.ts` (a chat model's yes/no).
 * Also the required-fact check used by completeness.
 */
import { fold } from '../../text/tokens.js';

/** A source as a judge sees it: a retrieved section (or an authored document). */
export interface JudgeSource {
  id: string;
  text: string;
  /** Authored fact ids the source states (only the fact-id judge reads them). */
  factIds?: readonly string[];
}

/** One claim of an answer (usually one sentence, without its `[n]` markers). */
export interface JudgeClaim {
  text: string;
  /** Authored fact ids the claim asserts (only the fact-id judge reads them). */
  factIds?: readonly string[];
}

/** Options every judge call accepts. */
export interface JudgeCallOptions {
  signal?: AbortSignal;
}

/**
 * Decides whether a source supports a claim on its own.
 *
 * `proxy` is true when the verdict is not entailment (e.g. word overlap); reports must say so.
 * `supportsJointly`, when present, decides whether several sources together support a claim
 * (ALCE-style citation recall); without it joint support means "some source supports it alone".
 */
export interface Judge {
  readonly id: string;
  readonly proxy: boolean;
  supports(source: JudgeSource, claim: JudgeClaim, options?: JudgeCallOptions): Promise<boolean>;
  supportsJointly?(
    sources: readonly JudgeSource[],
    claim: JudgeClaim,
    options?: JudgeCallOptions,
  ): Promise<boolean>;
}

/**
 * A required fact for completeness: a string that must appear in the answer (compared folded, with
 * whitespace collapsed), or an id with alternative phrasings. An `{id}` fact is also present when a
 * claim of the answer carries that fact id (authored test sets).
 */
export type RequiredFact = string | { id: string; phrasings: readonly string[] };

/** What `factPresent` looks at: the answer text and, for authored sets, the claims' fact ids. */
export interface AnswerForFacts {
  text: string;
  factIds?: readonly string[];
}

/** Fold (case, diacritics) and collapse every whitespace run to one space, trimmed. */
export function normalizeForMatch(text: string): string {
  return fold(text).replace(/\s+/gu, ' ').trim();
}

/** The identity of a required fact: its id, or its normalised text for a plain string. */
export function factKey(fact: RequiredFact): string {
  return typeof fact === 'string' ? `text:${normalizeForMatch(fact)}` : `id:${fact.id}`;
}

/**
 * Folded text reduced to its words (letters and digits), one space apart: what fact and answer
 * matching compare, so `10:00` matches `10:00` and a fact "no" is not found inside "north".
 */
export function matchWords(text: string): string {
  return normalizeForMatch(text)
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/**
 * True when the required fact is present in the answer: one of its phrasings (or the string itself)
 * occurs in the answer text as whole words, compared folded; or, for an `{id}` fact, a
 * claim carries that id. An empty phrasing never matches. An empty answer contains no fact.
 *
 * @example factPresent('4 credits', 'Admission is 4  Credits.') // true
 */
export function factPresent(fact: RequiredFact, answer: string | AnswerForFacts): boolean {
  const text = ` ${matchWords(typeof answer === 'string' ? answer : answer.text)} `;
  const phrasings = typeof fact === 'string' ? [fact] : fact.phrasings;
  for (const p of phrasings) {
    const needle = matchWords(p);
    if (needle.length > 0 && text.includes(` ${needle} `)) return true;
  }
  if (typeof fact !== 'string' && typeof answer !== 'string') {
    return (answer.factIds ?? []).includes(fact.id);
  }
  return false;
}
