// Orama 3 as its documentation recommends for English text: the tokenizer component with stemming
// (the English stemmer of @orama/stemmers) and the English stop words of @orama/stopwords, search
// over the properties title and text with a title boost. Tuned: title boost, exact matching (Orama
// matches query terms as prefixes unless `exact`), typo tolerance, BM25 parameters (`relevance`).
import { create, insertMultiple, save, search, type SearchParams } from '@orama/orama';
import { stemmer } from '@orama/stemmers/english';
import { stopwords } from '@orama/stopwords/english';
import { BM25_CHOICES, describeBm25, product, TITLE_BOOSTS, type Bm25Choice } from './grid.js';
import { utf8Bytes } from './sizes.js';
import type { Built, Doc, Peer } from './types.js';

const EXACT = [false, true] as const;
const TOLERANCE = [0, 1] as const;
/** Orama's BM25+ lower bound d, kept at its default when k and b are set. */
const ORAMA_D = 0.5;

type Options = [number, boolean, number, Bm25Choice];

function describe([title, exact, tolerance, bm25]: Options): string {
  return `title boost ${title}, ${exact ? 'exact terms' : 'prefix terms (default)'}, tolerance ${tolerance}, ${describeBm25(bm25)}`;
}

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
    return {
      variants: product<Options>(TITLE_BOOSTS, EXACT, TOLERANCE, BM25_CHOICES).map((o) => {
        const [title, exact, tolerance, bm25] = o;
        const params: SearchParams<Db> = {
          properties: ['title', 'text'],
          boost: { title },
          exact,
          tolerance,
          ...(bm25 === 'library defaults' ? {} : { relevance: { k: bm25.k1, b: bm25.b, d: ORAMA_D } }),
        };
        return {
          config: describe(o),
          search: async (q: string, k: number) =>
            (await search(db, { ...params, term: q, limit: k })).hits.map((h) => h.id),
        };
      }),
      sizeBytes: () => Promise.resolve(utf8Bytes(JSON.stringify(save(db)))),
      close: () => Promise.resolve(),
    };
  },
};
