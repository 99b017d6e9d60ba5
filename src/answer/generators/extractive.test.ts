import { describe, expect, it } from 'vitest';
import { isQuiverError } from '../../errors.js';
import type { ContextSection } from '../context-section.js';
import { extractClaims } from '../citations.js';
import { buildPrompt } from '../prompt.js';
import {
  answerType,
  createExtractiveGenerator,
  hasAnswerType,
  idfWeights,
  jaccard,
  lexicalCoverage,
  NOT_IN_SOURCES,
  questionTerms,
  REFERS_BACK,
  wholeStatements,
} from './extractive.js';

function section(n: number, text: string): ContextSection {
  return {
    n,
    sectionId: `d${n}#1`,
    docId: `d${n}`,
    title: `T${n}`,
    breadcrumb: `Doc ${n}`,
    source: `f${n}.md`,
    pages: null,
    text,
    score: 1,
  };
}

const KITCHEN = [
  section(
    1,
    'Eggs are a versatile food. To hard-boil eggs, place them in cold water and bring it to a boil. ' +
      'Boil the eggs for 10 minutes, then cool them in ice water. Older eggs peel more easily.',
  ),
  section(
    2,
    'Water boils at 100 °C at sea level. At high altitude water boils at a lower temperature, ' +
      'so eggs need longer to cook. Salt barely changes the boiling point.',
  ),
  section(
    3,
    'Bread dough needs to rise for about an hour in a warm place. Knead the dough well before baking.',
  ),
];

/**
 * "<label: ><sentence> [n] …" → [{label, sentence, n}]. A label is the cited section's own title,
 * written before a sentence that does not name its subject.
 */
function pieces(answer: string): { label: string | null; sentence: string; n: number }[] {
  return [...answer.matchAll(/(?:(T\d+): )?(.+?) \[(\d+)\](?: |$)/gu)].map((m) => ({
    label: m[1] ?? null,
    sentence: m[2]!,
    n: Number(m[3]),
  }));
}
const norm = (s: string): string => s.replace(/\s+/gu, ' ').trim();

async function answer(question: string, sections: ContextSection[], opts = {}): Promise<string> {
  return (await createExtractiveGenerator(opts).generate(buildPrompt(question, sections))).text;
}

describe('extractive generator', () => {
  it("labels a sentence with its section's subject only when the sentence does not name it", async () => {
    const titled = (n: number, title: string, text: string): ContextSection => ({
      ...section(n, text),
      title,
    });
    const named = await answer('Where do collies come from?', [
      titled(1, 'Scotch Collie', 'The Scotch Collie comes from Scotland.'),
    ]);
    expect(named).toBe('The Scotch Collie comes from Scotland. [1]');
    const unnamed = await answer('Which dog has Gordon and Irish setters among its ancestors?', [
      titled(1, 'Scotch Collie', 'Its ancestors include the Gordon and Irish setters.'),
    ]);
    expect(unnamed).toBe('Scotch Collie: Its ancestors include the Gordon and Irish setters. [1]');
    const question = await answer('Which dog has Gordon and Irish setters among its ancestors?', [
      titled(1, 'Which dogs descend from setters?', 'Its ancestors include the Gordon and Irish setters.'),
    ]);
    expect(question).toBe('Its ancestors include the Gordon and Irish setters. [1]');
  });

  it('answers with the duration sentence for a "how long" question, cited', async () => {
    const text = await answer('How long should I boil eggs?', KITCHEN);
    expect(text).toContain('Boil the eggs for 10 minutes, then cool them in ice water. [1]');
  });

  it('is faithful: every emitted sentence appears verbatim in the section it cites', async () => {
    const questions = [
      'How long should I boil eggs?',
      'At what temperature does water boil?',
      'How long does bread dough rise?',
      'Does salt change the boiling point?',
      'Why do older eggs peel easily?',
    ];
    for (const q of questions) {
      const text = await answer(q, KITCHEN);
      const ps = pieces(text);
      expect(ps.length).toBeGreaterThan(0);
      expect(ps.map((p) => `${p.label === null ? '' : `${p.label}: `}${p.sentence} [${p.n}]`).join(' ')).toBe(
        text,
      );
      for (const p of ps) {
        expect(norm(KITCHEN[p.n - 1]!.text)).toContain(p.sentence);
        if (p.label !== null) expect(p.label).toBe(KITCHEN[p.n - 1]!.title);
      }
      // Every citation is valid by construction.
      expect(extractClaims(text, KITCHEN.length).invalid).toEqual([]);
    }
  });

  it('respects the sentence budget', async () => {
    for (const maxSentences of [1, 2, 3]) {
      const text = await answer('How do eggs and water boil?', KITCHEN, { maxSentences, relativeFloor: 0 });
      expect(pieces(text).length).toBeLessThanOrEqual(maxSentences);
    }
    const one = await answer('How do eggs and water boil?', KITCHEN, { maxSentences: 1 });
    expect(pieces(one)).toHaveLength(1);
  });

  it('respects the word budget', async () => {
    for (const maxWords of [12, 20, 30]) {
      const text = await answer('How do eggs and water boil?', KITCHEN, { maxWords, relativeFloor: 0 });
      const count = pieces(text).reduce((a, p) => a + p.sentence.split(' ').length, 0);
      expect(count).toBeLessThanOrEqual(maxWords);
      expect(count).toBeGreaterThan(0);
    }
  });

  it('cuts a lone over-long best sentence at the word budget with …', async () => {
    const long = section(1, 'Eggs boil ' + 'slowly and '.repeat(30) + 'then stop.');
    const text = await answer('How do eggs boil?', [long], { maxWords: 5 });
    expect(text).toBe('Eggs boil slowly and slowly… [1]');
  });

  it('prefers covering different sections: two near-identical sections and one distinct', async () => {
    const sections = [
      section(1, 'Boil the eggs for ten minutes in salted water to cook them fully.'),
      section(2, 'Boil the eggs for ten minutes in salted water to cook them through.'),
      section(3, 'Eggs boil faster at sea level than high in the mountains.'),
    ];
    // Sections 1 and 2 score highest (duration bonus; 2 is denser); 1 is a near-repeat of 2, so 3 comes next.
    const text = await answer('How long do eggs boil?', sections);
    const cited = pieces(text).map((p) => p.n);
    expect(cited).toEqual([2, 3]);
    // Without repeat removal the twin would be taken before the distinct section.
    const noDedup = await answer('How long do eggs boil?', sections, {
      repeatJaccard: 1.01,
      maxSentences: 2,
    });
    expect(pieces(noDedup).map((p) => p.n)).toEqual([1, 2]);
  });

  it('penalises repeating a section when another section is about as good', async () => {
    const sections = [
      section(
        1,
        'Eggs boil in ten minutes. Eggs boil faster with a lid on the pot. Eggs boil unevenly if crowded.',
      ),
      section(2, 'Eggs boil well in fresh water.'),
    ];
    const text = await answer('How do eggs boil?', sections, { maxSentences: 2 });
    expect(new Set(pieces(text).map((p) => p.n))).toEqual(new Set([1, 2]));
  });

  it('orders the chosen sentences by section number, then position', async () => {
    const text = await answer('How do eggs and water boil?', KITCHEN, { relativeFloor: 0 });
    const ps = pieces(text);
    const keys = ps.map((p) => [p.n, norm(KITCHEN[p.n - 1]!.text).indexOf(p.sentence)] as const);
    const sorted = [...keys].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    expect(keys).toEqual(sorted);
  });

  it('returns exactly NOT_IN_SOURCES, with no citation, when nothing clears the floor', async () => {
    expect(await answer('Who won the chess championship in Reykjavik?', KITCHEN)).toBe(NOT_IN_SOURCES);
    expect(await answer('How long should I boil eggs?', [])).toBe(NOT_IN_SOURCES);
    expect(await answer('What is it?', KITCHEN)).toBe(NOT_IN_SOURCES); // no content terms
    expect(extractClaims(NOT_IN_SOURCES, 3).cited).toEqual([]);
  });

  it('the floor is strict and configurable', async () => {
    // "bread" covers only part of the question's weight.
    const q = 'How does bread compare with quantum chromodynamics?';
    expect(await answer(q, KITCHEN, { floor: 0 })).not.toBe(NOT_IN_SOURCES);
    expect(await answer(q, KITCHEN, { floor: 0.9 })).toBe(NOT_IN_SOURCES);
  });

  it('still returns evidence sentences for a yes/no question', async () => {
    const text = await answer('Does salt change the boiling point of water?', KITCHEN);
    expect(text).toContain('Salt barely changes the boiling point. [2]');
  });

  it('is deterministic', async () => {
    const gen = createExtractiveGenerator();
    const p = buildPrompt('How do eggs and water boil?', KITCHEN);
    const a = await gen.generate(p);
    const b = await gen.generate(p);
    expect(b).toEqual(a);
  });

  it('estimates usage as ceil(chars / 4) and streams pieces that add up to the text', async () => {
    const gen = createExtractiveGenerator();
    const p = buildPrompt('How long should I boil eggs?', KITCHEN);
    const streamed: string[] = [];
    const r = await gen.generate(p, { onToken: (t) => streamed.push(t) });
    expect(streamed.join('')).toBe(r.text);
    expect(r.usage.completionTokens).toBe(Math.ceil([...r.text].length / 4));
    expect(r.usage.promptTokens).toBe(Math.ceil([...`${p.system}\n${p.user}`].length / 4));
  });

  it('never emits the fragment left by a budget cut', async () => {
    const s = section(
      1,
      'Eggs boil in ten minutes. Eggs boil faster when the water is salted heavily and stirred.',
    );
    const p = buildPrompt('How do eggs boil faster?', [s], { sectionChars: 50 });
    expect(p.sections[0]!.text.endsWith('…')).toBe(true);
    const r = await createExtractiveGenerator().generate(p);
    expect(r.text).toBe('T1: Eggs boil in ten minutes. [1]');
  });

  it('never quotes a heading line that restates the question', async () => {
    const heading = section(
      1,
      '5. Causes of warming besides greenhouse gases\nThe briefing was written for policy makers.',
    );
    const answerSection = section(2, 'Besides greenhouse gases, soot on snow and contrails cause warming.');
    const text = await answer('What causes warming besides greenhouse gases?', [heading, answerSection]);
    expect(text).not.toContain('5. Causes');
    expect(text).toContain('soot on snow and contrails cause warming. [2]');
  });

  it('removes citation markers found in a source sentence', async () => {
    const s = section(1, 'Eggs boil in ten minutes [12]. Bread rises slowly.');
    const text = await answer('How long do eggs boil?', [s]);
    expect(text).toBe('T1: Eggs boil in ten minutes. [1]');
    expect(extractClaims(text, 1).invalid).toEqual([]);
  });

  it('uses embed similarity: a sentence with no shared term becomes eligible', async () => {
    const sections = [
      section(1, 'Hens lay more in spring than in winter.'),
      section(2, 'Bread rises in a warm place.'),
    ];
    const embed = async (texts: string[]): Promise<Float32Array[]> =>
      texts.map((t) =>
        /hens|poultry|chicken/iu.test(t) ? Float32Array.from([1, 0]) : Float32Array.from([0, 1]),
      );
    const q = 'When do chickens produce most?';
    expect(await answer(q, sections)).toBe(NOT_IN_SOURCES);
    const gen = createExtractiveGenerator({ embed });
    expect(gen.id).toContain('embed');
    expect((await gen.generate(buildPrompt(q, sections))).text).toBe(
      'T1: Hens lay more in spring than in winter. [1]',
    );
  });

  it('rejects an embed function that returns the wrong number of vectors', async () => {
    const gen = createExtractiveGenerator({ embed: async () => [] });
    await expect(gen.generate(buildPrompt('How do eggs boil?', KITCHEN))).rejects.toThrowError(/vectors/);
  });

  it('throws ABORTED when the signal is already aborted', async () => {
    const ac = new AbortController();
    ac.abort();
    try {
      await createExtractiveGenerator().generate(buildPrompt('q', KITCHEN), { signal: ac.signal });
      expect.unreachable();
    } catch (e) {
      expect(isQuiverError(e, 'ABORTED')).toBe(true);
    }
  });

  it('rejects bad options', () => {
    expect(() => createExtractiveGenerator({ maxSentences: 0 })).toThrowError(/maxSentences/);
    expect(() => createExtractiveGenerator({ maxWords: 2.5 })).toThrowError(/maxWords/);
    expect(() => createExtractiveGenerator({ floor: 1.5 })).toThrowError(/floor/);
    expect(() => createExtractiveGenerator({ floor: Number.NaN })).toThrowError(/floor/);
  });
});

describe('scoring helpers', () => {
  it('questionTerms drops the answer-type cue', () => {
    expect([...questionTerms('How long should I boil eggs?')]).toEqual(['boil', 'egg']);
    expect([...questionTerms('How many eggs per person?')]).toEqual(['egg', 'person']);
    expect([...questionTerms('Why do long eggs crack?')]).toEqual(['long', 'egg', 'crack']);
  });

  it('answerType recognises the question kinds', () => {
    expect(answerType('How long do I boil eggs?')).toBe('duration');
    expect(answerType('What temperature does water boil at?')).toBe('temperature');
    expect(answerType('How many eggs per person?')).toBe('quantity');
    expect(answerType('When was the bridge built?')).toBe('date');
    expect(answerType('What year did it open?')).toBe('date');
    expect(answerType('Why do eggs crack?')).toBeNull();
  });

  it('hasAnswerType finds durations, temperatures, quantities and dates', () => {
    expect(hasAnswerType('duration', 'Boil for 10 minutes.')).toBe(true);
    expect(hasAnswerType('duration', 'Boil for ten minutes.')).toBe(true);
    expect(hasAnswerType('duration', 'Boil until done.')).toBe(false);
    expect(hasAnswerType('temperature', 'Water boils at 100 °C.')).toBe(true);
    expect(hasAnswerType('temperature', 'Set it to 180 degrees.')).toBe(true);
    expect(hasAnswerType('temperature', 'Set it to hot.')).toBe(false);
    expect(hasAnswerType('quantity', 'Use 3 eggs.')).toBe(true);
    expect(hasAnswerType('quantity', 'Use some eggs.')).toBe(false);
    expect(hasAnswerType('date', 'It opened in 1937.')).toBe(true);
    expect(hasAnswerType('date', 'It opened in May.')).toBe(true);
    expect(hasAnswerType('date', 'It opened recently.')).toBe(false);
  });

  it('idfWeights: rarer terms weigh more; unseen terms weigh most; always positive', () => {
    const idf = idfWeights([new Set(['a', 'b']), new Set(['a']), new Set(['a', 'c'])]);
    expect(idf('b')).toBeGreaterThan(idf('a'));
    expect(idf('zzz')).toBeGreaterThan(idf('b'));
    expect(idf('a')).toBeGreaterThan(0);
    expect(idf('a')).toBeCloseTo(Math.log(1 + 0.5 / 3.5), 12);
    expect(idfWeights([])('x')).toBeCloseTo(Math.log(2), 12);
  });

  it('lexicalCoverage is the idf-weighted share of question terms; empty question → 0', () => {
    const idf = (t: string): number => (t === 'rare' ? 3 : 1);
    expect(lexicalCoverage(new Set(['rare', 'common']), new Set(['rare']), idf)).toBeCloseTo(0.75, 12);
    expect(lexicalCoverage(new Set(['rare', 'common']), new Set(['common', 'x']), idf)).toBeCloseTo(0.25, 12);
    expect(lexicalCoverage(new Set(['rare']), new Set(['rare']), idf)).toBe(1);
    expect(lexicalCoverage(new Set(), new Set(['rare']), idf)).toBe(0);
  });

  it('jaccard: overlap over union; two empty sets → 0', () => {
    expect(jaccard(new Set(['a', 'b']), new Set(['b', 'c']))).toBeCloseTo(1 / 3, 12);
    expect(jaccard(new Set(['a']), new Set(['a']))).toBe(1);
    expect(jaccard(new Set(), new Set())).toBe(0);
    expect(jaccard(new Set(['a']), new Set())).toBe(0);
  });
});

describe('lead-ins', () => {
  it('wholeStatements joins a lead-in with its list items, else with the next sentence', () => {
    expect(wholeStatements(['You need:', '- a kettle', '- fresh beans.', 'Pour slowly.'])).toEqual([
      'You need: a kettle; fresh beans.',
      '- a kettle',
      '- fresh beans.',
      'Pour slowly.',
    ]);
    expect(wholeStatements(['The rule is simple:', 'Water first.'])).toEqual([
      'The rule is simple: Water first.',
      'Water first.',
    ]);
    // Nothing after it: dropped.
    expect(wholeStatements(['Steps:'])).toEqual([]);
    expect(wholeStatements(['No lead-in here.'])).toEqual(['No lead-in here.']);
  });

  it('a sentence ending in a colon is never quoted alone, and every claim cites one section', async () => {
    const sections = [
      section(
        1,
        'To descale the espresso machine you need the following:\n- citric acid\n- a full water tank.',
      ),
      section(2, 'Descale the espresso machine every two months. Hard water needs it monthly.'),
    ];
    const text = await answer('What do I need to descale the espresso machine?', sections);
    const claims = extractClaims(text, 2).claims;
    expect(claims.length).toBeGreaterThan(0);
    for (const c of claims) {
      expect(c.text.endsWith(':')).toBe(false);
      expect(c.citations.length).toBe(1);
    }
    expect(text).toContain('citric acid');
  });
});

describe('sentences that refer back', () => {
  it('a sentence whose subject is a pronoun is scored with its section subject, and quoted with it', async () => {
    const awards: ContextSection = {
      ...section(1, ''),
      title: '18th Independent Spirit Awards',
      breadcrumb: '18th Independent Spirit Awards',
      text:
        'The 18th Independent Spirit Awards, honoring the best in independent filmmaking for 2002, were announced on March 22, 2003. ' +
        'It was hosted by John Waters.',
    };
    const text = await answer('Which director hosted the 18th Independent Spirit Awards?', [awards]);
    expect(text).toContain('18th Independent Spirit Awards: It was hosted by John Waters. [1]');
  });

  it('REFERS_BACK reads pronouns and definite references, not names', () => {
    for (const s of ['It was hosted by him.', 'The film was shot in Rome.', 'They met in 1987.'])
      expect(REFERS_BACK.test(s)).toBe(true);
    for (const s of ['Italy is in Europe.', 'Items are cheap.', 'The 2003 film won.'])
      expect(REFERS_BACK.test(s)).toBe(false);
  });
});

describe('yes/no comparisons', () => {
  const entity = (n: number, title: string, text: string): ContextSection => ({
    ...section(n, text),
    title,
    breadcrumb: title,
  });

  it('says yes when each thing’s quoted sentence holds the property, no when a named value differs', async () => {
    const yes = await answer('Are Giuseppe Verdi and Ambroise Thomas both opera composers?', [
      entity(
        1,
        'Ambroise Thomas',
        'Charles Louis Ambroise Thomas was a French composer, best known for his operas.',
      ),
      entity(2, 'Giuseppe Verdi', 'Giuseppe Verdi was an Italian opera composer.'),
    ]);
    expect(yes.startsWith('Yes: ')).toBe(true);
    expect(yes).toContain('[1]');
    expect(yes).toContain('[2]');
    const no = await answer(
      'Are both Elko Regional Airport and Gerald R. Ford International Airport located in Michigan?',
      [
        entity(
          1,
          'Gerald R. Ford International Airport',
          'Gerald R. Ford International Airport is an airport near Grand Rapids, Michigan.',
        ),
        entity(
          2,
          'Elko Regional Airport',
          'Elko Regional Airport is a mile west of downtown Elko, in Elko County, Nevada.',
        ),
      ],
    );
    expect(no.startsWith('No: ')).toBe(true);
    // The verdict is not part of the claim the judge checks.
    expect(extractClaims(no, 2).claims[0]!.text.startsWith('No')).toBe(false);
  });

  it('gives no verdict when a thing is missing or the property is unnamed and absent', async () => {
    const one = await answer('Are Local H and For Against both from the United States?', [
      entity(1, 'Local H', 'Local H is a rock band from Zion, Illinois, United States.'),
    ]);
    expect(/^(Yes|No):/.test(one)).toBe(false);
    const unnamed = await answer('Are Dictyosperma and Huernia both succulent plants?', [
      entity(1, 'Huernia', 'Huernia is a genus of stem succulents from Africa.'),
      entity(2, 'Dictyosperma', 'Dictyosperma is a monotypic genus of flowering plant in the palm family.'),
    ]);
    expect(/^No:/.test(unnamed)).toBe(false);
  });
});
