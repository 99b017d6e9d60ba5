import { describe, expect, it } from 'vitest';
import type { ContextSection } from '../answer/context-section.js';
import { groundingJson } from '../wire/answers.js';
import { measureAnswer, NO_RELEVANCE_LABELS } from './answer-grounding.js';
import { createLexicalJudge } from './judges/lexical.js';

const section = (n: number, text: string): ContextSection => ({
  n,
  sectionId: `d#${n}`,
  docId: 'd',
  title: `S${n}`,
  breadcrumb: `Doc › S${n}`,
  source: 'doc.md',
  pages: null,
  text,
  score: 1,
});

const context = [
  section(1, 'Boil the eggs for ten minutes.'),
  section(2, 'Cool the eggs in ice water.'),
  section(3, 'Boil the eggs for ten minutes, then peel.'),
];
const judge = createLexicalJudge();

describe('measureAnswer', () => {
  it('measures the claims against the context and names every section supporting each', async () => {
    const g = await measureAnswer(
      {
        context,
        answer: 'Boil the eggs for ten minutes [2]. Cool the eggs in ice water [2]. Fly to the moon [9].',
        claims: [
          { text: 'Boil the eggs for ten minutes.', citations: [2] },
          { text: 'Cool the eggs in ice water.', citations: [2] },
          { text: 'Fly to the moon.', citations: [9] },
        ],
      },
      judge,
    );
    expect(g.faithfulness).toMatchObject({ num: 2, den: 3 });
    expect(g.citationSupport).toMatchObject({ num: 1, den: 3 });
    expect(g.citationPrecision).toMatchObject({ num: 1, den: 3 });
    expect(g.supportedBy).toEqual([[1, 3], [2], []]);
    expect(g.contextRelevance).toEqual({ num: 0, den: 0, value: null, undefinedReason: NO_RELEVANCE_LABELS });
    expect(g.completeness.value).toBeNull();
    const json = groundingJson(g, judge);
    expect(json.judge).toEqual({ id: 'lexical-proxy', proxy: true });
    expect(json.completeness).toMatchObject({
      value: null,
      undefined_reason: expect.stringMatching(/no required facts/),
    });
    expect((json.claims as { citations: unknown[] }[])[2]!.citations).toEqual([
      { n: 9, section_id: null, valid: false },
    ]);
  });

  it('leaves the claim measurements Undefined for an answer without claims (an abstention)', async () => {
    const g = await measureAnswer(
      { context, answer: 'The sources do not answer this question.', claims: [] },
      judge,
    );
    expect(g.faithfulness.value).toBeNull();
    expect(g.citationPrecision.value).toBeNull();
    expect(g.supportedBy).toEqual([]);
  });
});
