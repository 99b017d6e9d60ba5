import { QuiverError } from '../errors.js';
import { extractClaims, type Claim } from './citations.js';
import type { Conflict } from './conflicts.js';
import type { ContextSection } from './context-section.js';
import { estimateTokens, generateWithShrink, type Generator, type TokenUsage } from './generator.js';
import type { Prompt, PromptBudgets } from './prompt.js';

/** A citation resolved to the section it names. */
export type CitedSection = Pick<
  ContextSection,
  'n' | 'sectionId' | 'docId' | 'title' | 'breadcrumb' | 'source' | 'pages'
>;

/** What `ask` returns. */
export interface AskResult {
  question: string;
  answer: string;
  claims: Claim[];
  cited: CitedSection[];
  /** Citation numbers outside 1..n: reported, never dropped silently. */
  invalidCitations: number[];
  /**
   * Set when the answer abstains: the generator found nothing to quote, or what it quoted covered
   * less of the question than `answer.abstainBelow` (`abstain.ts`). Null for an answer.
   */
  abstained: Abstention | null;
  /**
   * Where the context's sources disagree about the question (`disagreements.ts`): each with its
   * two sides (section, sentence, the differing words). The answer says so and cites both.
   */
  conflicts: Conflict[];
  context: ContextSection[];
  prompt: Prompt;
  generator: string;
  usage: TokenUsage;
  /** Milliseconds per stage. */
  timings: Record<string, number>;
  /** True when the first call hit the model's context window and a smaller prompt answered. */
  shrunk: boolean;
  transcriptId: string | null;
}

/** Why an answer abstained. */
export interface Abstention {
  /** The evidence's coverage of the question (0 when nothing was quoted). */
  coverage: number;
  /** The threshold it fell below. */
  threshold: number;
  /** Question words the closest passages do not mention, most distinctive first. */
  missing: string[];
}

export interface AnswerOptions {
  budgets: PromptBudgets;
  maxTokens?: number;
  signal?: AbortSignal;
  onToken?: (t: string) => void;
  /** Tokens still allowed this session (undefined = unlimited): a call estimated to need more is refused before it is made. */
  remainingTokens?: number;
}

/**
 * Answer a question from numbered context sections: build the prompt, generate (one retry with a
 * smaller context on a context-window error), split the answer into claims and resolve citations.
 */
export async function answerFromContext(
  question: string,
  context: readonly ContextSection[],
  generator: Generator,
  options: AnswerOptions,
): Promise<Omit<AskResult, 'timings' | 'transcriptId' | 'abstained'> & { generateMs: number }> {
  if (options.remainingTokens !== undefined) {
    const approx = estimateTokens(context.map((c) => c.text).join('\n')) + (options.maxTokens ?? 0);
    if (approx > options.remainingTokens) {
      throw new QuiverError(
        'BUDGET',
        `quiver: this ask needs about ${approx} tokens but only ${options.remainingTokens} remain of QUIVER_TOKEN_BUDGET`,
        {
          details: { needed: approx, remaining: options.remainingTokens },
        },
      );
    }
  }
  const t0 = performance.now();
  const { prompt, result, shrunk } = await generateWithShrink(generator, question, context, options.budgets, {
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
    ...(options.onToken === undefined ? {} : { onToken: options.onToken }),
  });
  const generateMs = performance.now() - t0;
  const { claims, cited, invalid } = extractClaims(result.text, prompt.sections.length);
  return {
    question,
    answer: result.text.trim(),
    claims,
    cited: cited.map((n) => {
      const s = prompt.sections[n - 1]!;
      return {
        n,
        sectionId: s.sectionId,
        docId: s.docId,
        title: s.title,
        breadcrumb: s.breadcrumb,
        source: s.source,
        pages: s.pages,
      };
    }),
    invalidCitations: invalid,
    conflicts: prompt.conflicts,
    context: prompt.sections,
    prompt,
    generator: generator.id,
    usage: result.usage,
    shrunk,
    generateMs,
  };
}
