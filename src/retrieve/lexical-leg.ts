import type { FieldWeights, LexicalHit, Store } from '../store/store.js';
import type { QueryMode, SearchFilter } from '../types.js';
import { combineFeedback, expansionTerms, feedbackCandidates, PRF_MIN_FETCH } from './prf.js';
import { queryTerms } from './query-terms.js';
import { queryVariants } from '../text/analyze.js';
import { isLanguage } from '../text/language.js';

/** Pseudo-relevance feedback settings (retrieve/prf.ts); weight 0 switches it off. */
export interface FeedbackOptions {
  weight: number;
  docs: number;
  terms: number;
}

export interface LexicalLegOptions {
  fetch: number;
  mode: QueryMode;
  fieldWeights: FieldWeights;
  filter?: SearchFilter;
  feedback?: FeedbackOptions;
}

/**
 * The lexical leg: BM25 over the query's escaped terms (and, in `any` mode, their forms in the
 * vault's other languages), then, in `any` mode with feedback on, a
 * second BM25 pass over expansion terms drawn from the first pass's best sections, added at weight β
 * (`combineFeedback`); only when the first pass matched more than twice the feedback sections. Both passes fetch at least `PRF_MIN_FETCH` rows so their lists overlap; the
 * result is cut to `fetch`.
 */
export async function lexicalLeg(store: Store, text: string, o: LexicalLegOptions): Promise<LexicalHit[]> {
  const terms = queryTerms(text, o.mode);
  // In `any` mode a word also searches as its stem in each language the vault holds (a Ukrainian
  // note is indexed by stems, so `бджолами` must ask for `бджол`); `all` and `phrase` keep the
  // words as they are, since an extra form there would be one more word required.
  if (o.mode === 'any') {
    const langs = (await store.languages()).filter(isLanguage);
    for (const v of queryVariants(text, langs)) if (!terms.includes(v)) terms.push(v);
  }
  const fb = o.feedback;
  const on = fb !== undefined && fb.weight > 0 && fb.docs > 0 && fb.terms > 0 && o.mode === 'any';
  const fetch = on ? Math.max(o.fetch, PRF_MIN_FETCH) : o.fetch;
  const search = (t: string[]): Promise<LexicalHit[]> =>
    store.lexicalSearch({
      terms: t,
      mode: o.mode,
      limit: fetch,
      weights: o.fieldWeights,
      ...(o.filter === undefined ? {} : { filter: o.filter }),
    });
  const first = await search(terms);
  // Feedback needs a choice: when the first pass matched at most 2 × docs sections, its "best"
  // sections are all of them, and their words say nothing about relevance.
  if (!on || first.length <= 2 * fb.docs) return first.slice(0, o.fetch);
  const top = first.slice(0, fb.docs);
  const byId = new Map((await store.getSections(top.map((h) => h.sectionId))).map((s) => [s.id, s] as const));
  const feedback = top.flatMap((h) => {
    const s = byId.get(h.sectionId);
    return s === undefined ? [] : [{ score: h.score, text: `${s.breadcrumb}\n${s.text}` }];
  });
  const candidates = feedbackCandidates(terms, feedback);
  const stats = await store.termStats(candidates.map((c) => c.stem));
  const expansion = expansionTerms(candidates, stats, fb.terms);
  if (expansion.length === 0) return first.slice(0, o.fetch);
  const second = await search(expansion);
  const key = (h: LexicalHit): LexicalHit & { key: string } => ({ ...h, key: h.sectionId });
  return combineFeedback(first.map(key), second.map(key), fb.weight)
    .slice(0, o.fetch)
    .map(({ item, score }) => ({ sectionId: item.sectionId, docId: item.docId, score }));
}
