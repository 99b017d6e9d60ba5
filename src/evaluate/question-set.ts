/**
 * The question set of `quiver eval`: one JSON object per line (JSONL). Every field but `question`
 * is optional:
 *
 * ```json
 * {"id": "q1", "question": "How long do I boil an egg?",
 *  "relevant": {"kitchen.md": 2, "a1b2c3d4e5f60718#3": 1},
 *  "required_facts": ["ten minutes", {"id": "f-salt", "phrasings": ["pinch of salt", "some salt"]}],
 *  "reference": "Boil it for ten minutes.",
 *  "sources": ["kitchen.md", {"id": "eggs.md", "facts": ["f-salt"]}]}
 * ```
 *
 * - `id`: a string or number; defaults to the line number. Ids must be unique.
 * - `relevant`: graded relevance (grade > 0 is relevant). A key is a **document source** (the file
 *   path relative to the vault root, or a JSONL/BEIR record id), a **document id** (16 hex) or a
 *   **section id** (`<doc id>#<seq>`). A retrieved section matches the first of its own id, its
 *   document's id and its document's source that is a key, so a section hit counts for its
 *   document's source key (several sections of one document count once, at the first).
 * - `required_facts`: what a complete answer must contain (for completeness): a string, or an id
 *   with alternative phrasings. Without facts, `reference` is the one required fact.
 * - `reference`: the gold answer; `answer_recall` checks that it appears in the answer.
 * - `sources`: the authored sources the answer rests on: a key as in `relevant`, or
 *   `{"id": key, "facts": [fact ids]}`. When `relevant` is absent, each source is relevant with
 *   grade 1. Their `facts` tell the fact-id judge which facts a retrieved section states.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { QuiverError } from '../errors.js';
import { hasSearchableWord } from '../retrieve/query-terms.js';
import type { RequiredFact } from './judges/judge.js';

/** An authored source: which document/section it is, and the fact ids it states. */
export interface AuthoredSource {
  id: string;
  facts: string[];
}

/** One question, normalised. */
export interface EvalQuestion {
  id: string;
  question: string;
  /** Relevance key → grade; empty when the question has no labels. */
  relevant: Record<string, number>;
  requiredFacts: RequiredFact[];
  reference?: string;
  sources: AuthoredSource[];
}

const factSchema = z.union([
  z.string().min(1),
  z.object({ id: z.string().min(1), phrasings: z.array(z.string()) }).strict(),
]);

const lineSchema = z
  .object({
    id: z.union([z.string().min(1), z.number()]).optional(),
    question: z
      .string()
      .refine((s) => s.trim() !== '', 'must be a non-empty string')
      .refine((s) => s.trim() === '' || hasSearchableWord(s), 'must contain a word to search for'),
    relevant: z.record(z.string(), z.number().finite()).optional(),
    required_facts: z.array(factSchema).optional(),
    reference: z.string().optional(),
    sources: z
      .array(
        z.union([
          z.string().min(1),
          z.object({ id: z.string().min(1), facts: z.array(z.string()).optional() }).passthrough(),
        ]),
      )
      .optional(),
  })
  .passthrough();

/** Convert one parsed line (already validated) to an `EvalQuestion`. */
function toQuestion(o: z.infer<typeof lineSchema>, lineNo: number): EvalQuestion {
  const sources: AuthoredSource[] = (o.sources ?? []).map((s) =>
    typeof s === 'string' ? { id: s, facts: [] } : { id: s.id, facts: s.facts ?? [] },
  );
  const relevant = o.relevant ?? Object.fromEntries(sources.map((s) => [s.id, 1]));
  const q: EvalQuestion = {
    id: o.id === undefined ? String(lineNo) : String(o.id),
    question: o.question.trim(),
    relevant,
    requiredFacts: o.required_facts ?? [],
    sources,
  };
  if (o.reference !== undefined && o.reference.trim() !== '') q.reference = o.reference;
  return q;
}

/**
 * Parse a JSONL question set. Blank lines are skipped. Any bad line (not JSON, not an object, a
 * missing or empty `question`, a field of the wrong type, a repeated id) throws `BAD_INPUT` naming
 * the file and the 1-based line number.
 *
 * @example parseQuestionSet('{"question": "Why?"}\n', 'q.jsonl') // [{id: '1', question: 'Why?', …}]
 */
export function parseQuestionSet(text: string, file = 'questions'): EvalQuestion[] {
  const out: EvalQuestion[] = [];
  const seen = new Map<string, number>();
  const lines = text.split('\n');
  for (const [i, raw] of lines.entries()) {
    const lineNo = i + 1;
    const line = raw.trim();
    if (line === '') continue;
    const bad = (why: string): QuiverError =>
      new QuiverError('BAD_INPUT', `quiver: ${file} line ${lineNo}: ${why}`, {
        details: { file, line: lineNo },
      });
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      throw bad(`not valid JSON (${(e as Error).message})`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw bad('expected a JSON object with a "question"');
    }
    const res = lineSchema.safeParse(value);
    if (!res.success) {
      const issue = res.error.issues[0];
      const path = issue === undefined || issue.path.length === 0 ? '(line)' : issue.path.join('.');
      throw bad(`${path} ${issue?.message ?? 'is invalid'}`);
    }
    const q = toQuestion(res.data, lineNo);
    const prev = seen.get(q.id);
    if (prev !== undefined) throw bad(`id ${JSON.stringify(q.id)} repeats line ${prev}`);
    seen.set(q.id, lineNo);
    out.push(q);
  }
  return out;
}

/** Read and parse a question-set file (`UNREADABLE` when it cannot be read). */
export function readQuestionSet(path: string): EvalQuestion[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new QuiverError('UNREADABLE', `quiver: cannot read question set ${path}: ${(e as Error).message}`, {
      cause: e,
    });
  }
  return parseQuestionSet(text, path);
}

/** Whether any question asks for an answer to be measured (it has required facts or a reference). */
export function wantsAnswers(questions: readonly EvalQuestion[]): boolean {
  return questions.some((q) => q.requiredFacts.length > 0 || q.reference !== undefined);
}

/** The required facts F of a question: its `required_facts`, else its reference as one fact. */
export function requiredFactsOf(q: EvalQuestion): RequiredFact[] {
  if (q.requiredFacts.length > 0) return q.requiredFacts;
  return q.reference === undefined ? [] : [q.reference];
}

/** Serialise questions back to the JSONL format (the inverse of `parseQuestionSet`). */
export function formatQuestionSet(questions: readonly EvalQuestion[]): string {
  return questions
    .map((q) =>
      JSON.stringify({
        id: q.id,
        question: q.question,
        ...(Object.keys(q.relevant).length > 0 ? { relevant: q.relevant } : {}),
        ...(q.requiredFacts.length > 0 ? { required_facts: q.requiredFacts } : {}),
        ...(q.reference === undefined ? {} : { reference: q.reference }),
        ...(q.sources.length > 0 ? { sources: q.sources } : {}),
      }),
    )
    .map((l) => `${l}\n`)
    .join('');
}
