import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../store/sqlite/sqlite-store.js';
import { makeDoc, writeFakeDocument } from '../store/store.contract.js';
import { lexicalLeg } from './lexical-leg.js';

const dir = mkdtempSync(join(tmpdir(), 'quiver-lexleg-'));
let store: SqliteStore;
const W = { body: 1, title: 3, heading: 1 };
const FEEDBACK = { weight: 0.2, docs: 3, terms: 10 };

// Twelve notes on kilns (the query's word), one on "firing chambers" that never says "kiln" but
// shares their vocabulary, and filler that shares nothing (so the shared words stay under a fifth of all sections).
beforeAll(async () => {
  store = SqliteStore.open(join(dir, 'v.db'));
  const texts: [string, string][] = [];
  for (let i = 0; i < 12; i++)
    texts.push([
      `kiln-${i}.md`,
      `The kiln reaches cone ${i} when glaze melts; stoneware firing needs reduction atmosphere.`,
    ]);
  texts.push([
    'chamber.md',
    'Stoneware firing chambers hold glaze at cone temperatures in a reduction atmosphere.',
  ]);
  for (let i = 0; i < 60; i++)
    texts.push([`other-${i}.md`, `Bread dough rises ${i} hours before baking in the oven.`]);
  for (const [source, text] of texts)
    await writeFakeDocument(store, makeDoc(source, [{ title: source, text }]), 't');
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const sources = async (hits: { docId: string }[]): Promise<string[]> => {
  const docs = new Map((await store.listDocuments()).map((d) => [d.id, d.source] as const));
  return hits.map((h) => docs.get(h.docId)!);
};

describe('lexicalLeg', () => {
  it('without feedback is the store’s BM25 ranking', async () => {
    const base = { fetch: 20, mode: 'any' as const, fieldWeights: W };
    const plain = await store.lexicalSearch({ terms: ['kiln'], mode: 'any', limit: 20, weights: W });
    expect(await lexicalLeg(store, 'the kiln', base)).toEqual(plain);
    expect(await lexicalLeg(store, 'the kiln', { ...base, feedback: { ...FEEDBACK, weight: 0 } })).toEqual(
      plain,
    );
    expect(await sources(plain)).not.toContain('chamber.md');
  });

  it('with feedback finds a section that shares the best hits’ words but not the query’s', async () => {
    const hits = await lexicalLeg(store, 'the kiln', {
      fetch: 20,
      mode: 'any',
      fieldWeights: W,
      feedback: FEEDBACK,
    });
    const s = await sources(hits);
    expect(s).toContain('chamber.md');
    expect(s.slice(0, 12).every((x) => x.startsWith('kiln-'))).toBe(true);
    expect(s.some((x) => x.startsWith('other-'))).toBe(false);
  });

  it('stays off when the first pass matched too few sections to choose from, and outside any mode', async () => {
    const few = { fetch: 20, mode: 'any' as const, fieldWeights: W, feedback: { ...FEEDBACK, docs: 6 } };
    const plain = await store.lexicalSearch({ terms: ['kiln'], mode: 'any', limit: 20, weights: W });
    expect(await lexicalLeg(store, 'kiln', few)).toEqual(plain);
    const all = await lexicalLeg(store, 'kiln', { ...few, mode: 'all', feedback: FEEDBACK });
    expect(await sources(all)).not.toContain('chamber.md');
  });
});
