import { describe, expect, it } from 'vitest';
import { isQuiverError } from '../errors.js';
import { dot } from '../math/vector.js';
import { runEmbedderContract } from './embedder.contract.js';
import { createHashingEmbedder, DEFAULT_HASH_DIMS, hashingFeatureOptions } from './hashing.js';
import { bucketOf } from './feature-hash.js';
import { FeatureCounts, FeatureExtractor } from './hashing-features.js';
import { fitHashingIdf, IdfTable } from './hashing-idf.js';

runEmbedderContract('hashing (default)', async () => createHashingEmbedder());
runEmbedderContract('hashing (256 dims, words only, batch 1)', async () =>
  createHashingEmbedder({ dims: 256, weights: { char: 0 }, batchSize: 1 }),
);

// A SciFact-like abstract of six sentences, and edits of it.
const PASSAGE = [
  'Alterations of the architecture of cerebral white matter in the developing human brain can affect cortical development.',
  'A line scan diffusion-weighted magnetic resonance imaging sequence with diffusion tensor analysis was applied.',
  'We measured the apparent diffusion coefficient and relative anisotropy in preterm and full-term infants.',
  'Early gestation preterm infants were studied a second time at term.',
  'Relative anisotropy was higher in the central white matter of full-term infants.',
  'Diffusion tensor imaging shows that premature birth alters white matter development before term.',
];
const UNRELATED = [
  'The mitochondrial membrane potential collapses early during apoptosis in cultured hepatocytes, releasing cytochrome c.',
  'Vitamin D supplementation did not reduce the risk of hip fracture among community-dwelling older adults in this trial.',
  'Quarterly revenue grew as the retailer opened new stores and expanded its online marketplace across Europe.',
];

function embedOne(text: string): Float32Array {
  return createHashingEmbedder().embedOne(text);
}

describe('createHashingEmbedder geometry', () => {
  const full = PASSAGE.join(' ');

  it('keeps a passage with one sentence dropped close (cosine ≥ 0.8)', () => {
    for (let drop = 0; drop < PASSAGE.length; drop++) {
      const edited = PASSAGE.filter((_, i) => i !== drop).join(' ');
      expect(dot(embedOne(full), embedOne(edited))).toBeGreaterThanOrEqual(0.8);
    }
  });

  it('keeps a passage with two words swapped or a number changed very close (cosine ≥ 0.95)', () => {
    const swapped = full.replace('cerebral white matter', 'white cerebral matter');
    expect(dot(embedOne(full), embedOne(swapped))).toBeGreaterThanOrEqual(0.95);
    const a = 'Relative anisotropy was 0.31 in 17 preterm infants and 0.42 in 7 full-term infants.';
    const b = a.replace('17', '18');
    expect(dot(embedOne(a), embedOne(b))).toBeGreaterThanOrEqual(0.95);
  });

  it('keeps unrelated passages apart (cosine ≤ 0.2)', () => {
    for (const u of UNRELATED) expect(Math.abs(dot(embedOne(full), embedOne(u)))).toBeLessThanOrEqual(0.2);
  });

  it('matches inflections through stemming and tolerates a typo through character n-grams', () => {
    expect(dot(embedOne('infants were imaged'), embedOne('imaging an infant'))).toBeGreaterThan(0.7);
    const typo = dot(embedOne('hypertension treatment'), embedOne('hypertensoin treatment'));
    const wordsOnly = createHashingEmbedder({ weights: { char: 0 } });
    const typoWords = dot(
      wordsOnly.embedOne('hypertension treatment'),
      wordsOnly.embedOne('hypertensoin treatment'),
    );
    expect(typo).toBeGreaterThan(typoWords);
  });

  it('embeds stop-word-only text (fallback) but not punctuation', () => {
    expect(embedOne('to be or not to be').some((x) => x !== 0)).toBe(true);
    expect(embedOne('… — ?!').every((x) => x === 0)).toBe(true);
  });
});

describe('createHashingEmbedder determinism', () => {
  it('gives the golden vector for a fixed text (change HASHING_VERSION if this moves)', () => {
    const v = embedOne('Vitamin D supplementation did not reduce fracture risk in 2,303 older adults.');
    let h = 0x811c9dc5;
    for (const b of new Uint8Array(v.buffer)) h = Math.imul(h ^ b, 0x01000193);
    expect((h >>> 0).toString(16)).toBe('e1f75c30');
    expect(v[5]).toBeCloseTo(-0.2130451649427414, 7);
  });

  it('does not depend on what was embedded before (word cache)', () => {
    const e = createHashingEmbedder();
    const t = 'White matter anisotropy in preterm infants';
    const cold = e.embedOne(t);
    for (const u of UNRELATED) e.embedOne(u);
    expect(Array.from(e.embedOne(t))).toEqual(Array.from(cold));
  });
});

describe('createHashingEmbedder options', () => {
  it('uses DEFAULT_HASH_DIMS and names variant and dims in its id', () => {
    const e = createHashingEmbedder();
    expect(e.dims).toBe(DEFAULT_HASH_DIMS);
    expect(e.id).toBe('hashing:u1b0c1g3-5:512:v1');
    expect(createHashingEmbedder({ dims: 768, weights: { bigram: 0.5, char: 0 } }).id).toBe(
      'hashing:u1b0.5c0:768:v1',
    );
  });

  it('changes the id whenever the vectors would change', () => {
    const ids = new Set([
      createHashingEmbedder().id,
      createHashingEmbedder({ dims: 256 }).id,
      createHashingEmbedder({ weights: { char: 0.5 } }).id,
      createHashingEmbedder({ charNgram: { min: 2, max: 4 } }).id,
      createHashingEmbedder({ idf: fitHashingIdf(['a b c', 'a b'], hashingFeatureOptions()) }).id,
    ]);
    expect(ids.size).toBe(5);
  });

  it.each([
    [{ dims: 0 }, 'dims'],
    [{ dims: 7 }, 'dims'],
    [{ dims: 100.5 }, 'dims'],
    [{ weights: { unigram: -1 } }, 'weights.unigram'],
    [{ weights: { char: Number.NaN } }, 'weights.char'],
    [{ weights: { unigram: 0, bigram: 0, char: 0 } }, 'weights'],
    [{ charNgram: { min: 0, max: 3 } }, 'charNgram.min'],
    [{ charNgram: { min: 4, max: 3 } }, 'charNgram.max'],
    [{ batchSize: 0 }, 'batchSize'],
  ])('rejects %o with BAD_INPUT naming %s', (options, field) => {
    let err: unknown;
    try {
      createHashingEmbedder(options);
    } catch (e) {
      err = e;
    }
    expect(isQuiverError(err, 'BAD_INPUT')).toBe(true);
    expect((err as Error).message).toContain(field);
  });

  it('stops between batches when the signal aborts mid-way', async () => {
    const e = createHashingEmbedder({ batchSize: 2 });
    const ac = new AbortController();
    const texts = Array.from({ length: 10 }, (_, i) => `text number ${i}`);
    const err: unknown = await e
      .embed(texts, { signal: ac.signal, onProgress: (done) => (done >= 4 ? ac.abort() : undefined) })
      .catch((x: unknown) => x);
    expect(isQuiverError(err, 'ABORTED')).toBe(true);
  });

  it('reports progress per batch', async () => {
    const seen: number[] = [];
    await createHashingEmbedder({ batchSize: 4 }).embed(
      Array.from({ length: 10 }, (_, i) => `t${i}`),
      { onProgress: (done) => seen.push(done) },
    );
    expect(seen).toEqual([4, 8, 10]);
  });
});

describe('createHashingEmbedder with fitted IDF', () => {
  const corpus = [
    'patients with diabetes were studied',
    'patients with asthma were studied',
    'patients in the cohort were studied',
    'patients received insulin therapy',
    'mice lacking the gene were studied',
  ];

  it('weighs rare features over common ones', () => {
    const opts = { weights: { char: 0 } };
    const plain = createHashingEmbedder(opts);
    const fitted = createHashingEmbedder({
      ...opts,
      idf: fitHashingIdf(corpus, hashingFeatureOptions(opts)),
    });
    // Sharing only the ubiquitous "patients ... studied" counts for less once IDF knows it is common.
    const a = 'patients studied diabetes';
    const b = 'patients studied asthma';
    expect(dot(fitted.embedOne(a), fitted.embedOne(b))).toBeLessThan(
      dot(plain.embedOne(a), plain.embedOne(b)),
    );
    expect(fitted.id).toMatch(/^hashing:u1b0c0:512:v1:idf-[0-9a-f]{8}$/);
  });
});

/** Naive reference of the formula: v = Σ_f α_f u_f/‖u_f‖, u_f[bucket] += sign·(1 + ln tf)·idf. */
function reference(text: string, dims: number, alpha: [number, number, number], idf?: IdfTable): number[] {
  const counts = new FeatureCounts();
  const n = new FeatureExtractor({ bigrams: alpha[1] > 0, chars: alpha[2] > 0, minN: 3, maxN: 5 }).extract(
    text,
    counts,
  );
  const fam: number[][] = [
    new Array<number>(dims).fill(0),
    new Array<number>(dims).fill(0),
    new Array<number>(dims).fill(0),
  ];
  for (let i = 0; i < n; i++) {
    const key = counts.keys[i]!;
    const w = (1 + Math.log(counts.counts[i]!)) * (idf === undefined ? 1 : idf.get(key));
    const { bucket, sign } = bucketOf(key, dims);
    fam[counts.families[i]!]![bucket]! += sign * w;
  }
  // ‖u_f‖ is taken over features (before collisions), as the embedder does.
  const featNorm = [0, 0, 0];
  for (let i = 0; i < n; i++) {
    const w = (1 + Math.log(counts.counts[i]!)) * (idf === undefined ? 1 : idf.get(counts.keys[i]!));
    featNorm[counts.families[i]!]! += w * w;
  }
  const v = new Array<number>(dims).fill(0);
  for (let f = 0; f < 3; f++) {
    if (featNorm[f] === 0) continue;
    for (let d = 0; d < dims; d++) v[d]! += (alpha[f]! * fam[f]![d]!) / Math.sqrt(featNorm[f]!);
  }
  const len = Math.sqrt(v.reduce((a, x) => a + x * x, 0));
  return len === 0 ? v : v.map((x) => x / len);
}

describe('createHashingEmbedder against a naive reference', () => {
  const texts = [
    'Cats chase cats; mice flee the cats.',
    PASSAGE.join(' '),
    'to be or not to be',
    'hypertension hypertension hypertension treatment',
  ];

  it.each([
    ['default weights', { unigram: 1, bigram: 0, char: 1 }],
    ['all three families', { unigram: 1, bigram: 0.5, char: 0.25 }],
    ['chars only', { unigram: 0, bigram: 0, char: 1 }],
  ] as const)('matches for %s, with and without IDF', (_name, weights) => {
    const opts = { dims: 64, weights };
    const idf = fitHashingIdf(
      [...texts, ...UNRELATED, PASSAGE[0]!, PASSAGE[1]!],
      hashingFeatureOptions(opts),
    );
    const alpha: [number, number, number] = [weights.unigram, weights.bigram, weights.char];
    for (const [e, table] of [
      [createHashingEmbedder(opts), undefined],
      [createHashingEmbedder({ ...opts, idf }), new IdfTable(idf)],
    ] as const) {
      for (const t of texts) {
        const got = Array.from(e.embedOne(t));
        const want = reference(t, 64, alpha, table);
        for (let d = 0; d < 64; d++) expect(got[d]).toBeCloseTo(want[d]!, 5);
      }
    }
  });
});
