import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { STOPWORDS } from '../text/stopwords.js';
import { stem, words } from '../text/tokens.js';
import { fmix32, fnv1a32 } from './feature-hash.js';
import { charGramCount, SEED_UNIGRAM, WordFeatureCache, writeCharGramKeys } from './word-feature-cache.js';

const OPTS = { chars: true, minN: 3, maxN: 5 };

/** Reference tokeniser: `words()` with the apostrophe suffix cut, as the embedder always did. */
function referenceWords(text: string): string[] {
  return words(text).map((w) => w.replace(/['’].*$/, ''));
}

function tokens(cache: WordFeatureCache, text: string): string[] {
  const n = cache.tokenize(text);
  return Array.from(cache.ids.subarray(0, n), (id) => cache.word(id));
}

// Pieces that exercise folding, case, clitics, digits, astral and lone surrogates, ligatures.
const PIECES = [
  'Café',
  'CAFÉ',
  'naïve',
  "don't",
  'brain’s',
  "it's'",
  "o'3",
  'ﬁsh',
  'Ⅻ',
  '𝐀𝐁𝐂',
  '𝒳y',
  '中文字',
  'İstanbul',
  'ß',
  'ǅ',
  'x\u0301',
  '\ud800',
  '\udc00a',
  'a\u200db',
  '٣٤',
  'ΑΒΓ',
  'µg',
  '½',
  "''",
  '’s',
  'The',
  'IL-6',
  'α-synuclein',
  '12.5%',
  '\u0002',
  '\u0003',
  'e\u0301\u0301',
  'Ω',
  "A'B'C",
];
const TEXT = fc
  .array(
    fc.oneof(
      fc.constantFrom(...PIECES),
      fc.string({ unit: 'binary', maxLength: 6 }),
      fc.string({ maxLength: 8 }),
      fc.constantFrom(' ', '\n', '-', "'", '’', '.', ', '),
    ),
    { maxLength: 30 },
  )
  .map((a) => a.join(''));

describe('WordFeatureCache.tokenize', () => {
  it('gives the words of words(text) with clitics cut, for ASCII and any Unicode text', () => {
    const cache = new WordFeatureCache(OPTS);
    fc.assert(
      fc.property(TEXT, (t) => {
        expect(tokens(cache, t)).toEqual(referenceWords(t));
      }),
      { numRuns: 500 },
    );
    for (const t of PIECES) expect(tokens(cache, t)).toEqual(referenceWords(t));
  });

  it('handles the ASCII cases by hand: case, clitics, digits, a quote not before a letter', () => {
    const cache = new WordFeatureCache(OPTS);
    expect(tokens(cache, "Don't STOP the brain's 3'd IL-6, abc' x")).toEqual([
      'don',
      'stop',
      'the',
      'brain',
      '3',
      'il',
      '6',
      'abc',
      'x',
    ]); // "3'd" is one word with a clitic, as in words()
    // A clitic running into a CJK run: the run is segmented into words of its own (fast-check found it).
    expect(tokens(cache, "don't中文字")).toEqual(['don', '中', '文字']);
    expect(tokens(cache, "don'中文")).toEqual(referenceWords("don'中文"));
    expect(cache.tokenize('')).toBe(0);
    expect(cache.tokenize(' ?! — … ')).toBe(0);
  });

  it('maps one word to one entry whether it came through the ASCII or the folded path', () => {
    const cache = new WordFeatureCache(OPTS);
    cache.tokenize('Brain cafe');
    const ascii = Array.from(cache.ids.subarray(0, 2));
    cache.tokenize('BRAIN — Café'); // the em dash forces folding; "café" folds to "cafe"
    expect(Array.from(cache.ids.subarray(0, 2))).toEqual(ascii);
    expect(cache.size).toBe(2);
  });

  it('stores stop-word flag, stem-based unigram key and weight per word', () => {
    const cache = new WordFeatureCache(OPTS, (key) => (key === 0 ? 0 : 2.5));
    const n = cache.tokenize('the running');
    const [the, running] = [cache.ids[0]!, cache.ids[1]!];
    expect(n).toBe(2);
    expect(cache.stop[the]).toBe(1);
    expect(cache.stop[running]).toBe(0);
    expect(cache.term[running]).toBe(fnv1a32(stem('running')) | 0);
    expect(cache.unigram[running]).toBe(fmix32((fnv1a32('run') | 0) ^ SEED_UNIGRAM) | 0);
    expect(cache.unigramWeight[running]).toBe(2.5);
    const grams = cache.gramKeys.subarray(cache.gramStart[running], cache.gramStart[running + 1]);
    expect(grams).toHaveLength(charGramCount('running'.length, 3, 5));
    expect(
      Array.from(cache.gramWeights.subarray(cache.gramStart[running], cache.gramStart[running + 1])),
    ).toEqual(Array.from(grams, () => 2.5));
    expect(STOPWORDS.has('the')).toBe(true);
  });

  it('keeps no n-grams when chars are off', () => {
    const cache = new WordFeatureCache({ ...OPTS, chars: false });
    cache.tokenize('hypertension treatment');
    expect(cache.gramStart[cache.size]).toBe(0);
  });

  it('stays bounded: clears between texts when over its word limit, with the same tokens after', () => {
    const cache = new WordFeatureCache({ ...OPTS, maxWords: 8 });
    const texts = Array.from({ length: 20 }, (_, i) => `w${i}a w${i}b w${i}c shared words here`);
    for (const t of texts) {
      expect(tokens(cache, t)).toEqual(referenceWords(t));
      expect(cache.size).toBeLessThanOrEqual(8 + 6); // the limit plus one text's new words
    }
    expect(cache.clears).toBeGreaterThan(0);
  });

  it('stays bounded by its n-gram limit too', () => {
    const cache = new WordFeatureCache({ ...OPTS, maxGrams: 100 });
    for (let i = 0; i < 30; i++) {
      const t = `hypertension${i} cardiomyopathy${i}`;
      expect(tokens(cache, t)).toEqual(referenceWords(t));
      expect(cache.gramStart[cache.size]).toBeLessThan(100 + 2 * charGramCount(20, 3, 5));
    }
    expect(cache.clears).toBeGreaterThan(0);
  });

  it('grows past its initial tables for a text with many distinct words', () => {
    const cache = new WordFeatureCache(OPTS);
    const t = Array.from({ length: 3000 }, (_, i) => `w${i.toString(36)}`).join(' ');
    expect(tokens(cache, t)).toEqual(referenceWords(t));
    expect(tokens(cache, t)).toEqual(referenceWords(t)); // now all hits
    expect(cache.size).toBe(3000); // past the initial 4,096 slots at half load
  });
});

describe('writeCharGramKeys / charGramCount', () => {
  it('writes exactly charGramCount keys from the given offset, leaving the rest alone', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 12 }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 0, max: 7 }),
        (w, min, extra) => {
          const max = Math.min(8, min + extra);
          const n = charGramCount(w.length, min, max);
          const out = new Int32Array(n + 4).fill(7);
          expect(writeCharGramKeys(w, min, max, out, 2)).toBe(2 + n);
          expect([out[0], out[1], out[n + 2], out[n + 3]]).toEqual([7, 7, 7, 7]);
        },
      ),
    );
  });

  it('counts Σ_n max(0, len + 3 − n), and 1 for a word shorter than min − 2', () => {
    expect(charGramCount(3, 3, 5)).toBe(6); // "<cat>": 3 + 2 + 1
    expect(charGramCount(1, 4, 5)).toBe(1);
    expect(charGramCount(0, 1, 1)).toBe(2); // "<>"
  });
});
