// The lab's mapping of seed 000's states to `measureGrounding` inputs, on a tiny hand-written model
// (the 120 fixture states are checked in grounding.fixture.test.ts).
import { describe, expect, it } from 'vitest';
import {
  allSelections,
  citedSource,
  claimTexts,
  labClaims,
  labInput,
  matchedSource,
  type GroundingLabModel,
} from './grounding-lab.js';
import { measureGrounding } from './grounding.js';
import { createFactIdJudge } from './judges/fact-id.js';

const model: GroundingLabModel = {
  sources: {
    D1: { text: 'Opens Tuesday at 10:00.', facts: ['day', 'time'], relevant: true },
    D2: { text: 'Costs 4 credits.', facts: ['fee'], relevant: true },
    D3: { text: 'Blue benches.', facts: ['benches'], relevant: false },
  },
  required: ['day', 'time', 'fee'],
  contexts: { both: ['D1', 'D2'], none: [], ghost: ['D9', 'D1'] },
  answers: { full: ['day', 'time', 'fee'], free: ['free'], empty: [] },
  citation_rules: ['matched', 'mixed'],
  states: [
    {
      claims: [
        { fact: 'day', text: 'It opens Tuesday.', cites: 'D1' },
        { fact: 'day', text: 'A second phrasing is ignored.', cites: 'D1' },
        { fact: 'fee', text: 'It costs 4 credits.', cites: 'D2' },
      ],
    },
  ],
};
const judge = createFactIdJudge();

describe('the grounding lab model', () => {
  it('takes each fact’s claim text from the first state that phrases it', () => {
    expect(claimTexts(model)).toEqual(
      new Map([
        ['day', 'It opens Tuesday.'],
        ['fee', 'It costs 4 credits.'],
      ]),
    );
  });

  it('cites by rule: matched by fact, free admission to D2, mixed turns to D3 after two, none and unknown cite nothing', () => {
    expect(matchedSource(model, 'time')).toBe('D1');
    expect(matchedSource(model, 'free')).toBe('D2');
    expect(matchedSource(model, 'unknown')).toBeNull();
    expect([0, 1, 2].map((i) => citedSource(model, 'fee', i, 'mixed'))).toEqual(['D2', 'D2', 'D3']);
    expect(citedSource(model, 'fee', 0, 'misplaced')).toBe('D3');
    expect(citedSource(model, 'fee', 0, 'none')).toBeNull();
    expect(citedSource(model, 'fee', 0, 'bogus')).toBeNull();
  });

  it('builds the claims of an answer bundle, a missing text falling back to the fact id', () => {
    expect(labClaims(model, { context: 'both', answer: 'full', citationRule: 'mixed' })).toEqual([
      { fact: 'day', text: 'It opens Tuesday.', cites: 'D1' },
      { fact: 'time', text: 'time', cites: 'D1' },
      { fact: 'fee', text: 'It costs 4 credits.', cites: 'D3' },
    ]);
    expect(labClaims(model, { context: 'both', answer: 'nope', citationRule: 'matched' })).toEqual([]);
  });

  it('maps a state to the measurement input: unknown sources and contexts retrieve nothing', async () => {
    const claims = labClaims(model, { context: 'ghost', answer: 'full', citationRule: 'matched' });
    const input = labInput(model, 'ghost', claims, judge);
    expect(input.retrieved.map((s) => s.id)).toEqual(['D1']);
    expect(input.answerText).toBe('It opens Tuesday. time It costs 4 credits.');
    expect(input.requiredFacts).toEqual([
      { id: 'day', phrasings: [] },
      { id: 'time', phrasings: [] },
      { id: 'fee', phrasings: [] },
    ]);
    const r = await measureGrounding(input);
    // D2 (cited by the fee claim) was not retrieved: that citation is invalid though D2 entails it.
    expect([r.faithfulness.num, r.citationSupport.num, r.completeness.num]).toEqual([2, 2, 3]);
    expect(labInput(model, 'missing', [], judge).retrieved).toEqual([]);
    expect(labInput(model, 'both', [], judge, ['Tuesday']).requiredFacts).toEqual(['Tuesday']);
  });

  it('an empty answer: claim measures Undefined, completeness 0', async () => {
    const r = await measureGrounding(labInput(model, 'both', [], judge));
    expect(r.faithfulness.value).toBeNull();
    expect(r.citationPrecision.value).toBeNull();
    expect(r.completeness).toEqual({ num: 0, den: 3, value: 0 });
  });

  it('lists every state, contexts × answers × rules', () => {
    const all = allSelections(model);
    expect(all).toHaveLength(3 * 3 * 2);
    expect(all[0]).toEqual({ context: 'both', answer: 'full', citationRule: 'matched' });
    expect(new Set(all.map((s) => `${s.context}/${s.answer}/${s.citationRule}`)).size).toBe(18);
  });
});
