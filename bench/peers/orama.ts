// Orama 3 as its documentation recommends for English text: the tokenizer component with stemming
// (the English stemmer of @orama/stemmers) and the English stop words of @orama/stopwords, search
// over the properties title and text with a title boost. Tuned: title boost, BM25 parameters
// (`relevance`), then typo tolerance on the best of those. Orama always matches a query term as a
// prefix of indexed terms; its `exact` option does not turn that off but keeps only documents whose
// raw text holds every query word, case-sensitively, so it is not tried.
import { create, insertMultiple, save, search, type SearchParams } from '@orama/orama';
import { stemmer } from '@orama/stemmers/english';
import { stopwords } from '@orama/stopwords/english';
import { BM25_CHOICES, describeBm25, product, TITLE_BOOSTS, type Bm25Choice } from './grid.js';
import { utf8Bytes } from './sizes.js';
import type { Built, Doc, Peer, Variant } from './types.js';

/** Typo tolerance (Levenshtein distance) tried on the best configuration without it. */
const TOLERANCE = 1;
/** Orama's BM25+ lower bound d, kept at its default when k and b are set. */
const ORAMA_D = 0.5;

function makeDb() {
  return create({
    schema: { title: 'string', text: 'string' } as const,
    components: { tokenizer: { stemming: true, stemmer, stopWords: stopwords } },
  });
}
type Db = ReturnType<typeof makeDb>;

export const orama: Peer = {
  name: 'Orama 3',
  size: 'serialised',
  builds: 1,
  async build(docs: readonly Doc[]): Promise<Built> {
    const db = makeDb();
    await insertMultiple(
      db,
      docs.map((d) => ({ id: d.id, title: d.title, text: d.text })),
    );
    const variant = (title: number, bm25: Bm25Choice, tolerance: number): Variant => {
      const params: SearchParams<Db> = {
        properties: ['title', 'text'],
        boost: { title },
        tolerance,
        ...(bm25 === 'library defaults' ? {} : { relevance: { k: bm25.k1, b: bm25.b, d: ORAMA_D } }),
      };
      return {
        config: `title boost ${title}, ${describeBm25(bm25)}, tolerance ${tolerance}`,
        search: async (q: string, k: number) =>
          (await search(db, { ...params, term: q, limit: k })).hits.map((h) => h.id),
        ...(tolerance === 0 ? { refinements: () => [variant(title, bm25, TOLERANCE)] } : {}),
      };
    };
    return {
      variants: product<[number, Bm25Choice]>(TITLE_BOOSTS, BM25_CHOICES).map(([t, b]) => variant(t, b, 0)),
      sizeBytes: () => Promise.resolve(utf8Bytes(JSON.stringify(save(db)))),
      close: () => Promise.resolve(),
    };
  },
};
