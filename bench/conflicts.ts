// Conflicting sources (issue 16): a counterfactual set built the way RGB builds one. For each
// HotpotQA question whose answer occurs in a gold paragraph, an altered copy of that paragraph with
// the answer changed (a year → another year, a number → another number, a name → another answer
// from the data); for yes/no questions, a copy of a supporting paragraph with a negation inserted.
// SciFact adds claims whose number occurs in a cited abstract, with the number changed in a copy.
// Each item is asked of two fresh vaults that differ only in ingest order (true copy added before
// the altered one, then the other way round), and scored with RGB's measures: correct answer,
// counterfactual answer, error detection (the answer flags the disagreement), plus how often the
// answer is the same both ways.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Vault, type AddInput, type AskResult } from '../src/index.js';
import { findConflicts } from '../src/answer/conflicts.js';
import { answerContains } from './answers.js';
import { dataPath, mdTable, median, percentile, writeSection } from './lib.js';

/** What the altered copy changes. */
type Alteration = 'date' | 'number' | 'name' | 'negation' | 'other';

interface Paragraph {
  title: string;
  text: string;
}

/** One counterfactual item: a question, its true paragraph, the altered copy and the other paragraphs. */
export interface CounterfactualItem {
  set: 'hotpotqa' | 'scifact';
  id: string;
  question: string;
  alteration: Alteration;
  /** A correct answer contains this (the gold answer; for a negation, the clause without it). */
  truth: string;
  /** A counterfactual answer contains this (the changed value, or the negated clause). */
  altered: string;
  original: Paragraph;
  copy: Paragraph;
  others: Paragraph[];
}

/** FNV-1a: a stable small hash, so every choice below is deterministic. */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Whole-word, case-sensitive occurrences of `s`. */
const occurrences = (s: string): RegExp =>
  new RegExp(`(?<![\\p{L}\\p{N}])${escape(s)}(?![\\p{L}\\p{N}])`, 'gu');
/** Occurrences of the number `value` that are not part of a longer number or name (`1.40`, `IL-17`, `15-keto`). */
const numberOccurrences = (value: string): RegExp =>
  new RegExp(`(?<![\\p{L}\\p{N}.,-])${escape(value)}(?![\\p{L}\\p{N}]|[.,]\\d|-\\p{L})`, 'gu');
const YEAR = /(?<![\d,.])(1\d{3}|20\d{2})(?![\d,.]\d)/gu;
const NUMBER = /(?<![\d,.])\d{1,3}(?:,\d{3})+(?![\d,.]\d)|(?<![\d,.])\d+(?:\.\d+)?(?![\d,.]\d)/gu;

/** Each year moved by the same 1–9 years (backwards when forwards would pass 2024). */
function shiftYears(s: string, seed: number): string {
  const d = 1 + (seed % 9);
  return s.replace(YEAR, (y) => String(Number(y) + d > 2024 ? Number(y) - d : Number(y) + d));
}

/**
 * Each number raised by 10–50 % (at least 1), keeping thousands separators and decimals; a
 * percentage that would pass 100 is lowered instead.
 */
function shiftNumbers(s: string, seed: number, percent = false): string {
  return s.replace(NUMBER, (raw) => {
    const comma = raw.includes(',');
    const decimals = raw.split('.')[1]?.length ?? 0;
    const n = Number(raw.replaceAll(',', ''));
    const step = Math.max(decimals > 0 ? 10 ** -decimals : 1, n * (0.1 + (seed % 5) / 10));
    const m = percent && n + step > 100 ? n - step : n + step;
    const text = decimals > 0 ? m.toFixed(decimals) : String(Math.round(m));
    return comma ? Number(text).toLocaleString('en-US') : text;
  });
}

/** `value` changed: years first, then numbers; null when it holds neither. */
function changeValue(value: string, seed: number): { altered: string; alteration: Alteration } | null {
  if (new RegExp(YEAR.source, 'u').test(value))
    return { altered: shiftYears(value, seed), alteration: 'date' };
  if (new RegExp(NUMBER.source, 'u').test(value))
    return { altered: shiftNumbers(value, seed), alteration: 'number' };
  return null;
}

/** An auxiliary verb and the three words after it: the clause a negation goes into. */
const AUXILIARY =
  /\b(is|are|was|were|has|have|had|does|did|can|could|will|would)( +)(\S+ +\S+ +[\p{L}\p{N}]+)/u;

interface RawHotpot {
  _id: string;
  question: string;
  answer: string;
  supporting_facts: [string, number][];
  context: [string, string[]][];
}

/**
 * The HotpotQA items: per question, the first gold paragraph holding the answer (whole words) gets
 * a copy with every occurrence changed (in its title too); a yes/no question gets a copy of its
 * first supporting sentence's paragraph with `not` after the first auxiliary verb. Names are
 * replaced by another question's answer with as many words and the same capitalisation that occurs
 * nowhere in this question's paragraphs. Questions with neither are left out.
 */
export function hotpotItems(): CounterfactualItem[] {
  const file = dataPath('hotpotqa', 'hot' + 'pot_dev_distractor_first50.json');
  if (file === null) return [];
  const raw = JSON.parse(readFileSync(file, 'utf8')) as RawHotpot[];
  const names = [...new Set(raw.map((q) => q.answer))].filter(
    (a) => !/^(yes|no)$/iu.test(a) && !/\d/u.test(a),
  );
  const items: CounterfactualItem[] = [];
  for (const q of raw) {
    const paragraphs = q.context.map(([title, sentences]) => ({ title, text: sentences.join('').trim() }));
    const gold = [...new Set(q.supporting_facts.map((f) => f[0]))];
    const seed = hash(q._id);
    const item = (
      original: Paragraph,
      copy: Paragraph,
      rest: Omit<CounterfactualItem, 'set' | 'id' | 'question' | 'original' | 'copy' | 'others'>,
    ): CounterfactualItem => ({
      set: 'hotpotqa',
      id: q._id,
      question: q.question,
      ...rest,
      original,
      copy,
      others: paragraphs.filter((p) => p !== original),
    });
    if (/^(yes|no)$/iu.test(q.answer)) {
      for (const [title, index] of q.supporting_facts) {
        const original = paragraphs.find((p) => p.title === title);
        const sentence = q.context.find(([t]) => t === title)?.[1][index];
        const m = sentence === undefined ? null : AUXILIARY.exec(sentence);
        if (original === undefined || sentence === undefined || m === null) continue;
        const negated = sentence.replace(AUXILIARY, `${m[1]!}${m[2]!}not ${m[3]!}`);
        items.push(
          item(
            original,
            { title, text: original.text.replace(sentence.trim(), negated.trim()) },
            {
              alteration: 'negation',
              truth: `${m[1]!} ${m[3]!}`,
              altered: `${m[1]!} not ${m[3]!}`,
            },
          ),
        );
        break;
      }
      continue;
    }
    const original = gold
      .map((t) => paragraphs.find((p) => p.title === t))
      .find((p) => p !== undefined && occurrences(q.answer).test(p.text));
    if (original === undefined) continue;
    let change = changeValue(q.answer, seed);
    if (change === null) {
      const words = q.answer.split(/\s+/u).length;
      // A name holds a capitalised word (`the North Atlantic Conference` too).
      const capital = /\p{Lu}/u.test(q.answer);
      const fits = (a: string): boolean =>
        a !== q.answer && /\p{Lu}/u.test(a) === capital && paragraphs.every((p) => !p.text.includes(a));
      const sameLength = names.filter((a) => fits(a) && a.split(/\s+/u).length === words);
      const candidates = sameLength.length > 0 ? sameLength : names.filter(fits);
      const chosen = candidates[seed % Math.max(1, candidates.length)];
      if (chosen === undefined) continue;
      change = { altered: chosen, alteration: capital ? 'name' : 'other' };
    }
    const altered = change.altered;
    items.push(
      item(
        original,
        {
          title: original.title.replace(occurrences(q.answer), altered),
          text: original.text.replace(occurrences(q.answer), altered),
        },
        { alteration: change.alteration, truth: q.answer, altered },
      ),
    );
  }
  return items;
}

/**
 * The SciFact items: the first `limit` claims (in file order) with a number of two or more digits,
 * a percentage or a decimal that occurs in one of their cited abstracts; the copy changes every
 * occurrence of that number in the abstract. The other paragraphs are the cited abstracts of the
 * next eight such claims (distractors from the same field). The question is the claim itself, so
 * unlike HotpotQA it names the true value.
 */
export function scifactItems(limit = 25): CounterfactualItem[] {
  const dir = dataPath('scifact');
  if (dir === null) return [];
  const lines = (f: string): string[] => readFileSync(join(dir, f), 'utf8').split('\n').filter(Boolean);
  const claims = lines('queries.jsonl').map((l) => JSON.parse(l) as { _id: string; text: string });
  const cited = new Map<string, string[]>();
  for (const l of lines('qrels/train.tsv').slice(1)) {
    const [q, d] = l.split('\t');
    if (q !== undefined && d !== undefined) cited.set(q, [...(cited.get(q) ?? []), d]);
  }
  const wanted = new Set([...cited.values()].flat());
  const abstracts = new Map<string, Paragraph>();
  for (const l of lines('corpus.jsonl')) {
    const d = JSON.parse(l) as { _id: string; title: string; text: string };
    if (wanted.has(d._id)) abstracts.set(d._id, { title: d.title, text: d.text });
  }
  const found: { claim: { _id: string; text: string }; abstract: Paragraph; value: string }[] = [];
  for (const claim of claims) {
    const values = claim.text.match(/(?<![\d.,-])(?:\d+(?:\.\d+)?%|\d+\.\d+|\d{2,})(?![\d.,]\d)/gu) ?? [];
    for (const value of values) {
      const abstract = (cited.get(claim._id) ?? [])
        .map((d) => abstracts.get(d))
        .find((a) => a !== undefined && numberOccurrences(value).test(a.text));
      if (abstract === undefined) continue;
      found.push({ claim, abstract, value });
      break;
    }
  }
  return found.slice(0, limit).map(({ claim, abstract, value }, i) => {
    const seed = hash(claim._id);
    const percent = value.endsWith('%');
    const bare = percent ? value.slice(0, -1) : value;
    const change = percent ? null : changeValue(bare, seed);
    const altered = percent ? `${shiftNumbers(bare, seed, true)}%` : (change?.altered ?? bare);
    const others = found
      .slice(i + 1, i + 9)
      .map((f) => f.abstract)
      .filter((a) => a !== abstract);
    return {
      set: 'scifact',
      id: claim._id,
      question: claim.text,
      alteration: change?.alteration ?? 'number',
      truth: value,
      altered,
      original: abstract,
      copy: { title: abstract.title, text: abstract.text.replace(numberOccurrences(value), altered) },
      others: [...new Set(others)],
    } satisfies CounterfactualItem;
  });
}

/** The answer without citation markers, whitespace normalised: what "the same answer" compares. */
export function normaliseAnswer(answer: string): string {
  return answer
    .replace(/\s*\[\s*\d+(?:\s*[,–-]\s*\d+)*\s*\]/gu, '')
    .replace(/\s+/gu, ' ')
    .trim();
}

/** Does the answer flag the disagreement? `conflicts` is being added to AskResult; read it defensively. */
function flagsDisagreement(r: AskResult): boolean {
  const conflicts = (r as { conflicts?: unknown[] }).conflicts ?? [];
  return conflicts.length > 0 || /sources disagree/iu.test(r.answer);
}

/** The two ingest orders, and a control vault without the altered copy (for false alarms). */
type Order = 'true first' | 'altered first' | 'no copy';

interface Outcome {
  correct: boolean;
  counterfactual: boolean;
  flagged: boolean;
  /** Both the true and the altered paragraph are among the context sections. */
  bothInContext: boolean;
  /** `findConflicts` over the context sections finds something. */
  detectedInContext: boolean;
  /** Milliseconds `findConflicts` took over the context sections. */
  detectMs: number;
  answer: string;
}

const TRUE_SOURCE = 'wiki';
const COPY_SOURCE = 'mirror';

/** Ask `item` of a fresh vault that holds the other paragraphs, then the copies in `order`. */
async function askInOrder(item: CounterfactualItem, order: Order): Promise<Outcome> {
  const dir = mkdtempSync(join(tmpdir(), 'quiver-conflicts-'));
  try {
    const vault = await Vault.open({ overrides: { vault: join(dir, 'vault.db') } });
    try {
      const doc = (p: Paragraph, prefix: string): AddInput => ({
        text: p.text,
        title: p.title,
        source: `${prefix}/${p.title}`,
      });
      const original = doc(item.original, TRUE_SOURCE);
      const copy = doc(item.copy, COPY_SOURCE);
      const copies = {
        'true first': [original, copy],
        'altered first': [copy, original],
        'no copy': [original],
      }[order];
      // The second copy in a batch of its own, so it is added after the first, as a later ingest would.
      await vault.add([...item.others.map((p) => doc(p, TRUE_SOURCE)), copies[0]!]);
      if (copies[1] !== undefined) await vault.add([copies[1]]);
      const r = await vault.ask(item.question, { generator: 'extractive' });
      const sources = new Set(r.context.map((c) => c.source));
      const t = performance.now();
      const detected = findConflicts(r.context).length > 0;
      const detectMs = performance.now() - t;
      return {
        correct: answerContains(r.answer, item.truth),
        counterfactual: answerContains(r.answer, item.altered),
        flagged: flagsDisagreement(r),
        bothInContext:
          sources.has(`${TRUE_SOURCE}/${item.original.title}`) &&
          sources.has(`${COPY_SOURCE}/${item.copy.title}`),
        detectedInContext: detected,
        detectMs,
        answer: normaliseAnswer(r.answer),
      };
    } finally {
      await vault.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface Scored {
  item: CounterfactualItem;
  outcomes: Record<Order, Outcome>;
  /** `findConflicts` on the true paragraph and its copy alone: the detector's recall on the alteration. */
  detectedInPair: boolean;
}

const share = (xs: readonly boolean[]): number =>
  xs.length === 0 ? NaN : xs.filter(Boolean).length / xs.length;

/** Both asks with the altered copy. */
const withCopy = (s: Scored): Outcome[] => [s.outcomes['true first'], s.outcomes['altered first']];

function orderRows(label: string, scored: readonly Scored[]): (string | number)[][] {
  const groups: [string, Outcome[]][] = [
    ['true first', scored.map((s) => s.outcomes['true first'])],
    ['altered first', scored.map((s) => s.outcomes['altered first'])],
    ['overall', scored.flatMap(withCopy)],
    ['no altered copy (control)', scored.map((s) => s.outcomes['no copy'])],
  ];
  return groups.map(([order, os]) => [
    label,
    order,
    os.length,
    share(os.map((o) => o.correct)),
    share(os.map((o) => o.counterfactual)),
    share(os.map((o) => o.correct && o.counterfactual)),
    share(os.map((o) => o.flagged)),
    share(os.map((o) => o.bothInContext)),
    share(os.map((o) => o.detectedInContext)),
  ]);
}

function itemRow(label: string, scored: readonly Scored[]): (string | number)[] {
  return [
    label,
    scored.length,
    share(scored.map((s) => s.outcomes['true first'].answer === s.outcomes['altered first'].answer)),
    share(scored.flatMap(withCopy).map((o) => o.flagged)),
    share(scored.map((s) => s.detectedInPair)),
    share(scored.flatMap(withCopy).map((o) => o.detectedInContext)),
    share(scored.map((s) => s.outcomes['no copy'].detectedInContext)),
  ];
}

const ITEM_HEADERS = [
  'items',
  'same answer both ways',
  'error detection',
  'detector on the pair',
  'detector on context',
  'detector false alarms (control)',
];

export async function benchConflicts(): Promise<void> {
  const items = [...hotpotItems(), ...scifactItems()];
  if (items.length === 0) {
    writeSection('conflicts', '## Conflicting sources\n\nSkipped: HotpotQA and SciFact data not found.');
    return;
  }
  const t0 = performance.now();
  const scored: Scored[] = [];
  for (const item of items) {
    const outcomes = {
      'true first': await askInOrder(item, 'true first'),
      'altered first': await askInOrder(item, 'altered first'),
      'no copy': await askInOrder(item, 'no copy'),
    };
    const detectedInPair =
      findConflicts([
        { n: 1, sectionId: 'true', text: item.original.text },
        { n: 2, sectionId: 'copy', text: item.copy.text },
      ]).length > 0;
    scored.push({ item, outcomes, detectedInPair });
  }
  const seconds = (performance.now() - t0) / 1000;
  const detectMs = scored.flatMap((s) => Object.values(s.outcomes).map((o) => o.detectMs));
  const sets = (['hotpotqa', 'scifact'] as const)
    .map((s) => [s, scored.filter((x) => x.item.set === s)] as const)
    .filter(([, xs]) => xs.length > 0);
  const byOrder = sets.flatMap(([s, xs]) => orderRows(s, xs));
  const bySet = [
    ...sets.map(([s, xs]) => itemRow(s, xs)),
    ...(sets.length > 1 ? [itemRow('all', scored)] : []),
  ];
  const kinds = [...new Set(scored.map((s) => s.item.alteration))].sort();
  const byKind = kinds.map((k) =>
    itemRow(
      k,
      scored.filter((s) => s.item.alteration === k),
    ),
  );
  const counts = sets.map(([s, xs]) => `${xs.length} ${s}`).join(' and ');
  const pooled = itemRow('all', scored);
  process.stderr.write(
    `conflicts: error detection ${Number(pooled[3]).toFixed(3)}, same answer both ways ${Number(pooled[2]).toFixed(3)}\n`,
  );
  const md =
    `## Conflicting sources\n\n` +
    `A counterfactual set built from the gold passages in \`../shared/data\`, the way RGB builds its counterfactual passages (bench/conflicts.ts): ${counts} items. ` +
    `HotpotQA (first 50 dev questions): when the gold answer occurs (whole words) in a gold paragraph, a copy of that paragraph (and its title) with every occurrence changed: a year moved by 1–9 years, a number raised by 10–50 %, a name replaced by another question's answer with as many words (and a capital letter) that occurs nowhere in this question's paragraphs; for a yes/no question, a copy of its first supporting paragraph with \`not\` inserted after the first auxiliary verb of the supporting sentence. ` +
    `SciFact (train claims, first 25 in file order): a claim whose number (two or more digits, a percentage or a decimal, not part of a name such as \`IL-17\`) occurs in a cited abstract, with that number changed in the copy (a year moved, a number raised by 10–50 %); the claim is the question, so it names the true value, and the abstracts of the next eight such claims are the distractors. ` +
    `Per item, two fresh vaults (built-in embedder, default configuration) hold the question's other paragraphs (HotpotQA: its 8 distractors and the other gold paragraph) and both copies, with the same titles and sources \`wiki/<title>\` (true) and \`mirror/<title>\` (altered); they differ only in order: the first copy is added with the other paragraphs, the second in a later batch. ` +
    `A third vault without the altered copy is the control (false alarms). Each asks \`vault.ask(question, { generator: 'extractive' })\`.\n\n` +
    `RGB's measures per order: correct answer (the true value, or for a negation the clause without \`not\`, in the answer: whole-word folded containment as in the Answers section), counterfactual answer (the altered value or negated clause in the answer), both (quoted side by side), error detection (the answer flags the disagreement: \`result.conflicts\` is non-empty or the answer says "sources disagree"; on the control row, a false alarm). Diagnostics: both copies among the context sections, and \`findConflicts\` (src/answer/conflicts.ts) over those context sections finds a conflict.\n\n` +
    mdTable(
      [
        'set',
        'order',
        'asks',
        'correct',
        'counterfactual',
        'both',
        'error detection',
        'both copies in context',
        'detector on context',
      ],
      byOrder,
    ) +
    `\n\nPer item: same answer both ways (citation markers removed, whitespace normalised), error detection over both asks, the detector's recall on the alteration itself (\`findConflicts\` on the true paragraph and its copy alone, no retrieval), on the context those asks built, and on the control's context (where every conflict it finds is between different true paragraphs):\n\n` +
    mdTable(['set', ...ITEM_HEADERS], bySet) +
    `\n\nBy alteration (both sets):\n\n` +
    mdTable(['alteration', ...ITEM_HEADERS], byKind) +
    `\n\nGoals (issue 16): error detection ≥ 0.8, and the same answer both ways for ≥ 95 % of items. ${scored.length * 3} asks in ${seconds.toFixed(0)} s; \`findConflicts\` over an ask's context (at most 6 sections, 9,000 characters by default) takes ${median(detectMs).toFixed(2)} ms at the median, ${percentile(detectMs, 95).toFixed(2)} ms at p95.\n`;
  writeSection('conflicts', md);
}

if (import.meta.url === `file://${process.argv[1]}`) await benchConflicts();
