/**
 * One numbered entry of an answer's context: what `[n]` in an answer points at.
 */

/**
 * A retrieved section as the generator sees it. `n` is its 1-based position in the prompt and the
 * number an answer cites; `text` is the section text (after budgets when it comes from a `Prompt`).
 *
 * @example
 * const s: ContextSection = {
 *   n: 1, sectionId: 'a1b2c3d4e5f60718#2', docId: 'a1b2c3d4e5f60718', title: 'Boiling',
 *   breadcrumb: 'Kitchen › Eggs › Boiling', source: 'kitchen.md', pages: null,
 *   text: 'Boil the eggs for ten minutes.', score: 0.82,
 * };
 */
export interface ContextSection {
  /** 1-based position in the context; the number an answer cites as `[n]`. */
  n: number;
  /** `<doc_id>#<seq>`. */
  sectionId: string;
  docId: string;
  title: string;
  /** `Doc › H1 › H2`. */
  breadcrumb: string;
  /** The file name or JSONL id the section was read from. */
  source: string;
  /** First and last page for paged sources (PDF), else null. */
  pages: [number, number] | null;
  text: string;
  /** Retrieval score, higher is better. */
  score: number;
  /** Where retrieval and selection put it, when it came from a search (`SectionHit`'s fields). */
  ranking?: ContextRanking;
}

/** A context entry's positions: fused order, leg ranks, selection order and step score (0-based). */
export interface ContextRanking {
  retrievalRank: number;
  selectionRank: number;
  stepScore: number | null;
  ranks: { lexical: number | null; vector: number | null };
}

/** The fields of a retrieved section that a context entry keeps. */
export type ContextSource = Pick<
  ContextSection,
  'sectionId' | 'docId' | 'title' | 'breadcrumb' | 'source' | 'pages' | 'score'
> &
  Partial<ContextRanking>;

/** A numbered context entry from a retrieved section (a search hit carries more; only these are kept). */
export function toContextSection(n: number, s: ContextSource, text: string): ContextSection {
  return {
    n,
    sectionId: s.sectionId,
    docId: s.docId,
    title: s.title,
    breadcrumb: s.breadcrumb,
    source: s.source,
    pages: s.pages,
    text,
    score: s.score,
    ...(s.retrievalRank === undefined ||
    s.selectionRank === undefined ||
    s.stepScore === undefined ||
    s.ranks === undefined
      ? {}
      : {
          ranking: {
            retrievalRank: s.retrievalRank,
            selectionRank: s.selectionRank,
            stepScore: s.stepScore,
            ranks: s.ranks,
          },
        }),
  };
}

/**
 * The text a judge reads for a context entry: its heading path, then its text. An answer may name
 * the section's subject from its title (the extractive `Title: sentence` label), and a reader of
 * the section sees the heading above the text, so the judge does too. The breadcrumb is
 * `Doc › H1 › H2` and usually ends with the title; when it does not, the title is added.
 *
 * @example judgedText({ title: 'Boiling', breadcrumb: 'Eggs › Boiling', text: 'Ten minutes.' })
 * // 'Eggs › Boiling\nTen minutes.'
 */
export function judgedText(c: Pick<ContextSection, 'title' | 'breadcrumb' | 'text'>): string {
  const crumb = c.breadcrumb.trim();
  const title = c.title.trim();
  const heading =
    title === '' || crumb.endsWith(title) ? crumb : crumb === '' ? title : `${crumb} › ${title}`;
  return heading === '' ? c.text : `${heading}\n${c.text}`;
}
