/**
 * Conflicting sources: two sentences from different context sections that make the same statement
 * with a different value (a number, a date, a name) or with a negation on one side only, the way a
 * counterfactual passage (RGB) differs from the true one. Pure; no I/O.
 */
import { NEGATIONS, STOPWORDS } from '../text/stopwords.js';
import { fold } from '../text/tokens.js';
import { splitSentences } from './sentences.js';

/** One side of a conflict: the sentence and, inside it, the words that differ from the other side. */
export interface ConflictSide {
  /** The context number of the section (`[n]`). */
  n: number;
  sectionId: string;
  /** The sentence as `splitSentences` returned it. */
  sentence: string;
  /** `sentence.slice(spanStart, spanEnd)`: the differing words; empty on the side without the negation. */
  span: string;
  spanStart: number;
  spanEnd: number;
}

/** Two sentences of different sections that state different values for the same thing; sides ordered by `n`. */
export interface Conflict {
  sides: [ConflictSide, ConflictSide];
  kind: 'number' | 'date' | 'name' | 'negation' | 'other';
}

/** A conflicting pair shares at least this many words (outside the differing region). */
export const CONFLICT_MIN_SHARED_WORDS = 5;
/** … and at least this share of the longer sentence's words. */
export const CONFLICT_MIN_SHARED_RATIO = 0.7;
/** The differing region is at most this many words on each side. */
export const CONFLICT_MAX_SPAN_WORDS = 4;

type ValueKind = 'number' | 'date' | 'name';

/** A word of a sentence: its folded, normalised form, its offsets in the sentence, and the value it holds. */
interface Word {
  norm: string;
  /** `norm` interned to a number, so comparing two words is one integer comparison. */
  id: number;
  start: number;
  end: number;
  value: ValueKind | null;
  negation: boolean;
}

/** A number with separators (`1.5`, `3,677`) first, else a run of letters and digits with an inner apostrophe. */
const WORD = /\p{N}+(?:[.,]\p{N}+)+|[\p{L}\p{N}]+(?:['’]\p{L}+)?/gu;
/** Citation markers (`[2]`, `[1, 3]`, `[1-3]`): their digits are not words of the statement. */
const CITATION = /\[\s*\d+(?:\s*[,–-]\s*\d+)*\s*\]/gu;
// eslint-disable-next-line no-control-regex -- the range of ASCII starts at NUL
const ASCII = /^[\x00-\x7f]*$/u;
const CAPITAL = /^\p{Lu}/u;
const APOSTROPHE = /['’]/u;
/** A year 1000–2099, and a decade (`1990s`). */
const YEAR = /^(?:1\d{3}|20\d{2})$/u;
const DECADE = /^(?:1\d{3}|20\d{2})s$/u;
/** `isn't`, `don't`, `can't`: the verb, then `n't` read as `not`. */
const NT = /^(\p{L}+)n['’]t$/iu;
/** The verb of a contraction whose stem is not the verb itself. */
const NT_VERBS: ReadonlyMap<string, string> = new Map([
  ['ca', 'can'],
  ['wo', 'will'],
  ['sha', 'shall'],
]);

/** `1st`, `2nd`, `3rd`, `4th`, … `11th`, `12th`. */
function ordinal(i: number): string {
  const suffix =
    i % 10 === 1 && i !== 11
      ? 'st'
      : i % 10 === 2 && i !== 12
        ? 'nd'
        : i % 10 === 3 && i !== 13
          ? 'rd'
          : 'th';
  return `${i}${suffix}`;
}

/** Number words and their values; ordinals read as `1st`, `2nd`, … so that `third` = `3rd`. */
const NUMBER_WORDS: ReadonlyMap<string, string> = new Map([
  ...'zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen'
    .split(' ')
    .map((w, i) => [w, String(i)] as const),
  ...'twenty thirty forty fifty sixty seventy eighty ninety'
    .split(' ')
    .map((w, i) => [w, String((i + 2) * 10)] as const),
  ['hundred', '100'],
  ['thousand', '1000'],
  ['million', '1000000'],
  ['billion', '1000000000'],
  ['dozen', '12'],
  ...'first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth'
    .split(' ')
    .map((w, i) => [w, ordinal(i + 1)] as const),
]);

/** Month and weekday names (full and abbreviated); they count only when capitalised (`May`, not `may`). */
const CALENDAR: ReadonlySet<string> = new Set(
  (
    'january february march april may june july august september october november december ' +
    'jan feb mar apr jun jul aug sep sept oct nov dec ' +
    'monday tuesday wednesday thursday friday saturday sunday'
  ).split(' '),
);

/** The canonical value of a number word or numeral (`3,677` → `3677`, `1.50` → `1.5`, `twelve` → `12`), else null. */
function numberValue(folded: string): string | null {
  const first = folded.charCodeAt(0);
  if (!(first >= 48 && first <= 57)) return NUMBER_WORDS.get(folded) ?? null;
  if (/^\d+(?:st|nd|rd|th)$/u.test(folded)) return folded.replace(/^0+(?=\d)/u, '');
  const plain = /^\d{1,3}(?:,\d{3})+(?:\.\d+)?$/u.test(folded) ? folded.replaceAll(',', '') : folded;
  if (!/^\d+(?:\.\d+)?$/u.test(plain)) return null;
  // Beyond 15 digits a double would merge different numbers: keep the digits.
  return plain.length > 15 ? plain.replace(/^0+(?=\d)/u, '') : String(Number(plain));
}

/** A word before its value kind is known. */
interface Piece {
  norm: string;
  start: number;
  end: number;
  capital: boolean;
  /** A number word or numeral. */
  number: boolean;
  /** Written with digits (`1990`, not `thousand`): only these can be years. */
  numeral: boolean;
}

/** A capitalised month or weekday name. */
function isCalendar(p: Piece | undefined): boolean {
  return p !== undefined && p.capital && CALENDAR.has(p.norm);
}

function insideAny(ranges: readonly RegExpExecArray[], at: number): boolean {
  for (const r of ranges) if (at >= r.index && at < r.index + r[0].length) return true;
  return false;
}

/**
 * The words of `sentence` with their offsets. Words are case- and accent-folded; `n't` and the
 * `not` of `cannot` become words of their own (`not`), so `isn't` and `is not` read the same;
 * numbers read as their value (`twelve` = `12`, `3,677` = `3677`); citation markers are skipped.
 */
function sentenceWords(sentence: string, intern: Map<string, number>): Word[] {
  const cited = sentence.includes('[') ? [...sentence.matchAll(CITATION)] : [];
  // ASCII text (most of it) needs no accent folding and has only A–Z as capitals.
  const ascii = ASCII.test(sentence);
  const pieces: Piece[] = [];
  WORD.lastIndex = 0;
  for (let m = WORD.exec(sentence); m !== null; m = WORD.exec(sentence)) {
    const start = m.index;
    if (cited.length > 0 && insideAny(cited, start)) continue;
    const text = m[0];
    const end = start + text.length;
    const c = text.charCodeAt(0);
    const capital = ascii ? c >= 65 && c <= 90 : CAPITAL.test(text);
    const folded = ascii || ASCII.test(text) ? text.toLowerCase() : fold(text);
    const nt = text.length > 3 && APOSTROPHE.test(text) ? NT.exec(text) : null;
    const cut = nt !== null ? nt[1]!.length : folded === 'cannot' ? 3 : 0;
    if (cut === 0) {
      const value = numberValue(folded);
      pieces.push({
        norm: value ?? folded,
        start,
        end,
        capital,
        number: value !== null,
        numeral: c >= 48 && c <= 57,
      });
    } else {
      const verb = folded.slice(0, cut);
      pieces.push({
        norm: NT_VERBS.get(verb) ?? verb,
        start,
        end: start + cut,
        capital,
        number: false,
        numeral: false,
      });
      pieces.push({ norm: 'not', start: start + cut, end, capital: false, number: false, numeral: false });
    }
  }
  const words: Word[] = [];
  for (let i = 0; i < pieces.length; i++) {
    const { norm, start, end, capital, number, numeral } = pieces[i]!;
    const negation = NEGATIONS.has(norm);
    let value: ValueKind | null = null;
    if (
      isCalendar(pieces[i]) ||
      (number && ((numeral && YEAR.test(norm)) || isCalendar(pieces[i - 1]) || isCalendar(pieces[i + 1])))
    )
      value = 'date';
    else if (number) value = 'number';
    else if (numeral && DECADE.test(norm)) value = 'date';
    else if (capital && !STOPWORDS.has(norm) && !negation) value = 'name';
    let id = intern.get(norm);
    if (id === undefined) intern.set(norm, (id = intern.size));
    words.push({ norm, id, start, end, value, negation });
  }
  return words;
}

/** The values of one kind in a region, sorted (a multiset). */
function values(region: readonly Word[], kind: ValueKind | null): string[] {
  return region
    .filter((w) => (kind === null ? w.value !== null : w.value === kind))
    .map((w) => w.norm)
    .sort();
}

/** Both regions hold a value of `kind` and the values differ (as multisets, so reordering is not a change). */
function valueChanged(a: readonly Word[], b: readonly Word[], kind: ValueKind | null): boolean {
  const x = values(a, kind);
  const y = values(b, kind);
  return x.length > 0 && y.length > 0 && x.join('\u0000') !== y.join('\u0000');
}

/** The content words of a region that hold no value: they must match for the regions to say the same thing. */
function plainWords(region: readonly Word[]): string {
  return region
    .filter((w) => w.value === null && !w.negation && !STOPWORDS.has(w.norm))
    .map((w) => w.norm)
    .sort()
    .join('\u0000');
}

function classify(a: readonly Word[], b: readonly Word[]): Conflict['kind'] | null {
  if (plainWords(a) !== plainWords(b)) return null;
  if (valueChanged(a, b, 'date')) return 'date';
  if (valueChanged(a, b, 'number')) return 'number';
  if (valueChanged(a, b, 'name')) return 'name';
  const negations = (r: readonly Word[]): number => r.filter((w) => w.negation).length;
  if (negations(a) !== negations(b)) return 'negation';
  if (valueChanged(a, b, null)) return 'other';
  return null;
}

/** Character offsets of words `from..to` (exclusive); an empty region sits at the start of the next word. */
function spanOf(words: readonly Word[], from: number, to: number): [number, number] {
  if (from < to) return [words[from]!.start, words[to - 1]!.end];
  const at = words[from]?.start ?? words[from - 1]?.end ?? 0;
  return [at, at];
}

type SentenceConflict = { kind: Conflict['kind']; a: [number, number]; b: [number, number] };

/** The differing regions as word indices: words `p..endA` of a and `p..endB` of b. */
type WordConflict = { kind: Conflict['kind']; p: number; endA: number; endB: number };

function compareWords(wa: readonly Word[], wb: readonly Word[]): WordConflict | null {
  const la = wa.length;
  const lb = wb.length;
  if (Math.abs(la - lb) > CONFLICT_MAX_SPAN_WORDS || Math.min(la, lb) < CONFLICT_MIN_SHARED_WORDS)
    return null;
  let p = 0;
  while (p < la && p < lb && wa[p]!.id === wb[p]!.id) p++;
  if (p === la && p === lb) return null;
  let s = 0;
  while (s < la - p && s < lb - p && wa[la - 1 - s]!.id === wb[lb - 1 - s]!.id) s++;
  const shared = p + s;
  if (shared < CONFLICT_MIN_SHARED_WORDS || shared < CONFLICT_MIN_SHARED_RATIO * Math.max(la, lb))
    return null;
  const ra = wa.slice(p, la - s);
  const rb = wb.slice(p, lb - s);
  if (ra.length > CONFLICT_MAX_SPAN_WORDS || rb.length > CONFLICT_MAX_SPAN_WORDS) return null;
  const kind = classify(ra, rb);
  if (kind === null) return null;
  return { kind, p, endA: la - s, endB: lb - s };
}

/**
 * Do sentences `a` and `b` state the same thing with a different value? Returns the kind of
 * difference and the character offsets (`[start, end)`) of the differing words in each, else null.
 *
 * The rule: fold both into words (case and accents folded; `n't` and `cannot` give a word `not`;
 * numerals and number words read as their value, so `twelve` = `12`; citation markers `[n]` are
 * skipped). Let p be the length of the common prefix and s of the common suffix (not overlapping
 * it), and shared = p + s. They conflict when
 *   shared ≥ CONFLICT_MIN_SHARED_WORDS (5) and shared ≥ CONFLICT_MIN_SHARED_RATIO (0.7) × max(|a|, |b|),
 *   the remaining region of each side has ≤ CONFLICT_MAX_SPAN_WORDS (4) words, and
 *   the regions hold the same content words apart from values and negations (as multisets,
 *   stop-words ignored: `the arena number 3` / `the bridge number 5` is about another thing), and
 *   the regions differ by a value, tested in this order:
 *   - date: both regions hold a date word (a capitalised month or weekday, a year 1000–2099 or a
 *     decade `1990s`, a number next to a capitalised month) and these differ;
 *   - number: both hold a number (`12`, `1.5`, `3,677`, `twelve`, `3rd`, `third`) and these differ;
 *   - name: both hold a capitalised word that is not a stop-word (`Paris`/`Lyon`, the `Waters` of
 *     `John Waters`/`John Smith`) and these differ;
 *   - negation: one region holds more negation words (`not`, `no`, `never`, `none`, `nor`,
 *     `neither`, `without`, `cannot`, `n't`) than the other; only here may a region be empty;
 *   - other: both hold value words, of different kinds (`in 1990` / `in Paris`).
 * Values compare as multisets, so reordering them (`March 22` / `22 March`) is no change.
 * A prefix and a suffix are one region per side by construction: sentences that differ in two
 * places farther apart than 4 words are not the same statement.
 *
 * Edge cases: identical sentences (after folding), a sentence against itself, and empty or blank
 * sentences → null; a reworded or stop-word change (`film`/`movie`, `the`/`a`) → null; a negation
 * that comes with a reworded verb (`did not win` / `won`) → null; a value
 * word added on one side only (`born in 1990` / `born`) → null; sentences under 5 words never
 * conflict. A capitalised first word counts as a name, so `Recently, …`/`Later, …` reads as a name
 * change. Symmetric: swapping `a` and `b` swaps the spans.
 * @example sentenceConflict('Paris is the capital of France.', 'Lyon is the capital of France.')
 * // { kind: 'name', a: [0, 5], b: [0, 4] }
 */
export function sentenceConflict(a: string, b: string): SentenceConflict | null {
  const intern = new Map<string, number>();
  const wa = sentenceWords(a, intern);
  const wb = sentenceWords(b, intern);
  const c = compareWords(wa, wb);
  return c === null ? null : { kind: c.kind, a: spanOf(wa, c.p, c.endA), b: spanOf(wb, c.p, c.endB) };
}

/** One sentence of one section. */
interface Occurrence {
  n: number;
  sectionId: string;
  sentence: string;
  words: Word[];
}

/** Sentences with the same words and value kinds: they compare alike with any other sentence. */
interface Form {
  words: Word[];
  occurrences: Occurrence[];
}

function side(o: Occurrence, [spanStart, spanEnd]: [number, number]): ConflictSide {
  return {
    n: o.n,
    sectionId: o.sectionId,
    sentence: o.sentence,
    span: o.sentence.slice(spanStart, spanEnd),
    spanStart,
    spanEnd,
  };
}

function cmp(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}

function byPosition(x: Pick<Occurrence, 'n' | 'sectionId' | 'sentence'>, y: typeof x): number {
  return x.n - y.n || cmp(x.sectionId, y.sectionId) || cmp(x.sentence, y.sentence);
}

function byConflict(p: Conflict, q: Conflict): number {
  const [p0, p1] = p.sides;
  const [q0, q1] = q.sides;
  return (
    byPosition(p0, q0) || byPosition(p1, q1) || p0.spanStart - q0.spanStart || p1.spanStart - q1.spanStart
  );
}

/**
 * The conflicting statements among `sections`: every pair of sentences (by `splitSentences`) from
 * two different sections (different `sectionId`) for which {@link sentenceConflict} finds a value
 * difference, once per pair, with sides ordered by `n` (then section id, then sentence).
 *
 * Cost: sentences with the same words are compared once (a near-copy of a section adds
 * occurrences, not comparisons), and only pairs that share their first three or their last three
 * words are compared at all: shared = p + s ≥ 5 implies p ≥ 3 or s ≥ 3, so this prefilter loses
 * nothing. The result is sorted by the sides' `n`, section ids and sentences, so it does not depend
 * on the order of `sections`. A sentence repeated in one section gives one conflict; sentences of
 * one section are never compared. No sections, or one → [].
 * @example findConflicts([
 *   { n: 1, sectionId: 'a#1', text: 'The arena can seat 3,677 people.' },
 *   { n: 2, sectionId: 'b#1', text: 'The arena can seat 4,120 people.' },
 * ]) // one conflict of kind 'number', spans '3,677' and '4,120'
 */
export function findConflicts(
  sections: readonly { n: number; sectionId: string; text: string }[],
): Conflict[] {
  const intern = new Map<string, number>();
  const byWords = new Map<string, Form>();
  for (const s of sections)
    for (const sentence of splitSentences(s.text)) {
      const words = sentenceWords(sentence, intern);
      if (words.length < CONFLICT_MIN_SHARED_WORDS) continue;
      const k = words.map((w) => `${w.id}${w.value?.[0] ?? ''}`).join(' ');
      const occurrence = { n: s.n, sectionId: s.sectionId, sentence, words };
      const form = byWords.get(k);
      if (form === undefined) byWords.set(k, { words, occurrences: [occurrence] });
      else form.occurrences.push(occurrence);
    }
  const forms = [...byWords.values()];
  const key = (ws: readonly Word[]): string => ws.map((w) => w.id).join(' ');
  const heads = forms.map((f) => key(f.words.slice(0, 3)));
  const buckets = new Map<string, number[]>();
  const put = (k: string, i: number): void => {
    const list = buckets.get(k);
    if (list === undefined) buckets.set(k, [i]);
    else list.push(i);
  };
  forms.forEach((f, i) => {
    put(`^${heads[i]!}`, i);
    put(`$${key(f.words.slice(-3))}`, i);
  });
  const found = new Map<string, Conflict>();
  for (const [bucket, list] of buckets)
    for (let i = 0; i < list.length; i++)
      for (let j = i + 1; j < list.length; j++) {
        // A pair sharing both its head and its tail sits in two buckets: compare it in the head one.
        if (bucket.startsWith('$') && heads[list[i]!] === heads[list[j]!]) continue;
        const fa = forms[list[i]!]!;
        const fb = forms[list[j]!]!;
        const c = compareWords(fa.words, fb.words);
        if (c === null) continue;
        for (const oa of fa.occurrences)
          for (const ob of fb.occurrences) {
            if (oa.sectionId === ob.sectionId) continue;
            const sa = side(oa, spanOf(oa.words, c.p, c.endA));
            const sb = side(ob, spanOf(ob.words, c.p, c.endB));
            const sides: [ConflictSide, ConflictSide] = byPosition(oa, ob) <= 0 ? [sa, sb] : [sb, sa];
            const id = JSON.stringify(sides.map((x) => [x.n, x.sectionId, x.sentence]));
            if (!found.has(id)) found.set(id, { sides, kind: c.kind });
          }
      }
  return [...found.values()].sort(byConflict);
}
