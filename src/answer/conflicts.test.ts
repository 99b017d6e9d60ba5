import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CONFLICT_MAX_SPAN_WORDS,
  CONFLICT_MIN_SHARED_WORDS,
  findConflicts,
  sentenceConflict,
  type Conflict,
} from './conflicts.js';
import { splitSentences } from './sentences.js';

/** The differing words of each side, as text. */
function spans(a: string, b: string): { kind: Conflict['kind']; a: string; b: string } | null {
  const c = sentenceConflict(a, b);
  return c === null ? null : { kind: c.kind, a: a.slice(...c.a), b: b.slice(...c.b) };
}

describe('sentenceConflict: kinds', () => {
  it('finds a changed number (numerals, decimals, number words)', () => {
    expect(
      spans('The arena can seat 3,677 people for hockey.', 'The arena can seat 4,120 people for hockey.'),
    ).toEqual({ kind: 'number', a: '3,677', b: '4,120' });
    expect(spans('The dose was 1.5 mg per day for adults.', 'The dose was 2 mg per day for adults.')).toEqual(
      {
        kind: 'number',
        a: '1.5',
        b: '2',
      },
    );
    expect(
      spans('The team had twelve players on the field.', 'The team had fifteen players on the field.'),
    ).toEqual({ kind: 'number', a: 'twelve', b: 'fifteen' });
    // A number word is never a year: `thousand` reads 1000 but stays a number.
    expect(
      spans('The club had a thousand members that year.', 'The club had a million members that year.'),
    ).toEqual({
      kind: 'number',
      a: 'thousand',
      b: 'million',
    });
  });

  it('finds a changed date: a year, a month, a day next to a month, a decade', () => {
    expect(spans('He was born in 1990 in a small town.', 'He was born in 1991 in a small town.')).toEqual({
      kind: 'date',
      a: '1990',
      b: '1991',
    });
    expect(
      spans(
        'It was announced on March 22, 2003 in Los Angeles.',
        'It was announced on April 22, 2003 in Los Angeles.',
      ),
    ).toEqual({ kind: 'date', a: 'March', b: 'April' });
    expect(
      spans('The album was released on 12 May in Europe.', 'The album was released on 15 May in Europe.'),
    ).toEqual({ kind: 'date', a: '12', b: '15' });
    expect(
      spans('The 1990s were a decade of change here.', 'The 1980s were a decade of change here.'),
    ).toEqual({
      kind: 'date',
      a: '1990s',
      b: '1980s',
    });
  });

  it('finds a changed name, at the start of the sentence or after a shared first name', () => {
    expect(spans('Paris is the capital of France.', 'Lyon is the capital of France.')).toEqual({
      kind: 'name',
      a: 'Paris',
      b: 'Lyon',
    });
    expect(spans('It was hosted by John Waters.', 'It was hosted by John Smith.')).toEqual({
      kind: 'name',
      a: 'Waters',
      b: 'Smith',
    });
  });

  it('finds a negation on one side only, with an empty span on the other side', () => {
    const a = 'Scott Derrickson is an American director and screenwriter.';
    const b = 'Scott Derrickson is not an American director and screenwriter.';
    const c = sentenceConflict(a, b);
    expect(c).toEqual({ kind: 'negation', a: [20, 20], b: [20, 23] });
    expect(b.slice(20, 23)).toBe('not');
    expect(
      spans("The drug isn't effective against the virus.", 'The drug is effective against the virus.'),
    ).toEqual({ kind: 'negation', a: "n't", b: '' });
    expect(
      spans('The drug cannot cross the blood brain barrier.', 'The drug can cross the blood brain barrier.'),
    ).toEqual({ kind: 'negation', a: 'not', b: '' });
    expect(
      spans('There is no cure for the disease today.', 'There is a cure for the disease today.'),
    ).toEqual({
      kind: 'negation',
      a: 'no',
      b: 'a',
    });
  });

  it('calls values of different kinds "other"', () => {
    expect(
      spans('The final was played in 1990 before a crowd.', 'The final was played in Paris before a crowd.'),
    ).toEqual({ kind: 'other', a: '1990', b: 'Paris' });
  });
});

describe('sentenceConflict: not conflicts', () => {
  it('identical sentences, also after case folding', () => {
    const s = 'The arena can seat 3,677 people for hockey.';
    expect(sentenceConflict(s, s)).toBeNull();
    expect(sentenceConflict(s, s.toUpperCase())).toBeNull();
  });

  it('empty and blank sentences', () => {
    expect(sentenceConflict('', '')).toBeNull();
    expect(sentenceConflict('', 'Paris is the capital of France.')).toBeNull();
    expect(sentenceConflict('  ', ' ')).toBeNull();
  });

  it('a reworded sentence, a changed stop-word, a spelled-out equal number, a contraction', () => {
    expect(
      sentenceConflict(
        'The film was released in 1990 to good reviews.',
        'The movie was released in 1990 to good reviews.',
      ),
    ).toBeNull();
    expect(
      sentenceConflict('The cat sat on the mat in the sun.', 'The cat sat on a mat in the sun.'),
    ).toBeNull();
    expect(
      sentenceConflict('The team had twelve players on the field.', 'The team had 12 players on the field.'),
    ).toBeNull();
    expect(
      sentenceConflict(
        "The drug isn't effective against the virus.",
        'The drug is not effective against the virus.',
      ),
    ).toBeNull();
  });

  it('reordered values are no change', () => {
    expect(
      sentenceConflict(
        'It was first shown on March 22 in Paris.',
        'It was first shown on 22 March in Paris.',
      ),
    ).toBeNull();
  });

  it('a value changed together with the thing it is about', () => {
    expect(
      sentenceConflict(
        'The arena number 3 was opened by the mayor of the town.',
        'The bridge number 5 was opened by the mayor of the town.',
      ),
    ).toBeNull();
    // A negation that comes with a reworded verb is not read as the same statement.
    expect(
      sentenceConflict(
        'The striker did not win the award that year.',
        'The striker won the award that year.',
      ),
    ).toBeNull();
  });

  it('a value added on one side only', () => {
    expect(
      sentenceConflict(
        'He was born in a small town near the sea.',
        'He was born in 1990 in a small town near the sea.',
      ),
    ).toBeNull();
  });

  it('sentences that differ in many places', () => {
    expect(
      sentenceConflict(
        'In 1990 the team of Paris won the cup at home.',
        'In 1995 the club of Lyon lost the final away.',
      ),
    ).toBeNull();
    // Two changes far apart: the one region between them is longer than CONFLICT_MAX_SPAN_WORDS.
    expect(
      sentenceConflict(
        'Smith scored 12 goals for the club in the long hard season of 1990.',
        'Smith scored 15 goals for the club in the long hard season of 1991.',
      ),
    ).toBeNull();
  });

  it('a region of more than CONFLICT_MAX_SPAN_WORDS words', () => {
    const shared = 'the bridge over the river was built in';
    const long = Array.from({ length: CONFLICT_MAX_SPAN_WORDS + 1 }, (_, i) => `Word${i}`).join(' ');
    expect(sentenceConflict(`${shared} ${long} by the city.`, `${shared} 1990 by the city.`)).toBeNull();
  });

  it('sentences sharing fewer than CONFLICT_MIN_SHARED_WORDS words, or under the shared ratio', () => {
    expect(CONFLICT_MIN_SHARED_WORDS).toBe(5);
    expect(sentenceConflict('Paris is the capital.', 'Lyon is the capital.')).toBeNull(); // 3 shared
    // 5 shared of 9 words < 0.7.
    expect(
      sentenceConflict('Smith scored 12 goals in the cup', 'Smith scored 15 goals in extra time of the cup'),
    ).toBeNull();
  });

  it('citation markers are not numbers of the statement', () => {
    expect(
      sentenceConflict('The arena can seat 3,677 people. [1]', 'The arena can seat 3,677 people. [2]'),
    ).toBeNull();
    expect(spans('The arena can seat 3,677 people [1].', 'The arena can seat 4,120 people [2].')).toEqual({
      kind: 'number',
      a: '3,677',
      b: '4,120',
    });
  });
});

/** Sentences over a small vocabulary with values, names and negations, so that pairs often nearly match. */
const vocabulary = [
  'the',
  'arena',
  'seats',
  'Paris',
  'Lyon',
  'not',
  "isn't",
  '12',
  '15',
  'twelve',
  '1990',
  'May',
  'of',
];
const sentence = fc
  .array(fc.constantFrom(...vocabulary), { minLength: 0, maxLength: 12 })
  .map((ws) => `${ws.join(' ')}.`);
/** A sentence and a copy with one short region replaced. */
const nearPair = fc
  .tuple(
    fc.array(fc.constantFrom(...vocabulary), { minLength: 5, maxLength: 12 }),
    fc.nat(),
    fc.array(fc.constantFrom(...vocabulary), { maxLength: 3 }),
    fc.nat(3),
  )
  .map(([ws, at, insert, remove]) => {
    const i = at % (ws.length + 1);
    const copy = [...ws.slice(0, i), ...insert, ...ws.slice(i + remove)];
    return [`${ws.join(' ')}.`, `${copy.join(' ')}.`] as const;
  });

describe('sentenceConflict: properties', () => {
  it('is symmetric: swapping a and b swaps the spans', () => {
    fc.assert(
      fc.property(fc.oneof(nearPair, fc.tuple(sentence, sentence)), ([a, b]) => {
        const ab = sentenceConflict(a, b);
        const ba = sentenceConflict(b, a);
        expect(ba).toEqual(ab === null ? null : { kind: ab.kind, a: ab.b, b: ab.a });
      }),
      { numRuns: 500 },
    );
  });

  it('a sentence never conflicts with itself', () => {
    fc.assert(
      fc.property(fc.oneof(sentence, fc.string()), (s) => {
        expect(sentenceConflict(s, s)).toBeNull();
      }),
    );
  });

  it('spans are in bounds, at word boundaries, and at most CONFLICT_MAX_SPAN_WORDS words', () => {
    fc.assert(
      fc.property(nearPair, ([a, b]) => {
        const c = sentenceConflict(a, b);
        if (c === null) return;
        for (const [s, [start, end]] of [
          [a, c.a],
          [b, c.b],
        ] as const) {
          expect(0 <= start && start <= end && end <= s.length).toBe(true);
          expect(s.slice(start, end)).toBe(s.slice(start, end).trim());
          expect(s.slice(start, end).split(/\s+/u).filter(Boolean).length).toBeLessThanOrEqual(
            CONFLICT_MAX_SPAN_WORDS,
          );
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('findConflicts', () => {
  const sections = [
    { n: 1, sectionId: 'a#1', text: 'The arena opened in 1995. The arena can seat 3,677 people for hockey.' },
    {
      n: 2,
      sectionId: 'b#1',
      text: 'Hockey is popular in Maine. The arena can seat 4,120 people for hockey.',
    },
    { n: 3, sectionId: 'c#1', text: 'The arena opened in 1995. It was built by the city of Lewiston.' },
  ];

  it('finds a conflict across sections with sides ordered by n and spans in their sentences', () => {
    expect(findConflicts(sections)).toEqual([
      {
        kind: 'number',
        sides: [
          {
            n: 1,
            sectionId: 'a#1',
            sentence: 'The arena can seat 3,677 people for hockey.',
            span: '3,677',
            spanStart: 19,
            spanEnd: 24,
          },
          {
            n: 2,
            sectionId: 'b#1',
            sentence: 'The arena can seat 4,120 people for hockey.',
            span: '4,120',
            spanStart: 19,
            spanEnd: 24,
          },
        ],
      },
    ]);
  });

  it('orders sides by n whatever the input order', () => {
    const [c] = findConflicts([
      { ...sections[1]!, n: 1 },
      { ...sections[0]!, n: 2 },
    ]);
    expect(c?.sides.map((s) => [s.n, s.span])).toEqual([
      [1, '4,120'],
      [2, '3,677'],
    ]);
  });

  it('ignores sentences of one section, and returns a repeated sentence once', () => {
    expect(
      findConflicts([
        { n: 1, sectionId: 'a#1', text: 'The arena can seat 3,677 people. The arena can seat 4,120 people.' },
      ]),
    ).toEqual([]);
    const twice = 'The arena can seat 3,677 people for hockey. The arena can seat 3,677 people for hockey.';
    expect(findConflicts([{ ...sections[0]!, text: twice }, sections[1]!])).toHaveLength(1);
  });

  it('returns [] for no sections, one section, and agreeing sections', () => {
    expect(findConflicts([])).toEqual([]);
    expect(findConflicts([sections[0]!])).toEqual([]);
    expect(findConflicts([sections[0]!, sections[2]!])).toEqual([]);
  });

  it('finds a conflict between two sentences that share only a prefix, and only a suffix', () => {
    const found = findConflicts([
      { n: 1, sectionId: 'a#1', text: 'The bridge over the river was built in 1901.' },
      { n: 2, sectionId: 'b#1', text: 'The bridge over the river was built in 1910.' },
      { n: 3, sectionId: 'c#1', text: 'Paris is the capital city of France.' },
      { n: 4, sectionId: 'd#1', text: 'Lyon is the capital city of France.' },
    ]);
    expect(found.map((c) => [c.kind, c.sides[0].span, c.sides[1].span])).toEqual([
      ['date', '1901', '1910'],
      ['name', 'Paris', 'Lyon'],
    ]);
  });

  it('agrees with a naive all-pairs reference', () => {
    const text = fc
      .array(
        fc.oneof(
          sentence,
          nearPair.map(([a]) => a),
        ),
        { maxLength: 4 },
      )
      .map((ss) => ss.join(' '));
    fc.assert(
      fc.property(fc.array(text, { minLength: 0, maxLength: 5 }), (texts) => {
        const input = texts.map((t, i) => ({ n: i + 1, sectionId: `s${i}#1`, text: t }));
        const naive = new Set<string>();
        for (const x of input)
          for (const y of input) {
            if (x.n >= y.n) continue;
            for (const a of splitSentences(x.text))
              for (const b of splitSentences(y.text))
                if (sentenceConflict(a, b) !== null) naive.add(JSON.stringify([x.n, a, y.n, b]));
          }
        const got = new Set(
          findConflicts(input).map((c) =>
            JSON.stringify([c.sides[0].n, c.sides[0].sentence, c.sides[1].n, c.sides[1].sentence]),
          ),
        );
        expect(got).toEqual(naive);
      }),
      { numRuns: 300 },
    );
  });

  it('does not depend on the order of the sections', () => {
    const section = fc.record({
      text: fc
        .array(
          fc.oneof(
            sentence,
            nearPair.map(([, b]) => b),
          ),
          { maxLength: 4 },
        )
        .map((ss) => ss.join(' ')),
    });
    fc.assert(
      fc.property(
        fc.array(section, { maxLength: 6 }).chain((ss) => {
          const input = ss.map((s, i) => ({ n: i + 1, sectionId: `s${i}#1`, text: s.text }));
          return fc.tuple(fc.constant(input), fc.shuffledSubarray(input, { minLength: input.length }));
        }),
        ([input, shuffled]) => {
          expect(findConflicts(shuffled)).toEqual(findConflicts(input));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('finds only value changes when every sentence shares its head or tail with every other', () => {
    // 600 sentences in 20 sections, all ending "by the mayor of the town": 180,000 candidate pairs,
    // 1,300 conflicts (the same sentence with another year or district number).
    const subjects = [
      'arena',
      'bridge',
      'river',
      'tower',
      'school',
      'museum',
      'park',
      'station',
      'harbour',
      'castle',
    ];
    const input = Array.from({ length: 20 }, (_, s) => ({
      n: s + 1,
      sectionId: `doc${s}#1`,
      text: Array.from(
        { length: 30 },
        (_, i) =>
          `The ${subjects[i % 10]} number ${i} in district ${s % 4} was opened in ${1900 + ((i * 7 + s) % 50)} by the mayor of the town.`,
      ).join(' '),
    }));
    const found = findConflicts(input);
    expect(found.length).toBeGreaterThan(0);
    // The year, or the numbers of `number 0 in district 0` / `number 20 in district 2`; never a
    // subject changed together with its number.
    expect(found.every((c) => c.kind === 'date' || c.kind === 'number')).toBe(true);
    expect(found.every((c) => c.sides[0].sentence.split(' ')[1] === c.sides[1].sentence.split(' ')[1])).toBe(
      true,
    );
  });
});
