/**
 * The lexical judge: a cheap offline **proxy** for support, never entailment. A source "supports" a
 * claim when the claim's content words are covered by the source, every number of the claim
 * appears in the source, and the polarity (negated or not) of the claim matches the source
 * sentence that covers it best (the first of them on a tie).
 */
import { QuiverError } from '../../errors.js';
import { splitSentences } from '../../answer/sentences.js';
import { NEGATIONS } from '../../text/stopwords.js';
import { contentTerms, fold, words } from '../../text/tokens.js';
import type { Judge, JudgeClaim, JudgeSource } from './judge.js';

/** Share of the claim's distinct content terms the source must contain. */
export const DEFAULT_LEXICAL_THRESHOLD = 0.8;

export interface LexicalJudgeOptions {
  /** Coverage threshold in (0, 1]. Defaults to `DEFAULT_LEXICAL_THRESHOLD` (0.8). */
  threshold?: number;
}

/** Why a lexical verdict came out the way it did. */
export interface LexicalVerdict {
  supported: boolean;
  /** |claim terms ∩ source terms| / |claim terms| over distinct stemmed content terms; 0 if the claim has none. */
  coverage: number;
  /** Claim numbers missing from the source. */
  missingNumbers: string[];
  /** The claim's negation disagrees with the best-covering source sentence. */
  polarityMismatch: boolean;
}

const NUMBER = /\d+(?:[.,:]\d+)*/gu;

/** Numbers in `text` as written (`10:00`, `4`, `3.5`, `1,000`), in order. */
export function numbersIn(text: string): string[] {
  return fold(text).match(NUMBER) ?? [];
}

/** True when `text` contains a negation word (`not`, `never`, `no`, … or an `n't` contraction). */
export function isNegated(text: string): boolean {
  return words(text).some((w) => NEGATIONS.has(w) || /n['’]t$/u.test(w));
}

/**
 * A source's sentences, split as answers are (`splitSentences`): a line wrapped inside a sentence
 * is one sentence, headings and list items are their own. Splitting at every line break cut a
 * wrapped sentence in two, and its heading could then tie with its better half for the sentence
 * that decides polarity.
 */
function sentences(text: string): string[] {
  return splitSentences(text);
}

function coverage(claimTerms: ReadonlySet<string>, sourceTerms: ReadonlySet<string>): number {
  if (claimTerms.size === 0) return 0;
  let hit = 0;
  for (const t of claimTerms) if (sourceTerms.has(t)) hit++;
  return hit / claimTerms.size;
}

/**
 * The lexical verdict with its reasons. Rules: (1) coverage of the claim's distinct content terms
 * (folded, stop-words removed, stemmed) by the whole source ≥ threshold; (2) every number of the
 * claim occurs among the source's numbers; (3) the claim is negated iff the source sentence with the
 * highest coverage is negated. A claim without content terms is never supported.
 *
 * @example lexicalVerdict('The museum opens at 10:00.', 'The museum opens Tuesday at 10:00.').supported // true
 */
export function lexicalVerdict(
  sourceText: string,
  claimText: string,
  threshold: number = DEFAULT_LEXICAL_THRESHOLD,
): LexicalVerdict {
  const claimTerms = new Set(contentTerms(claimText));
  const cov = coverage(claimTerms, new Set(contentTerms(sourceText)));
  const sourceNumbers = new Set(numbersIn(sourceText));
  const missingNumbers = numbersIn(claimText).filter((n) => !sourceNumbers.has(n));

  let best = '';
  let bestCov = -1;
  for (const s of sentences(sourceText)) {
    const c = coverage(claimTerms, new Set(contentTerms(s)));
    if (c > bestCov) {
      bestCov = c;
      best = s;
    }
  }
  const polarityMismatch = isNegated(claimText) !== isNegated(best);
  const supported =
    claimTerms.size > 0 && cov >= threshold && missingNumbers.length === 0 && !polarityMismatch;
  return { supported, coverage: cov, missingNumbers, polarityMismatch };
}

/**
 * A `Judge` over `lexicalVerdict`; `id: 'lexical-proxy'`, `proxy: true`. Joint support (ALCE
 * columns) applies the same rules to the concatenated sources.
 */
export function createLexicalJudge(options: LexicalJudgeOptions = {}): Judge {
  const threshold = options.threshold ?? DEFAULT_LEXICAL_THRESHOLD;
  if (!(threshold > 0 && threshold <= 1)) {
    throw new QuiverError('BAD_INPUT', `quiver: lexical threshold must be in (0, 1], got ${threshold}`);
  }
  return {
    id: 'lexical-proxy',
    proxy: true,
    supports(source: JudgeSource, claim: JudgeClaim): Promise<boolean> {
      return Promise.resolve(lexicalVerdict(source.text, claim.text, threshold).supported);
    },
    supportsJointly(sources: readonly JudgeSource[], claim: JudgeClaim): Promise<boolean> {
      const joined = sources.map((s) => s.text).join('\n');
      return Promise.resolve(lexicalVerdict(joined, claim.text, threshold).supported);
    },
  };
}
