import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isQuiverError } from '../errors.js';
import { hasSearchableWord } from '../retrieve/query-terms.js';
import { formatQuestionSet, parseQuestionSet, requiredFactsOf, wantsAnswers } from './question-set.js';
import type { EvalQuestion } from './question-set.js';

function errorOf(fn: () => unknown): { code: string; message: string; details: Record<string, unknown> } {
  try {
    fn();
  } catch (e) {
    if (isQuiverError(e)) return e;
    throw e;
  }
  throw new Error('expected a QuiverError');
}

describe('parseQuestionSet', () => {
  it('reads every field and normalises them', () => {
    const [q] = parseQuestionSet(
      JSON.stringify({
        id: 7,
        question: ' Why? ',
        relevant: { 'a.md': 2 },
        required_facts: ['ten minutes', { id: 'f', phrasings: ['late winter'] }],
        reference: 'Because.',
        sources: ['a.md', { id: 'b.md', facts: ['f'] }],
      }),
      'q.jsonl',
    );
    expect(q).toEqual({
      id: '7',
      question: 'Why?',
      relevant: { 'a.md': 2 },
      requiredFacts: ['ten minutes', { id: 'f', phrasings: ['late winter'] }],
      reference: 'Because.',
      sources: [
        { id: 'a.md', facts: [] },
        { id: 'b.md', facts: ['f'] },
      ],
    });
  });

  it('needs only a question: the id defaults to the line number, blank lines are skipped', () => {
    const qs = parseQuestionSet('\n{"question": "a"}\n\n{"question": "b"}\n', 'q.jsonl');
    expect(qs.map((q) => [q.id, q.question, q.relevant, q.requiredFacts, q.sources])).toEqual([
      ['2', 'a', {}, [], []],
      ['4', 'b', {}, [], []],
    ]);
    expect(qs[0]!.reference).toBeUndefined();
  });

  it('makes authored sources relevant (grade 1) when there is no relevant map', () => {
    const [q] = parseQuestionSet('{"question": "x", "sources": ["a.md", {"id": "d#2"}]}');
    expect(q!.relevant).toEqual({ 'a.md': 1, 'd#2': 1 });
    const [r] = parseQuestionSet('{"question": "x", "sources": ["a.md"], "relevant": {"b.md": 3}}');
    expect(r!.relevant).toEqual({ 'b.md': 3 });
  });

  it.each([
    ['{"question": "ok"}\n{not json}', 2, /q\.jsonl line 2: not valid JSON/],
    ['{"question": "ok"}\n\n["question"]', 3, /line 3: expected a JSON object/],
    ['{"id": "a"}', 1, /line 1: question/],
    ['{"question": "   "}', 1, /line 1: question must be a non-empty string/],
    ['{"question": "ok"}\n{"question": "?!"}', 2, /line 2: question must contain a word to search for/],
    ['{"question": "x", "relevant": {"a.md": "high"}}', 1, /line 1: relevant\.a\.md/],
    ['{"question": "x", "required_facts": [3]}', 1, /line 1: required_facts\.0/],
    ['{"question": "x", "required_facts": [{"id": "f"}]}', 1, /line 1: required_facts\.0/],
    ['{"question": "x", "reference": 42}', 1, /line 1: reference/],
    ['{"question": "x", "sources": [{}]}', 1, /line 1: sources\.0/],
    ['{"id": "a", "question": "x"}\n{"id": "a", "question": "y"}', 2, /line 2: id "a" repeats line 1/],
    ['{"question": "x"}\n{"id": 1, "question": "y"}', 2, /line 2: id "1" repeats line 1/],
  ])('rejects a bad line with its number: %s', (text, line, message) => {
    const e = errorOf(() => parseQuestionSet(text, 'q.jsonl'));
    expect(e.code).toBe('BAD_INPUT');
    expect(e.message).toMatch(message);
    expect(e.details).toEqual({ file: 'q.jsonl', line });
  });

  it('round-trips through formatQuestionSet (property)', () => {
    const key = fc.string({ minLength: 1, maxLength: 8 });
    const question = fc.record({
      id: fc.string({ minLength: 1, maxLength: 6 }),
      question: fc
        .string({ minLength: 1, maxLength: 30 })
        .filter((s) => s.trim() === s && hasSearchableWord(s)),
      relevant: fc.dictionary(key, fc.integer({ min: 1, max: 3 }), { maxKeys: 3 }),
      requiredFacts: fc.array(
        fc.oneof(key, fc.record({ id: key, phrasings: fc.array(key, { maxLength: 2 }) })),
        { maxLength: 3 },
      ),
      reference: fc.option(
        fc.string({ minLength: 1, maxLength: 10 }).filter((s) => s.trim() !== ''),
        { nil: undefined },
      ),
      sources: fc.array(fc.record({ id: key, facts: fc.array(key, { maxLength: 2 }) }), { maxLength: 2 }),
    });
    fc.assert(
      fc.property(fc.uniqueArray(question, { selector: (q) => q.id, maxLength: 5 }), (qs) => {
        const clean: EvalQuestion[] = qs.map((q) => {
          const { reference, ...rest } = q;
          const relevant =
            Object.keys(q.relevant).length > 0
              ? q.relevant
              : Object.fromEntries(q.sources.map((s) => [s.id, 1]));
          return reference === undefined ? { ...rest, relevant } : { ...rest, relevant, reference };
        });
        expect(parseQuestionSet(formatQuestionSet(clean))).toEqual(clean);
      }),
    );
  });
});

describe('required facts and answers', () => {
  it('uses required_facts, else the reference as the one fact, else nothing', () => {
    const [a, b, c] = parseQuestionSet(
      [
        '{"question": "a", "required_facts": ["x"], "reference": "r"}',
        '{"question": "b", "reference": "r"}',
        '{"question": "c"}',
      ].join('\n'),
    );
    expect(requiredFactsOf(a!)).toEqual(['x']);
    expect(requiredFactsOf(b!)).toEqual(['r']);
    expect(requiredFactsOf(c!)).toEqual([]);
    expect(wantsAnswers([c!])).toBe(false);
    expect(wantsAnswers([c!, b!])).toBe(true);
  });
});
