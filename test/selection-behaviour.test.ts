// Selection end to end through the real Vault on a real SQLite file: the seed's duplicate corpus
// (five copies of one greenhouse-gas passage as five documents, plus four distinct causes of
// warming). Plain top-5 returns one unique text; Dartboard returns five and keeps the best hit first.
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  changeNumber,
  dropSentence,
  inject,
  prng,
  sentences,
  swapWords,
  uniqueOriginsAtK,
  type Passage,
} from '../bench/near-duplicates.js';
import { uniqueResultsAtK } from '../src/evaluate/retrieval-metrics.js';
import { Vault } from '../src/index.js';
import { runCli, tempDir } from './helpers.js';

const GREENHOUSE =
  "Greenhouse gases trap heat in the atmosphere, causing global warming. Carbon dioxide and methane absorb the infrared radiation emitted by the Earth's surface and send part of it back down.";
const CAUSES = [
  'Deforestation reduces the carbon sink: cutting down forests releases stored carbon and leaves less vegetation to absorb carbon dioxide, which adds to warming.',
  'Industrial agriculture emits methane from livestock and rice paddies, and nitrous oxide from fertilisers, both potent contributors to warming.',
  'Land-use changes alter surface albedo: replacing snow or forest with cropland changes how much sunlight the ground reflects, shifting regional temperatures.',
  'Fossil fuel combustion is the largest source of carbon dioxide emissions, from power plants, vehicles and industry, and the main driver of the warming trend.',
];
const QUERY = 'How do greenhouse gases trap heat and cause global warming?';

const tmp = tempDir('quiver-selection-');
const vaultPath = join(tmp.dir, 'vault.db');
let vault: Vault;

beforeAll(async () => {
  vault = await Vault.open({ overrides: { vault: vaultPath }, env: {} });
  const report = await vault.add([
    ...Array.from({ length: 5 }, (_, i) => ({
      text: GREENHOUSE,
      title: 'Greenhouse gases',
      source: `greenhouse-copy-${i + 1}.txt`,
    })),
    ...CAUSES.map((text, i) => ({ text, title: `Cause ${i + 1}`, source: `cause-${i + 1}.txt` })),
  ]);
  expect(report.batch.added).toBe(9);
});

afterAll(async () => {
  await vault.close();
  tmp.cleanup();
});

const texts = (hits: { text?: string }[]): string[] => hits.map((h) => h.text ?? '');

describe('selection on the seed duplicate corpus', () => {
  it('plain top-k at limit 5 returns the five copies: one unique text', async () => {
    const r = await vault.sections(QUERY, { limit: 5, select: { method: 'topk', foldNearCopies: false } });
    expect(r.hits).toHaveLength(5);
    expect(uniqueResultsAtK(texts(r.hits), 5)).toBe(1 / 5);
    expect(new Set(r.hits.map((h) => h.docId)).size).toBe(5); // five different documents
  });

  it('the default ranked list folds the copies under the first: five unique texts, in relevance order', async () => {
    const r = await vault.sections(QUERY, { limit: 5 });
    expect(r.hits).toHaveLength(5);
    expect(uniqueResultsAtK(texts(r.hits), 5)).toBe(1);
    expect(r.hits[0]!.text).toBe(GREENHOUSE);
    expect(r.hits[0]!.nearCopies).toHaveLength(4);
    const ranks = r.hits.map((h) => h.retrievalRank);
    expect([...ranks].sort((a, b) => a - b)).toEqual(ranks);
  });

  for (const select of [
    { label: 'configured defaults', options: {} },
    {
      label: "the seed's settings (cosine relevance, σ 0.1)",
      options: { relevance: 'cosine', sigma: 0.1 } as const,
    },
  ]) {
    it(`Dartboard (${select.label}) returns five unique texts and keeps top-k's first pick`, async () => {
      const top = await vault.sections(QUERY, {
        limit: 5,
        select: { method: 'topk', foldNearCopies: false },
      });
      const dart = await vault.sections(QUERY, {
        limit: 5,
        select: { method: 'dartboard', ...select.options },
      });
      expect(dart.hits).toHaveLength(5);
      expect(uniqueResultsAtK(texts(dart.hits), 5)).toBe(1);
      expect(dart.hits[0]!.sectionId).toBe(top.hits[0]!.sectionId);
      expect(dart.hits[0]!.text).toBe(GREENHOUSE);
      // The other four are the four distinct causes.
      expect(new Set(texts(dart.hits.slice(1)))).toEqual(new Set(CAUSES));
      expect(dart.pool).toBe(9);
    });
  }

  it('CLI JSON carries selection_rank, step_score and retrieval_rank', async () => {
    interface Hit {
      source: string;
      retrieval_rank: number;
      selection_rank: number;
      step_score: number | null;
    }
    const dart = await runCli([
      'search',
      QUERY,
      '--vault',
      vaultPath,
      '--json',
      '--limit',
      '5',
      '--select',
      'dartboard',
    ]);
    expect(dart.code, dart.stderr).toBe(0);
    const d = dart.json<{ results: Hit[] }>().results;
    expect(d.map((h) => h.selection_rank)).toEqual([0, 1, 2, 3, 4]);
    expect(d[0]!.retrieval_rank).toBe(0);
    expect(d[0]!.step_score).toBeNull();
    for (const h of d.slice(1)) expect(typeof h.step_score).toBe('number');
    const ranks = d.map((h) => h.retrieval_rank);
    expect(new Set(ranks).size).toBe(5);
    for (const r of ranks) expect(Number.isInteger(r) && r >= 0 && r < 9).toBe(true);
    // Diversity reached past the five copies at retrieval ranks 0–4.
    expect(Math.max(...ranks)).toBeGreaterThanOrEqual(5);
    expect(d.filter((h) => h.source.startsWith('greenhouse-copy-'))).toHaveLength(1);

    const top = await runCli([
      'search',
      QUERY,
      '--vault',
      vaultPath,
      '--json',
      '--limit',
      '5',
      '--select',
      'topk',
    ]);
    expect(top.code, top.stderr).toBe(0);
    const t = top.json<{ results: (Hit & { near_copies: { source: string }[] })[] }>().results;
    // Top-k keeps relevance order; the four other copies fold under the first.
    expect(t.map((h) => h.selection_rank)).toEqual([0, 1, 2, 3, 4]);
    expect(t[0]!.retrieval_rank).toBe(0);
    expect(t[0]!.near_copies.every((c) => c.source.startsWith('greenhouse-copy-'))).toBe(true);
    expect(t[0]!.near_copies).toHaveLength(4);
    expect(t.filter((h) => h.source.startsWith('greenhouse-copy-'))).toHaveLength(1);
    expect(t[0]!.source).toBe(d[0]!.source);
  });
});

describe('near-duplicate corpus builder (bench/near-duplicates.ts)', () => {
  const text = 'Alpha beta gamma. The sample had 42 cells. Delta epsilon! Zeta eta theta?';
  const originals: Passage[] = ['a', 'b', 'c', 'd'].map((id) => ({
    id,
    title: id,
    text,
    origin: id,
    edit: 'original',
  }));

  it('drops exactly one sentence, never the first of three or more; null for one sentence', () => {
    const out = dropSentence(text, prng(1))!;
    expect(sentences(out)).toHaveLength(3);
    expect(out.startsWith('Alpha beta gamma.')).toBe(true);
    expect(dropSentence('Only one sentence here.', prng(1))).toBeNull();
  });

  it('swaps two adjacent words: same words, different order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[a-z]{1,6}$/), { minLength: 2, maxLength: 12 }),
        fc.integer({ min: 1, max: 1e6 }),
        (words, seed) => {
          const input = words.join(' ');
          const out = swapWords(input, prng(seed));
          if (new Set(words).size === 1) return out === null;
          return (
            out !== null &&
            out !== input &&
            [...out.split(' ')].sort().join(' ') === [...words].sort().join(' ')
          );
        },
      ),
    );
  });

  it('changes one number and nothing else; null without a number', () => {
    const out = changeNumber(text, prng(3))!;
    expect(out).not.toBe(text);
    expect(out.replace(/\d+/g, '#')).toBe(text.replace(/\d+/g, '#'));
    expect(changeNumber('no digits', prng(3))).toBeNull();
  });

  it('injects 2–4 copies per gold passage, each its own id mapped to its original, the first verbatim', () => {
    const all = inject(originals, new Set(['a', 'b', 'c']));
    const copies = all.filter((p) => p.edit !== 'original');
    expect(copies.map((p) => p.origin)).toEqual(['a', 'a', 'b', 'b', 'b', 'c', 'c', 'c', 'c']);
    expect(new Set(all.map((p) => p.id)).size).toBe(all.length);
    for (const id of ['a', 'b', 'c']) {
      const mine = copies.filter((p) => p.origin === id);
      expect(mine[0]).toMatchObject({ edit: 'verbatim', text });
      expect(mine.slice(1).every((p) => p.text !== text)).toBe(true);
    }
    const origin = new Map(all.map((p) => [p.id, p.origin]));
    // Two copies of a and three of b are two original passages; the first five originals are four.
    expect(
      uniqueOriginsAtK(
        copies.map((p) => p.id),
        origin,
        5,
      ),
    ).toBe(2 / 5);
    expect(
      uniqueOriginsAtK(
        all.map((p) => p.id),
        origin,
        5,
      ),
    ).toBe(4 / 5);
    expect(uniqueOriginsAtK([], origin, 5)).toBeNull();
  });
});
