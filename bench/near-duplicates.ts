/**
 * Near-duplicate corpora for the selection benchmark: real passages (HotpotQA paragraphs, SciFact
 * abstracts) with verbatim and lightly edited copies of the gold passages injected, each copy its
 * own document with a distinct source id. Every passage records the passage it was made from
 * (`origin`), so a metric can count "distinct original passages".
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BeirSet } from '../src/evaluate/datasets/beir.js';

/** One passage of a benchmark corpus. */
export interface Passage {
  /** Source id, unique in the corpus (becomes the document's `source`). */
  id: string;
  title: string;
  text: string;
  /** Id of the original passage this one was made from (its own id for an original). */
  origin: string;
  /** How it was made: `original`, or the edit applied to the original. */
  edit: 'original' | CopyEdit;
}

/** The edits a copy may carry. */
export type CopyEdit = 'verbatim' | 'drop-sentence' | 'swap-words' | 'change-number';

/** The edit sequence for copies of one passage: the first is verbatim, then the edits cycle. */
export const COPY_EDITS: readonly CopyEdit[] = ['verbatim', 'drop-sentence', 'swap-words', 'change-number'];
/** Copies per gold passage: 2, 3 or 4, by the passage's position (so every count occurs). */
export const copiesFor = (position: number): number => 2 + (position % 3);

/** A query with its gold passages (original ids) and graded judgements. */
export interface BenchQuery {
  id: string;
  text: string;
  gold: string[];
  gains: Record<string, number>;
}

/** A corpus with queries; `origin` maps every passage id to its original's id. */
export interface BenchCorpus {
  name: string;
  passages: Passage[];
  queries: BenchQuery[];
  origin: Map<string, string>;
  text: Map<string, string>;
}

/** Park–Miller generator in [0, 1): deterministic, so every run injects the same copies. */
export function prng(seed: number): () => number {
  let x = Math.max(1, Math.floor(seed) % 2147483647);
  return () => (x = (x * 48271) % 2147483647) / 2147483647;
}

/** Sentences: split after `.`, `!` or `?` followed by whitespace (keeps the punctuation). */
export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+/u)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** Drop one sentence (never the only one; never the first when there are more than two). Null when there is one sentence. */
export function dropSentence(text: string, rnd: () => number): string | null {
  const s = sentences(text);
  if (s.length < 2) return null;
  const from = s.length > 2 ? 1 : 0;
  const i = from + Math.floor(rnd() * (s.length - from));
  return s.filter((_, j) => j !== i).join(' ');
}

/** Swap two adjacent distinct words (whitespace-separated). Null when there are fewer than two distinct adjacent words. */
export function swapWords(text: string, rnd: () => number): string | null {
  const w = text.split(/\s+/u).filter((x) => x !== '');
  const options = w.flatMap((x, i) => (i + 1 < w.length && x !== w[i + 1] ? [i] : []));
  if (options.length === 0) return null;
  const i = options[Math.floor(rnd() * options.length)]!;
  [w[i], w[i + 1]] = [w[i + 1]!, w[i]!];
  return w.join(' ');
}

/** Change one number (a run of digits) by adding 1–9 to it. Null when the text has no number. */
export function changeNumber(text: string, rnd: () => number): string | null {
  const found = [...text.matchAll(/\d+/gu)];
  if (found.length === 0) return null;
  const m = found[Math.floor(rnd() * found.length)]!;
  const changed = String(Number(m[0]) + 1 + Math.floor(rnd() * 9));
  return text.slice(0, m.index) + changed + text.slice(m.index + m[0].length);
}

/**
 * The text of a copy made with `edit`; an edit that does not apply (one sentence, no number) falls
 * back to the next edit in {@link COPY_EDITS} that does, ending at verbatim.
 */
export function applyEdit(text: string, edit: CopyEdit, rnd: () => number): { text: string; edit: CopyEdit } {
  const order: CopyEdit[] = [edit, ...COPY_EDITS.filter((e) => e !== edit && e !== 'verbatim'), 'verbatim'];
  for (const e of order) {
    const t =
      e === 'verbatim'
        ? text
        : e === 'drop-sentence'
          ? dropSentence(text, rnd)
          : e === 'swap-words'
            ? swapWords(text, rnd)
            : changeNumber(text, rnd);
    if (t !== null) return { text: t, edit: e };
  }
  return { text, edit: 'verbatim' };
}

/** `count` copies of `p` with ids `<id>~copy<n>`, the first verbatim, then the edits in turn. */
export function makeCopies(p: Passage, count: number, rnd: () => number): Passage[] {
  return Array.from({ length: count }, (_, n) => {
    const { text, edit } = applyEdit(p.text, COPY_EDITS[n % COPY_EDITS.length]!, rnd);
    return { id: `${p.id}~copy${n + 1}`, title: p.title, text, origin: p.id, edit };
  });
}

/** Add copies of the passages named in `gold` (2–4 each, see {@link copiesFor}) to `originals`. */
export function inject(originals: readonly Passage[], gold: ReadonlySet<string>, seed = 2024): Passage[] {
  const rnd = prng(seed);
  const out = [...originals];
  let position = 0;
  for (const p of originals) if (gold.has(p.id)) out.push(...makeCopies(p, copiesFor(position++), rnd));
  return out;
}

function corpusOf(name: string, passages: Passage[], queries: BenchQuery[]): BenchCorpus {
  return {
    name,
    passages,
    queries,
    origin: new Map(passages.map((p) => [p.id, p.origin] as const)),
    text: new Map(passages.map((p) => [p.id, p.text] as const)),
  };
}

interface HotpotItem {
  _id: string;
  question: string;
  supporting_facts: [string, number][];
  context: [string, string[]][];
}

/**
 * HotpotQA (distractor) as a retrieval corpus: the paragraphs of all questions pooled and keyed by
 * title (a title seen twice is one passage), each question's gold = its two supporting titles. With
 * `injectCopies`, 2–4 copies of every gold paragraph are added.
 */
export function hotpotCorpus(file: string, injectCopies: boolean): BenchCorpus {
  const items = JSON.parse(readFileSync(file, 'utf8')) as HotpotItem[];
  const byTitle = new Map<string, Passage>();
  for (const item of items) {
    for (const [title, sents] of item.context) {
      const id = `hp:${title}`;
      if (!byTitle.has(id))
        byTitle.set(id, {
          id,
          title,
          text: sents.join('').replace(/\s+/gu, ' ').trim(),
          origin: id,
          edit: 'original',
        });
    }
  }
  const queries = items.map((item) => {
    const gold = [...new Set(item.supporting_facts.map(([t]) => `hp:${t}`))].filter((id) => byTitle.has(id));
    return { id: item._id, text: item.question, gold, gains: Object.fromEntries(gold.map((g) => [g, 1])) };
  });
  const originals = [...byTitle.values()];
  const passages = injectCopies ? inject(originals, new Set(queries.flatMap((q) => q.gold))) : originals;
  return corpusOf(injectCopies ? 'hotpotqa+copies' : 'hotpotqa', passages, queries);
}

/**
 * A BEIR set (SciFact) as a corpus; gold = documents with a positive grade. With `injectCopies`,
 * 2–4 copies of every gold document of the split are added.
 */
export function beirCorpus(set: BeirSet, name: string, injectCopies: boolean): BenchCorpus {
  const originals: Passage[] = [];
  for (const line of readFileSync(set.corpusPath, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const o = JSON.parse(line) as { _id: string | number; title?: string; text?: string };
    const id = String(o._id);
    originals.push({
      id,
      title: o.title ?? '',
      text: (o.text ?? '').replace(/\s+/gu, ' ').trim(),
      origin: id,
      edit: 'original',
    });
  }
  const queries = set.queries.map((q) => {
    const gains = Object.fromEntries(
      [...(set.qrels.get(q.id) ?? new Map<string, number>())].filter(([, g]) => g > 0),
    );
    return { id: q.id, text: q.text, gold: Object.keys(gains), gains };
  });
  const passages = injectCopies ? inject(originals, new Set(queries.flatMap((q) => q.gold))) : originals;
  return corpusOf(injectCopies ? `${name}+copies` : name, passages, queries);
}

/** Distinct originals among the first min(k, n) ids / min(k, n); null for an empty list. */
export function uniqueOriginsAtK(
  ids: readonly string[],
  origin: ReadonlyMap<string, string>,
  k: number,
): number | null {
  const top = ids.slice(0, k);
  return top.length === 0 ? null : new Set(top.map((id) => origin.get(id) ?? id)).size / top.length;
}

/** The corpus as JSONL lines for `quiver add` (`{ id, title, text }`). */
export function toJsonl(passages: readonly Passage[]): string {
  return passages.map((p) => JSON.stringify({ id: p.id, title: p.title, text: p.text })).join('\n') + '\n';
}

/** The path of a data file under the HotpotQA folder. */
export const hotpotFile = (dataDir: string): string => join(dataDir, 'hotpot_dev_distractor_first50.json');
