/**
 * The Generator seam: a prompt in, an answer text and token usage out. Implementations live in
 * `src/answer/generators/` (extractive offline default, OpenAI-compatible chat completions).
 */
import { isQuiverError } from '../errors.js';
import { codePointLength } from '../text/tokens.js';
import type { ContextSection } from './context-section.js';
import {
  buildPrompt,
  DEFAULT_CONTEXT_CHARS,
  DEFAULT_SECTION_CHARS,
  type Prompt,
  type PromptBudgets,
} from './prompt.js';

export interface GenerateOptions {
  signal?: AbortSignal;
  /** Cap on completion tokens (a generator's own default applies when absent). */
  maxTokens?: number;
  /** Called with each piece of the answer as it arrives. */
  onToken?: (t: string) => void;
}

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
}

export interface GenerateResult {
  /** The answer, reasoning blocks removed. */
  text: string;
  usage: TokenUsage;
}

export interface Generator {
  /** Fingerprint of the generator and its settings (recorded in transcripts). */
  readonly id: string;
  generate(prompt: Prompt, options?: GenerateOptions): Promise<GenerateResult>;
}

/** Token estimate used when a backend reports none: ⌈code points / 4⌉; empty text → 0. */
export function estimateTokens(text: string): number {
  return Math.ceil(codePointLength(text) / 4);
}

/** Sections kept by the one retry after a context-window error. */
export const SHRINK_KEEP_SECTIONS = 2;
/** The retry's per-section budget is the first budget divided by this. */
export const SHRINK_DIVISOR = 3;

export interface ShrinkResult {
  /** The prompt that produced `result` (the smaller one after a retry). */
  prompt: Prompt;
  result: GenerateResult;
  /** True when the first call hit the context window and the smaller prompt answered. */
  shrunk: boolean;
}

/**
 * Generate with one retry on a context-window error (a QuiverError with
 * `details.contextWindow === true`): the retry keeps the first `SHRINK_KEEP_SECTIONS` (2) sections
 * with the per-section budget divided by `SHRINK_DIVISOR` (3, at least 1 character). Any other
 * error, or a second context-window error, propagates.
 */
export async function generateWithShrink(
  generator: Generator,
  question: string,
  sections: readonly ContextSection[],
  budgets: PromptBudgets = {},
  options: GenerateOptions = {},
): Promise<ShrinkResult> {
  const prompt = buildPrompt(question, sections, budgets);
  try {
    return { prompt, result: await generator.generate(prompt, options), shrunk: false };
  } catch (e) {
    if (!isQuiverError(e) || e.details['contextWindow'] !== true) throw e;
  }
  const sectionChars = budgets.sectionChars ?? DEFAULT_SECTION_CHARS;
  const smaller = buildPrompt(question, sections.slice(0, SHRINK_KEEP_SECTIONS), {
    sectionChars: Math.max(1, Math.floor(sectionChars / SHRINK_DIVISOR)),
    totalChars: budgets.totalChars ?? DEFAULT_CONTEXT_CHARS,
  });
  return { prompt: smaller, result: await generator.generate(smaller, options), shrunk: true };
}
