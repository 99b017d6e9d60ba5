// MiniSearch 7 as its documentation recommends for English text: a `processTerm` that lower-cases,
// drops stop words and stems (Porter), fields title and text, a title boost at query time. Tuned:
// title boost and BM25 parameters (the `bm25` search option), then prefix matching, or fuzzy
// matching, on the best of those.
import MiniSearch, { type SearchOptions } from 'minisearch';
import { porterTerm } from './english.js';
import { BM25_CHOICES, describeBm25, product, TITLE_BOOSTS, type Bm25Choice } from './grid.js';
import { utf8Bytes } from './sizes.js';
import type { Built, Doc, Peer, Variant } from './types.js';

/** Fuzziness tried (MiniSearch's fraction of the term length). */
const FUZZY = 0.2;
/** MiniSearch's BM25+ lower bound δ, kept at its default when k1 and b are set. */
const MINISEARCH_D = 0.5;

interface Options {
  title: number;
  bm25: Bm25Choice;
  prefix: boolean;
  fuzzy: false | number;
}

function describe(o: Options): string {
  return `title boost ${o.title}, ${describeBm25(o.bm25)}, prefix ${o.prefix ? 'on' : 'off'}, fuzzy ${o.fuzzy === false ? 'off' : o.fuzzy}`;
}

export const miniSearch: Peer = {
  name: 'MiniSearch 7',
  size: 'serialised',
  builds: 1,
  build(docs: readonly Doc[]): Promise<Built> {
    const ms = new MiniSearch<Doc>({
      fields: ['title', 'text'],
      storeFields: [],
      processTerm: (term) => porterTerm(term),
    });
    ms.addAll(docs);
    const variant = (o: Options): Variant => {
      const opts: SearchOptions = {
        boost: { title: o.title },
        prefix: o.prefix,
        fuzzy: o.fuzzy,
        ...(o.bm25 === 'library defaults' ? {} : { bm25: { k: o.bm25.k1, b: o.bm25.b, d: MINISEARCH_D } }),
      };
      return {
        config: describe(o),
        search: (q: string, k: number) =>
          Promise.resolve(
            ms
              .search(q, opts)
              .slice(0, k)
              .map((r) => String(r.id)),
          ),
        ...(o.prefix || o.fuzzy !== false
          ? {}
          : {
              refinements: () => [variant({ ...o, prefix: true }), variant({ ...o, fuzzy: FUZZY })],
            }),
      };
    };
    return Promise.resolve({
      variants: product<[number, Bm25Choice]>(TITLE_BOOSTS, BM25_CHOICES).map(([title, bm25]) =>
        variant({ title, bm25, prefix: false, fuzzy: false }),
      ),
      sizeBytes: () => Promise.resolve(utf8Bytes(JSON.stringify(ms))),
      close: () => Promise.resolve(),
    });
  },
};
