// MiniSearch 7 as its documentation recommends for English text: a `processTerm` that lower-cases,
// drops stop words and stems (Porter), fields title and text, a title boost at query time. Tuned:
// title boost, prefix and fuzzy matching, BM25 parameters (MiniSearch's `bm25` search option).
import MiniSearch, { type SearchOptions } from 'minisearch';
import { porterTerm } from './english.js';
import { BM25_CHOICES, describeBm25, product, TITLE_BOOSTS, type Bm25Choice } from './grid.js';
import { utf8Bytes } from './sizes.js';
import type { Built, Doc, Peer } from './types.js';

const FUZZY = [false, 0.2] as const;
const PREFIX = [false, true] as const;
/** MiniSearch's BM25+ lower bound δ, kept at its default when k1 and b are set. */
const MINISEARCH_D = 0.5;

type Options = [number, boolean, false | number, Bm25Choice];

function searchOptions([title, prefix, fuzzy, bm25]: Options): SearchOptions {
  return {
    boost: { title },
    prefix,
    fuzzy,
    ...(bm25 === 'library defaults' ? {} : { bm25: { k: bm25.k1, b: bm25.b, d: MINISEARCH_D } }),
  };
}

function describe([title, prefix, fuzzy, bm25]: Options): string {
  return `title boost ${title}, prefix ${prefix ? 'on' : 'off'}, fuzzy ${fuzzy === false ? 'off' : fuzzy}, ${describeBm25(bm25)}`;
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
    return Promise.resolve({
      variants: product<Options>(TITLE_BOOSTS, PREFIX, FUZZY, BM25_CHOICES).map((o) => {
        const opts = searchOptions(o);
        return {
          config: describe(o),
          search: (q: string, k: number) =>
            Promise.resolve(
              ms
                .search(q, opts)
                .slice(0, k)
                .map((r) => String(r.id)),
            ),
        };
      }),
      sizeBytes: () => Promise.resolve(utf8Bytes(JSON.stringify(ms))),
      close: () => Promise.resolve(),
    });
  },
};
