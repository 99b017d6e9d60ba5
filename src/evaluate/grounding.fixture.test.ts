// Seed 000's teaching model: all 120 states of `fixtures/grounding-states.json` (a copy of
// /work/shared/fixtures/grounding_states.json) through the general `measureGrounding`, with the
// fact-id judge, must reproduce every value, numerator, denominator and Undefined.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { labClaims, labInput, type GroundingLabModel } from './grounding-lab.js';
import { measureGrounding } from './grounding.js';
import type { GroundingInput, GroundingResult } from './grounding.js';
import { createFactIdJudge } from './judges/fact-id.js';
import type { Judge } from './judges/judge.js';
import { createLexicalJudge } from './judges/lexical.js';
import type { Measurement } from './measurement.js';

interface Expected {
  num: number;
  den: number;
  value: number;
}
interface State {
  context: string;
  answer: string;
  citation_rule: string;
  context_relevance: Expected | null;
  faithfulness: Expected | null;
  citation_support: Expected | null;
  citation_precision: Expected | null;
  completeness: Expected | null;
  claims: { fact: string; text: string; cites: string | null }[];
}

const fixture = JSON.parse(
  readFileSync(new URL('./fixtures/grounding-states.json', import.meta.url), 'utf8'),
) as Omit<GroundingLabModel, 'states'> & { states: State[] };

/** Text phrasings of the required facts, for the text-matching variant of completeness. */
const PHRASINGS: Record<string, string> = { day: 'Tuesday', time: '10:00', fee: '4 fictional credits' };

/** The shared mapping of the lab (`labInput`); 'phrasings' swaps the {id} facts for plain strings matched on the text. */
function inputFor(state: State, judge: Judge, facts: 'ids' | 'phrasings'): GroundingInput {
  const required = facts === 'ids' ? undefined : fixture.required.map((id) => PHRASINGS[id] ?? id);
  return labInput(fixture, state.context, state.claims, judge, required);
}

function expectMatches(got: Measurement, want: Expected | null, label: string): void {
  if (want === null) {
    expect(got.value, `${label} should be Undefined`).toBeNull();
    expect(got.value === null ? got.undefinedReason.length : 0, `${label} reason`).toBeGreaterThan(0);
    return;
  }
  expect(got.num, `${label} num`).toBe(want.num);
  expect(got.den, `${label} den`).toBe(want.den);
  expect(got.value, `${label} value`).not.toBeNull();
  expect(got.value!, `${label} value`).toBeCloseTo(want.value, 12);
}

function check(result: GroundingResult, state: State): void {
  const name = `${state.context}/${state.answer}/${state.citation_rule}`;
  expectMatches(result.contextRelevance, state.context_relevance, `${name} context relevance`);
  expectMatches(result.faithfulness, state.faithfulness, `${name} faithfulness`);
  expectMatches(result.citationSupport, state.citation_support, `${name} citation support`);
  expectMatches(result.citationPrecision, state.citation_precision, `${name} citation precision`);
  expectMatches(result.completeness, state.completeness, `${name} completeness`);
}

describe('grounding teaching model (seed 000)', () => {
  it('has 5 contexts × 6 answers × 4 citation rules = 120 distinct states', () => {
    expect(fixture.states).toHaveLength(120);
    const keys = new Set(fixture.states.map((s) => `${s.context}/${s.answer}/${s.citation_rule}`));
    expect(keys.size).toBe(120);
    for (const s of fixture.states) expect(s.claims.map((c) => c.fact)).toEqual(fixture.answers[s.answer]);
  });

  it('the lab derives every state’s claims and citations from its answer bundle and citation rule', () => {
    for (const s of fixture.states) {
      const selection = { context: s.context, answer: s.answer, citationRule: s.citation_rule };
      expect(labClaims(fixture, selection), `${s.context}/${s.answer}/${s.citation_rule}`).toEqual(s.claims);
    }
  });

  it('the fact-id judge reproduces all 120 states (completeness by claim fact ids)', async () => {
    const judge = createFactIdJudge();
    for (const state of fixture.states) check(await measureGrounding(inputFor(state, judge, 'ids')), state);
  });

  it('reproduces all 120 states with completeness matched on answer text phrasings', async () => {
    const judge = createFactIdJudge();
    for (const state of fixture.states)
      check(await measureGrounding(inputFor(state, judge, 'phrasings')), state);
  });

  it('the lexical proxy judge agrees with the fact-id judge on all 120 states', async () => {
    // Each claim's words are covered by its own source (≥ 0.8) and not by the others, and the
    // number rule keeps "09:00" from matching "10:00".
    const judge = createLexicalJudge();
    for (const state of fixture.states)
      check(await measureGrounding(inputFor(state, judge, 'phrasings')), state);
  });

  it('with one citation per claim the ALCE columns equal citation support and precision', async () => {
    const judge = createFactIdJudge();
    for (const state of fixture.states) {
      const r = await measureGrounding(inputFor(state, judge, 'ids'));
      expect(r.alceCitationRecall).toEqual(r.citationSupport);
      expect(r.alceCitationPrecision).toEqual(r.citationPrecision);
    }
  });
});
