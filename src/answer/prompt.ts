/**
 * The answer prompt: a system message with the citation rules and a user message with the numbered
 * context sections and the question. Pure; the layout is a format (golden-tested), not prose.
 */
import type { Conflict } from './conflicts.js';
import { disagreementNote, disagreements } from './disagreements.js';
import { QuiverError } from '../errors.js';
import { codePointLength } from '../text/tokens.js';
import type { ContextSection } from './context-section.js';

/** Characters (code points) of one section's text kept in the prompt. */
export const DEFAULT_SECTION_CHARS = 1500;
/** Characters (code points) of section text kept in the prompt over all sections. */
export const DEFAULT_CONTEXT_CHARS = 9000;
/** Appended to a section text cut at its budget. */
export const CUT_MARK = '…';
/** Separates the blocks of the user message. */
export const BLOCK_SEPARATOR = '\n\n---\n\n';
/** The whole context when retrieval returned nothing. */
export const EMPTY_CONTEXT_LINE = 'The vault returned no sections for this question.';

/** The rules the model answers by. */
export const DEFAULT_SYSTEM_PROMPT = [
  'You answer questions using only the numbered sections given to you.',
  'Rules:',
  '- Use only what the numbered sections say. Do not add facts from memory.',
  '- Cite every claim with the bracketed number of the section it came from, like [2]. When a sentence uses two sections, cite both, like [1][3].',
  '- If the sections do not contain the answer, say that it is not in the sources instead of guessing. If they answer only part of it, say which part is missing.',
  '- Be brief and direct.',
].join('\n');

export interface PromptBudgets {
  /** Per-section cap on text characters. Defaults to `DEFAULT_SECTION_CHARS` (1500). */
  sectionChars?: number;
  /** Cap on the summed section text characters. Defaults to `DEFAULT_CONTEXT_CHARS` (9000). */
  totalChars?: number;
}

/** What a generator receives. */
export interface Prompt {
  system: string;
  user: string;
  question: string;
  /** The sections actually in `user`: renumbered 1..n, text after the budgets (cut text ends with `…`). */
  sections: ContextSection[];
  /**
   * Where the sections disagree about the question (`disagreements.ts`), also written at the end of
   * `user` for a model to act on; the extractive generator quotes both sides.
   */
  conflicts: Conflict[];
}

/**
 * Cut `text` to at most `budget` code points at a word boundary, ending with `…`.
 *
 * Text within budget comes back trimmed and unchanged. Otherwise the first `budget − 1` code points
 * are kept, backed up to the last whitespace (when there is one after the first character), the end
 * trimmed and `…` appended; a single word longer than the budget is cut mid-word. Budget 1 gives `…`.
 * @example cutAtWord('the quick brown fox', 12) // 'the quick…'
 */
export function cutAtWord(text: string, budget: number): string {
  const t = text.trim();
  if (codePointLength(t) <= budget) return t;
  const cps = Array.from(t).slice(0, Math.max(0, budget - 1));
  let end = cps.length;
  // Cut inside a word unless the next character was whitespace (then the cut is already a boundary).
  if (!/\s/u.test(Array.from(t)[cps.length] ?? ' ')) {
    for (let i = cps.length - 1; i > 0; i--) {
      if (/\s/u.test(cps[i]!)) {
        end = i;
        break;
      }
    }
  }
  return cps.slice(0, end).join('').trimEnd() + CUT_MARK;
}

function positiveInt(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new QuiverError('BAD_INPUT', `quiver: ${name} must be a positive integer, got ${String(value)}`);
  }
  return value;
}

/**
 * Apply the budgets: each text is cut to `sectionChars`, then sections are kept in order while the
 * summed text length stays within `totalChars`; the first section that does not fit and all after it
 * are dropped (a section is never cut to nothing). The first section is always kept, cut to
 * `min(sectionChars, totalChars)`. Sections are renumbered 1..n.
 */
export function applyBudgets(
  sections: readonly ContextSection[],
  sectionChars: number,
  totalChars: number,
): ContextSection[] {
  const out: ContextSection[] = [];
  let used = 0;
  for (const s of sections) {
    const budget = out.length === 0 ? Math.min(sectionChars, totalChars) : sectionChars;
    const text = cutAtWord(s.text, budget);
    const len = codePointLength(text);
    if (out.length > 0 && used + len > totalChars) break;
    used += len;
    out.push({ ...s, n: out.length + 1, text });
  }
  return out;
}

/** `[i] <breadcrumb>\n(source: <source>, pages a–b)\n\n<text>` for one budgeted section. */
export function renderSection(s: ContextSection): string {
  const heading = (s.breadcrumb.trim() || s.title.trim() || s.source).replace(/\s+/gu, ' ');
  const pages = s.pages === null ? '' : `, pages ${s.pages[0]}–${s.pages[1]}`;
  return `[${s.n}] ${heading}\n(source: ${s.source}${pages})\n\n${s.text}`;
}

/**
 * Build the answer prompt for `question` over the ranked `sections`.
 *
 * User message: one block per section after budgets (see `applyBudgets`, `renderSection`), joined
 * by `\n\n---\n\n`, then `\n\n---\n\nQuestion: <question>`. With no sections it is
 * `EMPTY_CONTEXT_LINE` + `\n\nQuestion: <question>`. The question is trimmed and must be nonempty.
 * @example buildPrompt('How long do I boil eggs?', sections).user
 */
export function buildPrompt(
  question: string,
  sections: readonly ContextSection[],
  options: PromptBudgets = {},
): Prompt {
  const q = question.trim();
  if (q.length === 0) throw new QuiverError('BAD_INPUT', 'quiver: question must be nonempty, got ""');
  const sectionChars = positiveInt('sectionChars', options.sectionChars ?? DEFAULT_SECTION_CHARS);
  const totalChars = positiveInt('totalChars', options.totalChars ?? DEFAULT_CONTEXT_CHARS);
  const kept = applyBudgets(sections, sectionChars, totalChars);
  const conflicts = disagreements(q, kept);
  const note = disagreementNote(conflicts);
  const user =
    kept.length === 0
      ? `${EMPTY_CONTEXT_LINE}\n\nQuestion: ${q}`
      : kept.map(renderSection).join(BLOCK_SEPARATOR) +
        (note === '' ? '' : `${BLOCK_SEPARATOR}${note}`) +
        `${BLOCK_SEPARATOR}Question: ${q}`;
  return { system: DEFAULT_SYSTEM_PROMPT, user, question: q, sections: kept, conflicts };
}
