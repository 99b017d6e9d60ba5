import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isQuiverError } from '../errors.js';
import { hashingFeatureOptions } from './hashing.js';
import { FeatureCounts, FeatureExtractor } from './hashing-features.js';
import {
  decodeHashingIdf,
  encodeHashingIdf,
  fitHashingIdf,
  HASHING_IDF_FORMAT_VERSION,
  IdfTable,
  idfFingerprint,
  KeyCounter,
  smoothIdf,
} from './hashing-idf.js';

const OPTS = hashingFeatureOptions({ weights: { char: 0 } }); // unigrams only: easy to count
const CORPUS = ['cats chase mice', 'cats sleep', 'dogs chase cats', 'birds sing'];

function keyOf(word: string): number {
  const c = new FeatureCounts();
  new FeatureExtractor(OPTS).extract(word, c);
  return c.keys[0]!;
}

describe('smoothIdf', () => {
  it('is ln((1+N)/(1+df)) + 1, 1 for a feature in every text and for N = 0', () => {
    expect(smoothIdf(3, 1)).toBeCloseTo(Math.log(2) + 1, 12);
    expect(smoothIdf(5, 5)).toBe(1);
    expect(smoothIdf(0, 0)).toBe(1);
  });
});

describe('fitHashingIdf', () => {
  it('counts each feature once per text and keeps only df ≥ 2', () => {
    const idf = fitHashingIdf(['cats cats cats', ...CORPUS], OPTS);
    expect(idf.docCount).toBe(5);
    expect(idf.formatVersion).toBe(HASHING_IDF_FORMAT_VERSION);
    const table = new Map(Array.from(idf.keys, (k, i) => [k | 0, idf.df[i]!]));
    expect(table.get(keyOf('cat'))).toBe(4);
    expect(table.get(keyOf('chase'))).toBe(2);
    expect(table.has(keyOf('birds'))).toBe(false); // a hapax: dropped, weighs as df = 1
    expect(Array.from(idf.keys)).toEqual(Array.from(idf.keys).sort((a, b) => a - b));
  });

  it('gives the same state and fingerprint whatever the text order', () => {
    const a = fitHashingIdf(CORPUS, OPTS);
    const b = fitHashingIdf([...CORPUS].reverse(), OPTS);
    expect(Array.from(a.keys)).toEqual(Array.from(b.keys));
    expect(Array.from(a.df)).toEqual(Array.from(b.df));
    expect(idfFingerprint(a)).toBe(idfFingerprint(b));
    expect(idfFingerprint(a)).not.toBe(idfFingerprint(fitHashingIdf([...CORPUS, 'cats'], OPTS)));
  });

  it('handles an empty corpus', () => {
    const idf = fitHashingIdf([], OPTS);
    expect(idf.docCount).toBe(0);
    expect(idf.keys).toHaveLength(0);
    expect(new IdfTable(idf).get(keyOf('cat'))).toBe(smoothIdf(0, 1));
  });
});

describe('IdfTable', () => {
  it('looks up stored weights and gives the hapax weight for unknown keys', () => {
    const idf = fitHashingIdf(CORPUS, OPTS);
    const t = new IdfTable(idf);
    expect(t.get(keyOf('cat'))).toBeCloseTo(smoothIdf(4, 3), 6);
    expect(t.get(keyOf('chase'))).toBeCloseTo(smoothIdf(4, 2), 6);
    expect(t.get(keyOf('zebra'))).toBe(t.missing);
    expect(t.missing).toBeCloseTo(smoothIdf(4, 1), 12);
  });
});

describe('encodeHashingIdf / decodeHashingIdf', () => {
  it('round-trips', () => {
    const idf = fitHashingIdf(CORPUS, hashingFeatureOptions());
    const back = decodeHashingIdf(encodeHashingIdf(idf));
    expect(back.docCount).toBe(idf.docCount);
    expect(Array.from(back.keys)).toEqual(Array.from(idf.keys));
    expect(Array.from(back.df)).toEqual(Array.from(idf.df));
    expect(idfFingerprint(back)).toBe(idfFingerprint(idf));
  });

  it('reads from a view into a larger buffer', () => {
    const bytes = encodeHashingIdf(fitHashingIdf(CORPUS, OPTS));
    const big = new Uint8Array(bytes.length + 7);
    big.set(bytes, 3);
    expect(decodeHashingIdf(big.subarray(3, 3 + bytes.length)).docCount).toBe(4);
  });

  function corrupt(edit: (view: DataView, bytes: Uint8Array) => Uint8Array | void): unknown {
    const bytes = encodeHashingIdf(fitHashingIdf(CORPUS, OPTS));
    const out = edit(new DataView(bytes.buffer), bytes) ?? bytes;
    try {
      decodeHashingIdf(out);
    } catch (e) {
      return e;
    }
    return undefined;
  }

  it.each([
    ['a short header', (_v: DataView, b: Uint8Array) => b.subarray(0, 8)],
    ['an unknown version', (v: DataView) => v.setUint32(0, 2, true)],
    ['a truncated body', (_v: DataView, b: Uint8Array) => b.subarray(0, b.length - 4)],
    ['keys out of order', (v: DataView) => v.setUint32(16, 0, true)],
    ['df above docCount', (v: DataView) => v.setUint32(4, 0, true)],
  ])('rejects %s with SCHEMA', (_name, edit) => {
    expect(isQuiverError(corrupt(edit), 'SCHEMA')).toBe(true);
  });
});

describe('KeyCounter', () => {
  it('counts like a Map for any keys, signed or unsigned, through growth', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 32 - 1 }), { maxLength: 300 }), (keys) => {
        const counter = new KeyCounter();
        const want = new Map<number, number>();
        // Repeat a prefix so some keys count more than once.
        for (const k of [...keys, ...keys.slice(0, keys.length >> 1)]) {
          counter.increment(k);
          want.set(k | 0, (want.get(k | 0) ?? 0) + 1);
        }
        expect(counter.size).toBe(want.size);
        for (const [k, c] of want) expect(counter.get(k)).toBe(c);
        const atLeast2 = [...want].filter(([, c]) => c >= 2).map(([k]) => k >>> 0);
        expect(Array.from(counter.keysAtLeast(2)).sort((a, b) => a - b)).toEqual(
          atLeast2.sort((a, b) => a - b),
        );
      }),
    );
  });

  it('gives 0 for a key never counted, and grows past its initial 65,536 slots', () => {
    const counter = new KeyCounter();
    expect(counter.get(12345)).toBe(0);
    for (let k = 0; k < 100_000; k++) counter.increment(k * 2654435761);
    expect(counter.size).toBe(100_000);
    expect(counter.get(99_999 * 2654435761)).toBe(1);
    expect(counter.get(1)).toBe(0);
  });
});
