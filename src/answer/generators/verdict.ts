/**
 * Yes/no verdicts for questions that ask whether two or more named things share a property ("Are
 * Giuseppe Verdi and Ambroise Thomas both opera composers?"). The extractive generator quotes
 * sentences; the gold answer is "yes" or "no", which no sentence says. A verdict is given only when
 * the quoted sentences state it: each thing's sentence holds the property (yes), or one holds a
 * named value of it that another's lacks (no: "located in Michigan" for one airport, Nevada for the
 * other). Otherwise no verdict, and the answer is the quoted sentences alone. Pure.
 */
import { contentTerms, stem } from '../../text/tokens.js';

/** A question that expects yes or no: it opens with an auxiliary verb. */
const YES_NO = /^\s*(?:are|is|was|were|do|does|did|has|have|had|can|could)\b/iu;
/** The property is claimed of each of them ("both", "all", "each"). */
const EACH = /\b(?:both|all|each)\b/iu;
/** Words that frame the property rather than state it ("both types of plant", "located in"). */
const FRAME = new Set(
  ['type', 'types', 'kind', 'kinds', 'sort', 'located', 'described', 'considered'].map(stem),
);

/** One candidate sentence the verdict may quote: its section number, title and text. */
export interface VerdictSentence {
  n: number;
  title: string;
  text: string;
}

export interface Verdict {
  verdict: 'yes' | 'no';
  /** The sentence quoted for each thing, in question order. */
  quoted: VerdictSentence[];
}

/** True for a question answered by yes or no. */
export function isYesNoQuestion(question: string): boolean {
  return YES_NO.test(question);
}

/**
 * The verdict for "Are A and B both P?", from the sentences of the sections about A and B.
 *
 * The things are the sections whose title terms (a bracketed qualifier such as `(film)` left out)
 * all occur in the question, at least two distinct titles; a title inside another one is the
 * same thing and the longer one is kept. The property P is the question's content terms minus the things' title terms and frame
 * words; its named part N is the words of P written with a capital inside the question
 * ("American", "Michigan"), the rest C. A thing's support is its best sentence (its title's terms
 * counted as the sentence's): yes when every thing has a sentence holding all of N and at least
 * half of C; no when some thing has one holding all of N and half of C while another thing has no
 * sentence holding N (a different named value); otherwise null. Ties between sentences go to the
 * earliest. Edge cases: not a yes/no question, no "both"/"all"/"each", fewer than two things, or an
 * empty P → null; "no" needs N non-empty (an unnamed property missing from a sentence is not said
 * to be absent).
 */
export function comparisonVerdict(question: string, sentences: readonly VerdictSentence[]): Verdict | null {
  if (!isYesNoQuestion(question) || !EACH.test(question)) return null;
  const asked = new Set(contentTerms(question));
  const byTitle = new Map<string, VerdictSentence[]>(); // keyed by the title without its qualifier
  for (const s of sentences) {
    // A qualifier in brackets (`Freakonomics (film)`) tells same-named pages apart; the question
    // names the thing without it.
    const t = new Set(contentTerms(s.title.replace(/\s*\([^)]*\)\s*$/u, '')));
    if (t.size === 0 || ![...t].every((x) => asked.has(x))) continue;
    const key = s.title.replace(/\s*\([^)]*\)\s*$/u, '');
    const list = byTitle.get(key) ?? [];
    list.push(s);
    byTitle.set(key, list);
  }
  // A title inside another (`Hackers` in `In the Realm of the Hackers`) is not a thing of its own.
  const lower = question.toLowerCase();
  const at = (t: string): number => {
    const i = lower.indexOf(t.toLowerCase());
    return i < 0 ? lower.length : i;
  };
  const titles = [...byTitle.keys()]
    .filter((t) => ![...byTitle.keys()].some((o) => o !== t && o.toLowerCase().includes(t.toLowerCase())))
    .sort((a, b) => at(a) - at(b));
  if (titles.length < 2) return null;
  const entity = new Set(titles.flatMap((t) => contentTerms(t)));
  const property = [...asked].filter((t) => !entity.has(t) && !FRAME.has(t));
  if (property.length === 0) return null;
  const named = new Set(
    (question.replace(/^\s*\S+\s*/u, '').match(/\b\p{Lu}[\p{L}\p{N}'’-]*/gu) ?? [])
      .map((w) => stem(w.toLowerCase().replace(/['’].*$/u, '')))
      .filter((t) => property.includes(t)),
  );
  const common = property.filter((t) => !named.has(t));
  const support = titles.map((title) => {
    const titleTerms = contentTerms(title);
    let best: { s: VerdictSentence; named: boolean; common: number } | null = null;
    for (const s of byTitle.get(title)!) {
      const terms = new Set([...contentTerms(s.text), ...titleTerms]);
      const hasNamed = [...named].every((t) => terms.has(t));
      const share = common.length === 0 ? 1 : common.filter((t) => terms.has(t)).length / common.length;
      const better =
        best === null ||
        Number(hasNamed) > Number(best.named) ||
        (hasNamed === best.named && share > best.common);
      if (better) best = { s, named: hasNamed, common: share };
    }
    return best!;
  });
  const holds = (x: (typeof support)[number]): boolean => x.named && x.common >= 0.5;
  if (support.every(holds)) return { verdict: 'yes', quoted: support.map((x) => x.s) };
  if (named.size > 0 && support.some(holds) && support.some((x) => !x.named))
    return { verdict: 'no', quoted: support.map((x) => x.s) };
  return null;
}
