/**
 * The extractive generator, quiver's offline default: it answers with the sentences of the numbered
 * sections that best answer the question, each cited with its section number. It never writes a word
 * that is not in a source, so its faithfulness is 1 by construction; its usefulness is measured.
 */
import { QuiverError } from '../../errors.js';
import { cosine } from '../../math/vector.js';
import { contentTerms, words } from '../../text/tokens.js';
import { parseCitations, stripCitations } from '../citations.js';
import { estimateTokens, type GenerateOptions, type GenerateResult, type Generator } from '../generator.js';
import { CUT_MARK, type Prompt } from '../prompt.js';
import { splitSentences } from '../sentences.js';
import { comparisonVerdict } from './verdict.js';

/** The whole answer when no sentence clears the floor. It carries no citation. */
export const NOT_IN_SOURCES = 'The sources do not answer this question.';
export const DEFAULT_MAX_SENTENCES = 3;
export const DEFAULT_MAX_WORDS = 80;
/** Minimum idf-weighted share of the question's content terms a sentence must contain (strictly above). */
export const DEFAULT_EXTRACTIVE_FLOOR = 0.2;
/** With `embed`: a sentence whose cosine to the question is at least this is eligible too. */
export const DEFAULT_EMBED_FLOOR = 0.5;
/** With `embed`: score = (1 − w)·lexical + w·max(0, cosine). */
export const DEFAULT_EMBED_WEIGHT = 0.5;
/** Added to a sentence that has the answer type the question asks for (a duration for "how long"). */
export const DEFAULT_ANSWER_TYPE_BONUS = 0.15;
/** Subtracted per sentence already chosen from the same section. */
export const DEFAULT_DIVERSITY_PENALTY = 0.15;
/** Two sentences whose word-set Jaccard is at least this are repeats; the later pick is dropped. */
export const DEFAULT_REPEAT_JACCARD = 0.7;
/** Sentences scoring below this share of the best score are not added. */
export const DEFAULT_RELATIVE_FLOOR = 0.5;
/** Sentences with fewer words are not candidates (headings, labels). */
export const MIN_SENTENCE_WORDS = 3;
/** Weight of term density (matched question terms / sentence terms): a tie-breaker for focus. */
const DENSITY_WEIGHT = 0.05;
/** Subtracted from a line without terminal punctuation (a heading or fragment). */
const FRAGMENT_PENALTY = 0.1;
/** Ends like a sentence: . ! ? or … before any closing quotes or brackets. */
const TERMINAL = /[.!?…]["'”’)\]]*$/u;
/**
 * A line without terminal punctuation and at most this many words is a heading or a label (a PDF's
 * "5. Causes that are not greenhouse gases"): it restates the question rather than answering it,
 * so it is not a candidate.
 */
export const MAX_HEADING_WORDS = 8;

export interface ExtractiveOptions {
  /** Optional embedding function (unit vectors); adds cosine to the lexical score. */
  embed?: (texts: string[]) => Promise<Float32Array[]>;
  /** Defaults to `DEFAULT_MAX_SENTENCES` (3). */
  maxSentences?: number;
  /** Defaults to `DEFAULT_MAX_WORDS` (80); citation markers are not counted. */
  maxWords?: number;
  /** Defaults to `DEFAULT_EXTRACTIVE_FLOOR` (0.2), in [0, 1]. */
  floor?: number;
  /** Defaults to `DEFAULT_EMBED_FLOOR` (0.5). */
  embedFloor?: number;
  /** Defaults to `DEFAULT_DIVERSITY_PENALTY` (0.15). */
  diversityPenalty?: number;
  /** Defaults to `DEFAULT_REPEAT_JACCARD` (0.7). */
  repeatJaccard?: number;
  /** Defaults to `DEFAULT_RELATIVE_FLOOR` (0.5). */
  relativeFloor?: number;
}

/** What kind of answer a question asks for, when it is recognisable. */
export type AnswerType = 'duration' | 'temperature' | 'quantity' | 'date' | 'person' | 'place';

const NUMBER_WORD =
  '(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|hundred|thousand|million|billion|a few|several|a couple of|half an?)';
const QUESTION_TYPES: readonly [AnswerType, RegExp][] = [
  ['duration', /\bhow long\b|\bhow much time\b|\bhow soon\b|\bduration\b/iu],
  ['temperature', /\btemperature\b|\bhow (?:hot|cold|warm)\b|\bdegrees?\b/iu],
  [
    'quantity',
    /\bhow (?:many|much|big|large|tall|far|heavy|old|fast|often)\b|\bnumber of\b|\bwhat (?:percentage|percent|size)\b/iu,
  ],
  ['date', /^\s*when\b|\bwhat (?:year|date|day|month|time)\b|\bwhich (?:year|date|day|month)\b/iu],
  // Only the question word: "which writer … Henry Roth or Robert Childers" names its answer, and
  // the noun after "which" is the topic, kept among the question's terms.
  ['person', /^\s*(?:who|whom|whose)\b/iu],
  ['place', /^\s*where\b/iu],
];
const ANSWER_PATTERNS: Record<AnswerType, RegExp> = {
  duration: new RegExp(
    `(?:\\d+(?:[.,]\\d+)?|\\b${NUMBER_WORD})(?:\\s*(?:-|–|to)\\s*\\d+)?\\s*(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|yrs?|ms|s|h)\\b`,
    'iu',
  ),
  temperature: /\d+(?:[.,]\d+)?\s*(?:°\s*[CFK]?|º|℃|℉|degrees?\b|deg\b)/iu,
  quantity: new RegExp(`\\d|\\b${NUMBER_WORD}\\b`, 'iu'),
  // A name of two capitalised words not opening the sentence (`hosted by John Waters`).
  person: /(?<=\S\s+)\p{Lu}\p{Ll}+(?:\s+\p{Lu}\.)?\s+\p{Lu}\p{Ll}+/gu,
  // A capitalised name after a preposition of place (`in Laleli`, `from Nevada`).
  place: /\b(?:in|at|near|from|of)\s+(\p{Lu}\p{Ll}+(?:\s+\p{Lu}\p{Ll}+)*)/gu,
  date: /\b(?:1\d{3}|20\d{2})\b|\b(?:january|february|march|april|may|june|july|august|september|october|november|december|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b|\b\d{1,2}:\d{2}\b|\b\d{1,2}(?:st|nd|rd|th)\b|\bcentury\b/iu,
};

/** The answer type `question` asks for, or null ("how long" → duration, "when" → date, …). */
export function answerType(question: string): AnswerType | null {
  for (const [type, re] of QUESTION_TYPES) if (re.test(question)) return type;
  return null;
}

/**
 * The question's content terms without its answer-type cue ("how long", "how many", "what
 * temperature"): a cue names the kind of answer, not its topic, and rarely appears in the answer.
 */
export function questionTerms(question: string): Set<string> {
  const type = answerType(question);
  const cue = QUESTION_TYPES.find(([t]) => t === type)?.[1];
  return new Set(contentTerms(cue === undefined ? question : question.replace(cue, ' ')));
}

/**
 * True when `sentence` contains an answer of `type` (a duration, a temperature, a number, a date,
 * a person's name, a place). For a person or a place, a name whose words are all in `asked` (the
 * question's folded words) is the question's own subject, not an answer, and does not count.
 */
export function hasAnswerType(
  type: AnswerType,
  sentence: string,
  asked: ReadonlySet<string> = new Set(),
): boolean {
  const re = ANSWER_PATTERNS[type];
  if (type !== 'person' && type !== 'place') return re.test(sentence);
  for (const m of sentence.matchAll(re)) if (words(m[1] ?? m[0]).some((w) => !asked.has(w))) return true;
  return false;
}

/**
 * Smoothed idf over candidate term sets: idf(t) = ln(1 + (N − df + 0.5)/(df + 0.5)), always > 0;
 * a term in no candidate (df = 0) gets the largest weight. `idf(t)` for an unseen term uses df = 0.
 */
export function idfWeights(termSets: readonly ReadonlySet<string>[]): (term: string) => number {
  const df = new Map<string, number>();
  for (const set of termSets) for (const t of set) df.set(t, (df.get(t) ?? 0) + 1);
  const n = termSets.length;
  return (t) => {
    const d = df.get(t) ?? 0;
    return Math.log(1 + (n - d + 0.5) / (d + 0.5));
  };
}

/**
 * Idf-weighted coverage of the question terms Q by a sentence's terms S:
 * Σ_{t∈Q∩S} idf(t) / Σ_{t∈Q} idf(t), in [0, 1]. Empty Q → 0.
 */
export function lexicalCoverage(
  question: ReadonlySet<string>,
  sentence: ReadonlySet<string>,
  idf: (term: string) => number,
): number {
  let total = 0;
  let hit = 0;
  for (const t of question) {
    const w = idf(t);
    total += w;
    if (sentence.has(t)) hit += w;
  }
  return total > 0 ? hit / total : 0;
}

/** Jaccard |A∩B| / |A∪B|; two empty sets → 0 (nothing to call a repeat). */
export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 0;
  let inter = 0;
  for (const x of a) if (b.has(x)) inter++;
  return inter / (a.size + b.size - inter);
}

/** Bonus for a section's first sentence (it usually names and defines the subject). */
export const LEAD_BONUS = 0.05;
/** Bonus for a sentence that names its section's subject (it stands on its own when quoted). */
export const SUBJECT_BONUS = 0.05;
/** Bonus, after a pick, for sentences of another section whose subject the pick names (a bridge). */
export const BRIDGE_BONUS = 0.2;

/** Sentences longer than this many words pay `LENGTH_PENALTY` per this many extra words: the word budget is shared. */
export const LONG_SENTENCE_WORDS = 25;
export const LENGTH_PENALTY = 0.05;

/** Penalty for a later pick whose question terms the chosen sentences already cover (× the covered share). */
export const REDUNDANCY_PENALTY = 0.1;

/** Longest section title used as a subject label, in words. */
export const MAX_SUBJECT_WORDS = 6;

/**
 * A section title usable as a subject label (`Animorphs: It is told in first person…`): short, not a
 * question, not a sentence. The label is the section's own title, so the answer still only uses
 * words of the source.
 */
export function subjectLabel(title: string): string | null {
  const t = title.replace(/\s+/g, ' ').trim();
  if (t === '' || /[?!.:]$/.test(t) || wordCount(t) > MAX_SUBJECT_WORDS) return null;
  return t;
}

/** The sentence as written: prefixed with its section's subject when it does not name it. */
function labelled(c: {
  text: string;
  terms: ReadonlySet<string>;
  titleTerms: ReadonlySet<string>;
  subject: string | null;
}): string {
  return c.subject !== null && !covers(c.terms, c.titleTerms) ? `${c.subject}: ${c.text}` : c.text;
}

/** Every term of `title` is in `terms` (an empty title covers nothing). */
function covers(terms: ReadonlySet<string>, title: ReadonlySet<string>): boolean {
  if (title.size === 0) return false;
  for (const t of title) if (!terms.has(t)) return false;
  return true;
}

interface Candidate {
  n: number;
  /** Content terms of the section's title (the entity a Wikipedia-like section is about). */
  titleTerms: Set<string>;
  /** The title as a `Title: ` label for sentences that do not name it, or null when unsuitable. */
  subject: string | null;

  position: number;
  text: string;
  terms: Set<string>;
  /**
   * The terms the sentence is scored with: its own, and for a sentence whose subject is a pronoun
   * or a definite reference (`It was hosted by John Waters.`), its section title's too (`referent`).
   */
  scoreTerms: Set<string>;
  wordSet: Set<string>;
  wordCount: number;
  score: number;
  eligible: boolean;
}

function wordCount(text: string): number {
  return text.split(/\s+/u).filter((w) => w.length > 0).length;
}

/** Sentences of a budgeted section: a trailing fragment cut by the prompt budget (`word…`) is dropped. */
function sectionSentences(text: string): string[] {
  const sentences = splitSentences(text);
  const last = sentences[sentences.length - 1];
  if (last !== undefined && text.trimEnd().endsWith(CUT_MARK) && /[\p{L}\p{N},;:]…$/u.test(last))
    sentences.pop();
  return sentences;
}

/**
 * A sentence whose subject refers back (a pronoun, or "the film", "the band", …): in a section
 * about one thing it speaks of that thing, so it is scored as if it named the section's subject,
 * and quoted with the subject as its label (`18th Independent Spirit Awards: It was hosted by
 * John Waters.`), which the judge reads in the section's heading.
 */
export const REFERS_BACK =
  /^(?:it|he|she|they|its|his|her|their|this|these|the (?:film|movie|band|group|company|series|show|song|album|book|novel|game|team|club|city|town|village|school|university|station|building|church|river|airport|magazine|newspaper|event|ceremony|award|party|organization|organisation|species|genus|plant))\b/iu;

/** Ends as a lead-in to what follows (`You need:`), before any closing quotes or brackets. */
const LEAD_IN = /:["'”’)\]]*$/u;
/** A list item's marker (`- `, `* `, `• `, `1. `, `2) `). */
const ITEM_MARKER = /^(?:[-*•–+]|\d{1,3}[.)])\s+/u;
/** List items a lead-in takes with it, at most. */
export const MAX_LEAD_IN_ITEMS = 5;

/**
 * Sentences as statements that stand alone when quoted: a lead-in ending in `:` is joined with what
 * it introduces — the list items right after it (up to `MAX_LEAD_IN_ITEMS`, markers dropped, joined
 * by `; `), else the next sentence — so it is never quoted alone, and the claim it makes is whole.
 * A lead-in with nothing after it in the section is dropped. Other sentences come back unchanged,
 * and the sentences a lead-in took stay candidates of their own too.
 *
 * @example wholeStatements(['You need:', '- a kettle', '- beans', 'Pour slowly.'])
 * // ['You need: a kettle; beans', '- a kettle', '- beans', 'Pour slowly.']
 * // (each item as written; the last keeps its own full stop when it has one)
 */
export function wholeStatements(sentences: readonly string[]): string[] {
  const out: string[] = [];
  sentences.forEach((sentence, i) => {
    if (!LEAD_IN.test(stripCitations(sentence))) {
      out.push(sentence);
      return;
    }
    const items: string[] = [];
    for (let j = i + 1; j < sentences.length && items.length < MAX_LEAD_IN_ITEMS; j++) {
      const next = sentences[j]!;
      if (!ITEM_MARKER.test(next)) break;
      items.push(next.replace(ITEM_MARKER, ''));
    }
    // Items read as one list: `; ` between them, the last keeps its own ending.
    const list = items.map((t, k) => (k < items.length - 1 ? t.replace(/[.;,]$/u, '') : t));
    const next = sentences[i + 1];
    if (list.length > 0) out.push(`${sentence} ${list.join('; ')}`);
    else if (next !== undefined) out.push(`${sentence} ${next}`);
  });
  return out;
}

function candidates(prompt: Prompt): Candidate[] {
  const out: Candidate[] = [];
  for (const s of prompt.sections) {
    const titleTerms = new Set(contentTerms(s.title));
    const subject = subjectLabel(s.title);
    wholeStatements(sectionSentences(s.text)).forEach((raw, position) => {
      const text = parseCitations(raw).length > 0 ? stripCitations(raw) : raw;
      const count = wordCount(text);
      if (count < MIN_SENTENCE_WORDS) return;
      if (count <= MAX_HEADING_WORDS && !TERMINAL.test(text)) return;
      const terms = new Set(contentTerms(text));
      const scoreTerms = REFERS_BACK.test(text) ? new Set([...terms, ...titleTerms]) : terms;
      const label = subject !== null && !covers(terms, titleTerms) ? wordCount(subject) : 0;
      out.push({
        n: s.n,
        titleTerms,
        subject,
        position,
        text,
        terms,
        scoreTerms,
        wordSet: new Set(words(text)),
        wordCount: count + label,
        score: 0,
        eligible: false,
      });
    });
  }
  return out;
}

/** Opens an answer that quotes both sides of a disagreement. */
export const SOURCES_DISAGREE = 'The sources disagree';

/** True when candidate `c` is the sentence of a conflict side (same section, same words). */
function isSide(c: Candidate, side: { n: number; sentence: string }): boolean {
  const norm = (t: string): string => stripCitations(t).replace(/\s+/gu, ' ').trim();
  return c.n === side.n && norm(c.text) === norm(side.sentence);
}

/**
 * When a chosen sentence is one side of a disagreement the prompt carries (`prompt.conflicts`),
 * the answer quotes both sides, first, in the order of their text (so which copy was added first
 * does not change the answer), then the other chosen sentences, at most `maxSentences` in all.
 * Null when no chosen sentence is a side (the answer is the chosen sentences as they are).
 */
function bothSides(
  prompt: Prompt,
  cands: readonly Candidate[],
  chosen: readonly { c: Candidate; text: string }[],
  maxSentences: number,
): { c: Candidate; text: string }[] | null {
  for (const conflict of prompt.conflicts) {
    if (!chosen.some((p) => conflict.sides.some((side) => isSide(p.c, side)))) continue;
    const sides = conflict.sides.map((side) => cands.find((c) => isSide(c, side)));
    if (sides.some((c) => c === undefined)) continue;
    const pair = (sides as Candidate[])
      .map((c) => ({ c, text: labelled(c) }))
      .sort((a, b) => (a.c.text < b.c.text ? -1 : a.c.text > b.c.text ? 1 : 0));
    const rest = chosen.filter((p) => !pair.some((x) => x.c === p.c));
    return [...pair, ...rest].slice(0, Math.max(2, maxSentences));
  }
  return null;
}

/**
 * A yes/no comparison's verdict (`verdict.ts`) with the candidate sentence quoted for each thing,
 * in question order; null when the sentences do not state one.
 */
function verdictOf(
  prompt: Prompt,
  cands: readonly Candidate[],
): { verdict: 'yes' | 'no'; picked: { c: Candidate; text: string }[] } | null {
  const titleOf = new Map(prompt.sections.map((s) => [s.n, s.title] as const));
  const v = comparisonVerdict(
    prompt.question,
    cands.map((c) => ({ n: c.n, title: titleOf.get(c.n) ?? '', text: c.text })),
  );
  if (v === null) return null;
  const picked = v.quoted.flatMap((q) => {
    const c = cands.find((x) => x.n === q.n && x.text === q.text);
    return c === undefined ? [] : [{ c, text: labelled(c) }];
  });
  return picked.length === v.quoted.length ? { verdict: v.verdict, picked } : null;
}

function positive(name: string, value: number, integer: boolean): number {
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new QuiverError(
      'BAD_INPUT',
      `quiver: ${name} must be a positive ${integer ? 'integer' : 'number'}, got ${String(value)}`,
    );
  }
  return value;
}

function aborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted === true) throw new QuiverError('ABORTED', 'quiver: extractive generation was aborted');
}

/**
 * Create the extractive generator.
 *
 * Scoring per candidate sentence (sections split by `splitSentences`, fewer than 3 words skipped):
 * lexical = idf-weighted coverage of the question's content terms without its answer-type cue
 * (`questionTerms`; idf over the candidates);
 * with `embed`, base = 0.5·lexical + 0.5·max(0, cosine(question, sentence)), else base = lexical;
 * score = base + 0.05·density + 0.15 when the sentence has the answer type the question asks for
 * − 0.1 for a line without terminal punctuation. Eligible: lexical > `floor` or (with `embed`)
 * cosine ≥ `embedFloor`. Selection is greedy by score − `diversityPenalty` × (sentences already taken
 * from that section), skipping repeats (word Jaccard ≥ `repeatJaccard`), sentences below
 * `relativeFloor` × the best score and sentences that would exceed `maxWords` (a lone first sentence
 * longer than `maxWords` is cut at a word with `…`). The chosen sentences are ordered by section
 * number and position and each is written verbatim (whitespace normalised, any `[n]` markers of the
 * source removed) followed by ` [n]`. No eligible sentence → exactly `NOT_IN_SOURCES`.
 * Token usage is estimated as ⌈chars/4⌉. Deterministic: ties break by section, then position.
 * @example
 * const gen = createExtractiveGenerator();
 * const { text } = await gen.generate(buildPrompt('How long do I boil eggs?', sections));
 */
export function createExtractiveGenerator(options: ExtractiveOptions = {}): Generator {
  const maxSentences = positive('maxSentences', options.maxSentences ?? DEFAULT_MAX_SENTENCES, true);
  const maxWords = positive('maxWords', options.maxWords ?? DEFAULT_MAX_WORDS, true);
  const floor = options.floor ?? DEFAULT_EXTRACTIVE_FLOOR;
  if (!(floor >= 0 && floor <= 1)) {
    throw new QuiverError('BAD_INPUT', `quiver: floor must be in [0, 1], got ${String(floor)}`);
  }
  const embedFloor = options.embedFloor ?? DEFAULT_EMBED_FLOOR;
  const diversityPenalty = options.diversityPenalty ?? DEFAULT_DIVERSITY_PENALTY;
  const repeatJaccard = options.repeatJaccard ?? DEFAULT_REPEAT_JACCARD;
  const relativeFloor = options.relativeFloor ?? DEFAULT_RELATIVE_FLOOR;
  const embed = options.embed;
  const id = `extractive:v1:s${maxSentences}:w${maxWords}:f${floor}${embed === undefined ? '' : ':embed'}`;

  async function score(prompt: Prompt, cands: Candidate[], signal: AbortSignal | undefined): Promise<void> {
    const q = questionTerms(prompt.question);
    const idf = idfWeights(cands.map((c) => c.terms));
    const type = answerType(prompt.question);
    const asked = new Set(words(prompt.question));
    let cos: number[] | null = null;
    if (embed !== undefined && cands.length > 0) {
      const vectors = await embed([prompt.question, ...cands.map((c) => c.text)]);
      aborted(signal);
      if (vectors.length !== cands.length + 1) {
        throw new QuiverError(
          'INTERNAL',
          `quiver: embed returned ${vectors.length} vectors for ${cands.length + 1} texts`,
        );
      }
      const qv = vectors[0]!;
      cos = cands.map((_, i) => cosine(qv, vectors[i + 1]!));
    }
    cands.forEach((c, i) => {
      const lexical = lexicalCoverage(q, c.scoreTerms, idf);
      const similarity = cos?.[i] ?? null;
      let matched = 0;
      for (const t of c.scoreTerms) if (q.has(t)) matched++;
      const density = c.scoreTerms.size > 0 ? matched / c.scoreTerms.size : 0;
      const base =
        similarity === null
          ? lexical
          : (1 - DEFAULT_EMBED_WEIGHT) * lexical + DEFAULT_EMBED_WEIGHT * Math.max(0, similarity);
      c.eligible = lexical > floor || (similarity !== null && similarity >= embedFloor);
      c.score =
        base +
        DENSITY_WEIGHT * density +
        (c.position === 0 ? LEAD_BONUS : 0) +
        (covers(c.terms, c.titleTerms) ? SUBJECT_BONUS : 0) +
        (type !== null && hasAnswerType(type, c.text, asked) ? DEFAULT_ANSWER_TYPE_BONUS : 0) -
        (TERMINAL.test(c.text) ? 0 : FRAGMENT_PENALTY);
    });
  }

  function select(cands: Candidate[], q: ReadonlySet<string>): { c: Candidate; text: string }[] {
    const eligible = cands
      .filter((c) => c.eligible)
      .sort((a, b) => b.score - a.score || a.n - b.n || a.position - b.position);
    const top = eligible[0];
    // Sentences that are not eligible on their own may still follow a bridge to their section.
    const pool = [
      ...eligible,
      ...cands
        .filter((c) => !c.eligible)
        .sort((a, b) => b.score - a.score || a.n - b.n || a.position - b.position),
    ];
    if (top === undefined) return [];
    const minScore = relativeFloor * top.score;
    const chosen: Candidate[] = [];
    const perSection = new Map<number, number>();
    // Sections whose subject (title) a chosen sentence names: the next hop of a multi-hop question.
    const bridged = new Set<number>();
    const covered = new Set<string>();
    const titles = new Map(cands.map((c) => [c.n, c.titleTerms] as const));
    let used = 0;
    while (chosen.length < maxSentences) {
      let best: Candidate | null = null;
      let bestScore = -Infinity;
      for (const c of pool) {
        const bridge = bridged.has(c.n) && !perSection.has(c.n);
        if (
          (!c.eligible && !bridge) ||
          (c !== top && c.score < minScore && !bridge) ||
          chosen.includes(c) ||
          used + c.wordCount > maxWords
        )
          continue;
        if (chosen.some((x) => jaccard(x.wordSet, c.wordSet) >= repeatJaccard)) continue;
        // Question terms this sentence matches that the chosen ones do not: a repeat of what is
        // already said gains little (coverage, not repetition).
        let mine = 0;
        let fresh = 0;
        for (const t of c.terms) {
          if (!q.has(t)) continue;
          mine++;
          if (!covered.has(t)) fresh++;
        }
        const stale = chosen.length === 0 || mine === 0 ? 0 : 1 - fresh / mine;
        const adjusted =
          c.score -
          REDUNDANCY_PENALTY * stale -
          diversityPenalty * (perSection.get(c.n) ?? 0) +
          (bridge ? BRIDGE_BONUS : 0) -
          (LENGTH_PENALTY * Math.max(0, c.wordCount - LONG_SENTENCE_WORDS)) / LONG_SENTENCE_WORDS;
        if (adjusted > bestScore) {
          best = c;
          bestScore = adjusted;
        }
      }
      if (best === null) break;
      chosen.push(best);
      for (const t of best.terms) if (q.has(t)) covered.add(t);
      perSection.set(best.n, (perSection.get(best.n) ?? 0) + 1);
      for (const [n, t] of titles) if (n !== best.n && covers(best.terms, t)) bridged.add(n);
      used += best.wordCount;
    }
    if (chosen.length === 0) {
      // Every eligible sentence is longer than the word budget: cut the best one at a word.
      const cut = top.text.split(/\s+/u).slice(0, maxWords).join(' ');
      return [{ c: top, text: `${cut}${CUT_MARK}` }];
    }
    return chosen.sort((a, b) => a.n - b.n || a.position - b.position).map((c) => ({ c, text: labelled(c) }));
  }

  return {
    id,
    async generate(prompt: Prompt, generateOptions: GenerateOptions = {}): Promise<GenerateResult> {
      const { signal, onToken } = generateOptions;
      aborted(signal);
      const cands = candidates(prompt);
      await score(prompt, cands, signal);
      const verdict = verdictOf(prompt, cands);
      const chosen = verdict?.picked ?? select(cands, questionTerms(prompt.question));
      const disagreement = verdict === null ? bothSides(prompt, cands, chosen, maxSentences) : null;
      const picked = disagreement ?? chosen;
      const lead =
        verdict !== null
          ? `${verdict.verdict === 'yes' ? 'Yes' : 'No'}: `
          : disagreement !== null
            ? `${SOURCES_DISAGREE}: `
            : '';
      const pieces =
        picked.length === 0
          ? [NOT_IN_SOURCES]
          : picked.map((p, i) => `${i === 0 ? lead : ' '}${p.text} [${p.c.n}]`);
      if (onToken !== undefined) for (const piece of pieces) onToken(piece);
      const text = pieces.join('');
      return {
        text,
        usage: {
          promptTokens: estimateTokens(`${prompt.system}\n${prompt.user}`),
          completionTokens: estimateTokens(text),
        },
      };
    },
  };
}
