import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { STOPWORDS } from '../text/stopwords.js';
import { stem, words } from '../text/tokens.js';
import { combine32, fmix32, fnv1a32 } from './feature-hash.js';
import {
  charGramKeys,
  FAMILY_BIGRAM,
  FAMILY_CHAR,
  FAMILY_UNIGRAM,
  FeatureCounts,
  FeatureExtractor,
  SEED_BIGRAM,
} from './hashing-features.js';
import type { FeatureOptions, KeyWeight } from './hashing-features.js';
import { SEED_UNIGRAM } from './word-feature-cache.js';

const ALL = { bigrams: true, chars: true, minN: 3, maxN: 5 };
const WORDS_ONLY = { bigrams: false, chars: false, minN: 3, maxN: 5 };

function features(text: string, options = ALL): { key: number; count: number; family: number }[] {
  const counts = new FeatureCounts();
  const n = new FeatureExtractor(options).extract(text, counts);
  return Array.from({ length: n }, (_, i) => ({
    key: counts.keys[i]!,
    count: counts.counts[i]!,
    family: counts.families[i]!,
  }));
}

describe('charGramKeys', () => {
  it('gives every n-gram of <word> for n in [min, max]: "cat" → 3 + 2 + 1 grams of "<cat>"', () => {
    expect(charGramKeys('cat', 3, 5)).toHaveLength(6);
  });

  it('gives the whole padded word when it is shorter than min', () => {
    expect(charGramKeys('a', 4, 5)).toHaveLength(1);
    expect(charGramKeys('a', 3, 5)).toHaveLength(1); // "<a>" is exactly one trigram
  });

  it('has Σ_n max(0, len + 3 − n) keys, and equal substrings give equal keys', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-z0-9]{1,20}$/),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 0, max: 3 }),
        (w, min, extra) => {
          const max = min + extra;
          const len = w.length + 2;
          let want = 0;
          for (let n = min; n <= max; n++) want += Math.max(0, len - n + 1);
          expect(charGramKeys(w, min, max)).toHaveLength(len < min ? 1 : want);
        },
      ),
    );
    // "abab": the inner "bab" and "aba" differ, but the two "ab"-bigrams of the middle repeat.
    const keys = Array.from(charGramKeys('abab', 2, 2)); // <a ab ba ab b>
    expect(keys[1]).toBe(keys[3]);
    expect(new Set(keys).size).toBe(4);
  });

  it('is the same on every call (no hidden state)', () => {
    expect(Array.from(charGramKeys('hypertension', 3, 5))).toEqual(
      Array.from(charGramKeys('hypertension', 3, 5)),
    );
  });
});

describe('FeatureCounts', () => {
  it('counts repeats and keeps insertion order through growth and rehashing', () => {
    const c = new FeatureCounts();
    c.reset();
    for (let round = 0; round < 2; round++)
      for (let k = 0; k < 5000; k++) c.add(k * 7919 - 20000, FAMILY_CHAR);
    expect(c.size).toBe(5000);
    expect(Array.from(c.keys.subarray(0, 5000))).toEqual(
      Array.from({ length: 5000 }, (_, i) => i * 7919 - 20000),
    );
    expect(Array.from(c.counts.subarray(0, 5000)).every((n) => n === 2)).toBe(true);
    c.reset();
    expect(c.size).toBe(0);
    c.add(0, FAMILY_UNIGRAM);
    expect(c.counts[0]).toBe(1);
  });
});

describe('FeatureExtractor', () => {
  it('gives no features for empty, blank or punctuation-only text', () => {
    expect(features('')).toEqual([]);
    expect(features('  \n\t ')).toEqual([]);
    expect(features('?! — …')).toEqual([]);
  });

  it('drops stop-words, stems, and counts repeats', () => {
    const f = features('the cats and the cat', WORDS_ONLY);
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ count: 2, family: FAMILY_UNIGRAM });
    expect(features('Running runs', WORDS_ONLY)).toHaveLength(1); // both stem to "run"
  });

  it('falls back to stop-word unigrams when a text has nothing else', () => {
    const f = features('to be or not to be', WORDS_ONLY);
    expect(f.length).toBeGreaterThan(0);
    expect(f.every((x) => x.family === FAMILY_UNIGRAM)).toBe(true);
  });

  it('adds an order-sensitive bigram between consecutive content words', () => {
    const ab = features('white matter', { ...WORDS_ONLY, bigrams: true });
    const ba = features('matter white', { ...WORDS_ONLY, bigrams: true });
    expect(ab.map((x) => x.family)).toEqual([FAMILY_UNIGRAM, FAMILY_UNIGRAM, FAMILY_BIGRAM]);
    expect(ab[2]!.key).not.toBe(ba[2]!.key);
    // Stop-words between content words do not break the bigram.
    expect(features('white of the matter', { ...WORDS_ONLY, bigrams: true })[2]!.key).toBe(ab[2]!.key);
  });

  it('keeps character n-grams of the surface word, not the stem', () => {
    const f = features('cats', { ...WORDS_ONLY, chars: true });
    expect(f.filter((x) => x.family === FAMILY_CHAR)).toHaveLength(9); // "<cats>": 4 + 3 + 2
  });

  it('strips clitics like contentTerms does', () => {
    expect(features("brain's", WORDS_ONLY)).toEqual(features('brain', WORDS_ONLY));
  });

  it('gives the same features from a fresh extractor and a warmed cache', () => {
    const x = new FeatureExtractor(ALL);
    const c = new FeatureCounts();
    x.extract('warm the cache with several words', c);
    const t = 'Several words, warmed: the cache changes nothing.';
    const n = x.extract(t, c);
    expect(Array.from(c.keys.subarray(0, n))).toEqual(features(t).map((f) => f.key));
  });
});

interface Feature {
  key: number;
  count: number;
  family: number;
  weight: number;
}

/**
 * Naive reference of the features, occurrence by occurrence with a Map (the embedder's definition):
 * for each content word in order its unigram, the bigram with the previous content word and its
 * n-grams; stop-word unigrams only when there is no content word. First insertion fixes the order.
 */
function referenceFeatures(text: string, o: FeatureOptions, weigh: KeyWeight = () => 1): Feature[] {
  const out = new Map<number, Feature>();
  const add = (key: number, family: number): void => {
    const f = out.get(key);
    if (f === undefined) out.set(key, { key, count: 1, family, weight: weigh(key) });
    else f.count++;
  };
  const bare = words(text).map((w) => w.replace(/['’].*$/, ''));
  const unigramOf = (w: string): number => fmix32(fnv1a32(stem(w)) ^ SEED_UNIGRAM) | 0;
  let prev: number | undefined;
  for (const w of bare) {
    if (STOPWORDS.has(w)) continue;
    add(unigramOf(w), FAMILY_UNIGRAM);
    const term = fnv1a32(stem(w));
    if (o.bigrams && prev !== undefined) add(combine32(prev, term ^ SEED_BIGRAM) | 0, FAMILY_BIGRAM);
    prev = term;
    if (o.chars) for (const g of charGramKeys(w, o.minN, o.maxN)) add(g, FAMILY_CHAR);
  }
  if (out.size === 0) for (const w of bare) add(unigramOf(w), FAMILY_UNIGRAM);
  return [...out.values()];
}

function extracted(x: FeatureExtractor, text: string): Feature[] {
  const c = new FeatureCounts();
  const n = x.extract(text, c);
  return Array.from({ length: n }, (_, i) => ({
    key: c.keys[i]!,
    count: c.counts[i]!,
    family: c.families[i]!,
    weight: c.weights[i]!,
  }));
}

describe('FeatureExtractor against a naive reference', () => {
  const vocabulary = [
    'cats',
    'cat',
    'the',
    'of',
    'banana',
    "don't",
    'Brain’s',
    'IL-6',
    'café',
    '3.5',
    'to',
    'be',
  ];
  const text = fc
    .array(fc.oneof(fc.constantFrom(...vocabulary), fc.string({ maxLength: 6 })), { maxLength: 25 })
    .map((a) => a.join(' '));
  const weigh: KeyWeight = (k) => 1 + (k >>> 28) / 4;

  it.each([
    ['default (words + chars, counted per distinct word)', { bigrams: false, chars: true, minN: 3, maxN: 5 }],
    ['with bigrams (counted per occurrence)', ALL],
    ['words only', WORDS_ONLY],
    ['n-grams 1–8', { bigrams: false, chars: true, minN: 1, maxN: 8 }],
  ] as const)('gives the same keys, counts, families, weights and order: %s', (_name, o) => {
    const plain = new FeatureExtractor(o);
    const weighted = new FeatureExtractor(o, weigh);
    fc.assert(
      fc.property(text, (t) => {
        expect(extracted(plain, t)).toEqual(referenceFeatures(t, o));
        expect(extracted(weighted, t)).toEqual(referenceFeatures(t, o, weigh));
      }),
      { numRuns: 200 },
    );
  });

  it('gives the same features with a tiny cache that clears every few texts', () => {
    const o = { bigrams: false, chars: true, minN: 3, maxN: 5 };
    const tiny = new FeatureExtractor(o, undefined, { maxWords: 4, maxGrams: 40 });
    fc.assert(
      fc.property(text, (t) => {
        expect(extracted(tiny, t)).toEqual(referenceFeatures(t, o));
      }),
      { numRuns: 200 },
    );
    expect(tiny.cacheClears).toBeGreaterThan(10);
  });
});
