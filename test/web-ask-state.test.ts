// How the Ask view's state follows the streamed events (web/src/views/ask-state.ts).
import { describe, expect, it } from 'vitest';
import { afterEvent, started } from '../web/src/views/ask-state.js';
import type { AnswerJson, ContextSectionJson } from '../web/src/wire.js';

const section: ContextSectionJson = {
  n: 1,
  section_id: 'd#1',
  doc_id: 'd',
  title: 'Boiling',
  breadcrumb: 'Eggs › Boiling',
  source: 'eggs.md',
  pages: null,
  score: 1,
  text: 'Boil for ten minutes.',
};
const claims = {
  answer: 'Boil for ten minutes [1].',
  claims: [{ text: 'Boil for ten minutes.', citations: [1] }],
  cited: [
    { n: 1, section_id: 'd#1', doc_id: 'd', breadcrumb: 'Eggs › Boiling', source: 'eggs.md', pages: null },
  ],
  invalid_citations: [],
  abstained: null,
};

describe('the Ask view state', () => {
  it('moves retrieving → writing → measuring → done, gathering the streamed text', () => {
    let s = started('How long?');
    expect(s.phase).toBe('retrieving');
    s = afterEvent(s, { type: 'context', sections: [section] });
    expect([s.phase, s.sections.length]).toEqual(['writing', 1]);
    s = afterEvent(s, { type: 'token', text: 'Boil for ' });
    s = afterEvent(s, { type: 'token', text: 'ten minutes [1].' });
    expect([s.streamed, s.tokens]).toEqual(['Boil for ten minutes [1].', 2]);
    s = afterEvent(s, { type: 'claims', claims });
    expect(s.phase).toBe('measuring');
    s = afterEvent(s, { type: 'measured', generator: 'extractive' });
    expect(s.phase).toBe('measuring');
    const answer: AnswerJson = {
      ...claims,
      question: 'How long?',
      context: [section],
      generator: 'x',
      timings_ms: {},
    };
    s = afterEvent(s, { type: 'done', answer });
    expect([s.phase, s.answer, s.claims]).toEqual(['done', answer, answer]);
  });

  it('starts each question afresh', () => {
    const s = afterEvent(started('a'), { type: 'token', text: 'x' });
    expect(started('b')).toMatchObject({
      question: 'b',
      streamed: '',
      tokens: 0,
      sections: [],
      answer: null,
    });
    expect(s.streamed).toBe('x');
  });
});
