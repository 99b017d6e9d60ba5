import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contentTerms } from '../text/tokens.js';
import type { ChunkRecord } from '../types.js';
import { bestChunks } from './sections.js';

const chunk = (sectionId: string, ord: number, text: string, id = ord + 1): ChunkRecord => ({
  id,
  docId: 'd',
  sectionId,
  ord,
  text,
  page: null,
});

/** The order bestChunks promises, computed the plain way: overlap, then vector rank, then position. */
function reference(
  chunks: readonly ChunkRecord[],
  terms: ReadonlySet<string>,
  vectorOrder: readonly number[],
) {
  const overlap = (c: ChunkRecord) => new Set(contentTerms(c.text).filter((t) => terms.has(t))).size;
  const vrank = (c: ChunkRecord) => (vectorOrder.includes(c.id) ? vectorOrder.indexOf(c.id) : Infinity);
  return [...chunks].sort((a, b) => overlap(b) - overlap(a) || vrank(a) - vrank(b) || a.ord - b.ord);
}

const WORDS = ['grind', 'shot', 'water', 'puck', 'dose', 'crema', 'the', 'pressure', 'milk'];

describe('bestChunks', () => {
  it('puts the chunk holding most query terms first, then the vector order, then position', () => {
    const cs = [chunk('s', 0, 'milk foam'), chunk('s', 1, 'grind the dose'), chunk('s', 2, 'grind finer')];
    const terms = new Set(contentTerms('grind dose'));
    expect(bestChunks(cs, terms, []).map((c) => c.ord)).toEqual([1, 2, 0]);
    expect(bestChunks(cs, new Set(), [1, 3]).map((c) => c.ord)).toEqual([0, 2, 1]);
  });

  it('orders as the plain count does, for any section (property), including sections of more than 31 chunks', () => {
    let section = 0;
    const text = fc.array(fc.constantFrom(...WORDS), { maxLength: 8 }).map((w) => w.join(' '));
    fc.assert(
      fc.property(
        fc.array(text, { maxLength: 40 }),
        fc.array(fc.constantFrom(...WORDS), { maxLength: 4 }),
        fc.array(fc.nat({ max: 45 }), { maxLength: 5 }),
        (texts, query, vectorOrder) => {
          const id = `p${section++}`;
          const cs = texts.map((t, i) => chunk(id, i, t));
          const terms = new Set(contentTerms(query.join(' ')));
          expect(bestChunks(cs, terms, vectorOrder).map((c) => c.id)).toEqual(
            reference(cs, terms, vectorOrder).map((c) => c.id),
          );
        },
      ),
      { numRuns: 500 },
    );
  });

  it('sees a section whose chunks changed (same section id, new text) afresh', () => {
    const before = [chunk('same', 0, 'milk'), chunk('same', 1, 'grind')];
    const after = [chunk('same', 0, 'grind'), chunk('same', 1, 'milk')];
    const terms = new Set(contentTerms('grind'));
    expect(bestChunks(before, terms, []).map((c) => c.ord)).toEqual([1, 0]);
    expect(bestChunks(after, terms, []).map((c) => c.ord)).toEqual([0, 1]);
  });
});
