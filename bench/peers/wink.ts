// wink-bm25-text-search 3 with the preparation pipeline its README documents for wink-nlp-utils
// (lower-case, tokenize0, remove stop words, stem, propagate negations), fields title and text
// weighted by `fldWeights`. Both are index-time options (`consolidate` folds them into the index),
// so each combination is its own build. Tuned: title weight, BM25 parameters (`bm25Params`).
import { createRequire } from 'node:module';
import { BM25_CHOICES, describeBm25, product, TITLE_BOOSTS, type Bm25Choice } from './grid.js';
import { utf8Bytes } from './sizes.js';
import type { Built, Doc, Peer } from './types.js';

/** The part of wink-bm25-text-search's API used here (the package ships no types). */
interface WinkEngine {
  defineConfig(config: {
    fldWeights: Record<string, number>;
    bm25Params?: { k1?: number; b?: number; k?: number };
  }): boolean;
  definePrepTasks(tasks: ((x: never) => unknown)[], field?: string): number;
  addDoc(doc: Record<string, string>, uniqueId: string): number;
  consolidate(fp?: number): boolean;
  search(text: string, limit?: number): [string | number, number][];
  exportJSON(): string;
}

interface WinkNlpUtils {
  string: { lowerCase: (s: string) => string; tokenize0: (s: string) => string[] };
  tokens: {
    removeWords: (t: string[]) => string[];
    stem: (t: string[]) => string[];
    propagateNegations: (t: string[]) => string[];
  };
}

const require = createRequire(import.meta.url);
const bm25 = require('wink-bm25-text-search') as () => WinkEngine;
const nlp = require('wink-nlp-utils') as WinkNlpUtils;

type Options = [number, Bm25Choice];
const GRID = product<Options>(TITLE_BOOSTS, BM25_CHOICES);

export const wink: Peer = {
  name: 'wink-bm25-text-search 3',
  size: 'serialised',
  builds: GRID.length,
  build(docs: readonly Doc[], i: number): Promise<Built> {
    const [title, params] = GRID[i]!;
    const engine = bm25();
    engine.defineConfig({
      fldWeights: { title, text: 1 },
      ...(params === 'library defaults' ? {} : { bm25Params: { k1: params.k1, b: params.b } }),
    });
    engine.definePrepTasks([
      nlp.string.lowerCase,
      nlp.string.tokenize0,
      nlp.tokens.removeWords,
      nlp.tokens.stem,
      nlp.tokens.propagateNegations,
    ]);
    for (const d of docs) engine.addDoc({ title: d.title, text: d.text }, d.id);
    engine.consolidate();
    return Promise.resolve({
      variants: [
        {
          config: `title weight ${title}, ${describeBm25(params)}, README prep tasks`,
          search: (q: string, k: number) => Promise.resolve(engine.search(q, k).map(([id]) => String(id))),
        },
      ],
      sizeBytes: () => Promise.resolve(utf8Bytes(engine.exportJSON())),
      close: () => Promise.resolve(),
    });
  },
};
