// "Open my last answer in the lab": leaving context sections out of a live answer's measurement.
import { describe, expect, it } from 'vitest';
import type { ContextSection } from '../answer/context-section.js';
import { measureAnswer } from './answer-grounding.js';
import { measureAnswerWithout, withoutSections, type LabAnswer } from './answer-lab.js';
import { createLexicalJudge } from './judges/lexical.js';

/** Sections of one document, `d#n`, differing only in number and text. */
const section = (n: number, text: string): ContextSection => {
  const common = { docId: 'd', breadcrumb: `Doc › S${n}`, source: 'doc.md', pages: null, score: 1 };
  return { ...common, n, sectionId: `d#${n}`, title: `S${n}`, text };
};

const answer: LabAnswer = {
  context: [
    section(1, 'Boil the eggs for ten minutes.'),
    section(2, 'Cool the eggs in ice water.'),
    section(3, 'Boil the eggs for ten minutes, then peel.'),
  ],
  answer: 'Boil the eggs for ten minutes [1]. Cool the eggs in ice water [2]. Fly to the moon [9].',
  claims: [
    { text: 'Boil the eggs for ten minutes.', citations: [1] },
    { text: 'Cool the eggs in ice water.', citations: [2] },
    { text: 'Fly to the moon.', citations: [9] },
  ],
};
const judge = createLexicalJudge();

describe('withoutSections', () => {
  it('renumbers the kept sections and their citations; a left-out or out-of-range citation becomes -n', () => {
    const { answer: a, originalN } = withoutSections(answer, new Set([2]));
    expect(a.context.map((c) => [c.n, c.sectionId])).toEqual([
      [1, 'd#1'],
      [2, 'd#3'],
    ]);
    expect(a.claims.map((c) => c.citations)).toEqual([[1], [-2], [-9]]);
    expect(originalN).toEqual([1, 3]);
    expect(a.answer).toBe(answer.answer);
  });

  it('keeps everything as it was when nothing is left out (except out-of-range numbers, as -n)', () => {
    const { answer: a, originalN } = withoutSections(answer, new Set());
    expect(a.context).toEqual(answer.context);
    expect(a.claims.map((c) => c.citations)).toEqual([[1], [2], [-9]]);
    expect(originalN).toEqual([1, 2, 3]);
  });
});

describe('measureAnswerWithout', () => {
  it('with nothing left out equals measureAnswer', async () => {
    expect(await measureAnswerWithout(answer, new Set(), judge)).toEqual(await measureAnswer(answer, judge));
  });

  it('leaving out the cited section of a claim another section also supports: faithfulness holds, citation support falls', async () => {
    const all = await measureAnswer(answer, judge);
    expect([all.faithfulness.num, all.citationSupport.num, all.citationPrecision.num]).toEqual([2, 2, 2]);
    const g = await measureAnswerWithout(answer, new Set([1]), judge);
    // Section 3 still supports "Boil…", but the claim cites [1], now not retrieved.
    expect(g.faithfulness).toMatchObject({ num: 2, den: 3 });
    expect(g.citationSupport).toMatchObject({ num: 1, den: 3 });
    expect(g.citationPrecision).toMatchObject({ num: 1, den: 3 });
    expect(g.supportedBy).toEqual([[3], [2], []]);
    expect(g.claims[0]!.citations).toEqual([{ ref: 1, sectionId: null, valid: false, precise: false }]);
    expect(g.claims[1]!.citations[0]).toMatchObject({ ref: 2, sectionId: 'd#2', valid: true });
    expect(g.claims[2]!.citations[0]).toMatchObject({ ref: 9, sectionId: null, valid: false });
  });

  it('leaving out every section: faithfulness 0, citation support 0, context relevance still Undefined', async () => {
    const g = await measureAnswerWithout(answer, new Set([1, 2, 3]), judge);
    expect(g.faithfulness).toMatchObject({ num: 0, den: 3, value: 0 });
    expect(g.citationSupport).toMatchObject({ num: 0, den: 3, value: 0 });
    expect(g.contextRelevance.value).toBeNull();
    expect(g.supportedBy).toEqual([[], [], []]);
  });
});
