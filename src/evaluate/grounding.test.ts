// Authored cases the teaching model does not cover: several citations per claim, out-of-range and
// duplicate citations, the ALCE columns, and each consequence listed in design/grounding.md.
import { describe, expect, it } from 'vitest';
import { measureCompleteness, measureGrounding } from './grounding.js';
import type { GroundingInput, GroundingSection, SupportJudge } from './grounding.js';
import { createFactIdJudge } from './judges/fact-id.js';
import type { JudgeClaim, JudgeSource } from './judges/judge.js';

// A small authored corpus: S1 schedule (day, time), S2 fee, S3 map (parking), OLD outdated schedule.
const S1: GroundingSection = {
  id: 'S1',
  relevant: true,
  text: 'Opens Tuesday at 10:00.',
  factIds: ['day', 'time'],
};
const S2: GroundingSection = { id: 'S2', relevant: true, text: 'Costs 4 credits.', factIds: ['fee'] };
const S3: GroundingSection = { id: 'S3', relevant: false, text: 'Parking is behind.', factIds: ['parking'] };
const OLD: GroundingSection = {
  id: 'OLD',
  relevant: true,
  text: 'Opens Monday at 09:00.',
  factIds: ['oldDay'],
};
const REQUIRED = [
  { id: 'day', phrasings: ['Tuesday'] },
  { id: 'time', phrasings: ['10:00'] },
  { id: 'fee', phrasings: ['4 credits'] },
];

const judge = createFactIdJudge();

function input(partial: Partial<GroundingInput> & Pick<GroundingInput, 'claims'>): GroundingInput {
  return {
    retrieved: [S1, S2, S3],
    requiredFacts: REQUIRED,
    answerText: partial.claims.map((c) => c.text).join(' '),
    judge,
    ...partial,
  };
}

const day = (citations: (string | number)[]) => ({ text: 'It opens Tuesday.', factIds: ['day'], citations });
const fee = (citations: (string | number)[]) => ({
  text: 'It costs 4 credits.',
  factIds: ['fee'],
  citations,
});

describe('measureGrounding: consequences from design/grounding.md', () => {
  it('a nonempty answer with no citations has citation support 0 and precision Undefined', async () => {
    const r = await measureGrounding(input({ claims: [day([]), fee([])] }));
    expect(r.citationSupport).toEqual({ num: 0, den: 2, value: 0 });
    expect(r.citationPrecision.value).toBeNull();
    expect(r.citationPrecision).toMatchObject({ num: 0, den: 0, undefinedReason: 'no citations' });
    expect(r.faithfulness.value).toBe(1);
  });

  it('a citation to a section that supports the claim but was not retrieved is invalid', async () => {
    const S2notRetrieved = await measureGrounding(input({ retrieved: [S1, S3], claims: [fee(['S2'])] }));
    expect(S2notRetrieved.citationSupport).toEqual({ num: 0, den: 1, value: 0 });
    expect(S2notRetrieved.citationPrecision).toEqual({ num: 0, den: 1, value: 0 });
    expect(S2notRetrieved.claims[0]!.citations[0]).toMatchObject({
      ref: 'S2',
      sectionId: null,
      valid: false,
    });
  });

  it('a faithful fragment can be incomplete', async () => {
    const r = await measureGrounding(input({ claims: [day(['S1'])] }));
    expect(r.faithfulness.value).toBe(1);
    expect(r.citationSupport.value).toBe(1);
    expect(r.completeness).toEqual({ num: 1, den: 3, value: 1 / 3 });
  });

  it('a faithful off-topic answer has faithfulness 1 and completeness 0', async () => {
    const parking = { text: 'Parking is behind the building.', factIds: ['parking'], citations: ['S3'] };
    const r = await measureGrounding(input({ claims: [parking] }));
    expect(r.faithfulness).toEqual({ num: 1, den: 1, value: 1 });
    expect(r.completeness).toEqual({ num: 0, den: 3, value: 0 });
  });

  it('an answer supported by an outdated source can be well cited and still fail the reference', async () => {
    const monday = { text: 'It opens Monday.', factIds: ['oldDay'], citations: ['OLD'] };
    const r = await measureGrounding(input({ retrieved: [OLD], claims: [monday] }));
    expect(r.faithfulness.value).toBe(1);
    expect(r.citationSupport.value).toBe(1);
    expect(r.citationPrecision.value).toBe(1);
    expect(r.contextRelevance.value).toBe(1);
    expect(r.completeness).toEqual({ num: 0, den: 3, value: 0 });
  });

  it('a required fact can be present without retrieved support', async () => {
    const r = await measureGrounding(input({ retrieved: [S3], claims: [fee(['S2'])] }));
    expect(r.faithfulness).toEqual({ num: 0, den: 1, value: 0 });
    expect(r.citationSupport.value).toBe(0);
    expect(r.completeness).toEqual({ num: 1, den: 3, value: 1 / 3 });
  });

  it('extra unsupported claims do not lower completeness', async () => {
    const base = await measureGrounding(input({ claims: [day(['S1']), fee(['S2'])] }));
    const unsupported = { text: 'Dogs are welcome.', factIds: ['dogs'], citations: ['S1'] };
    const extra = await measureGrounding(input({ claims: [day(['S1']), fee(['S2']), unsupported] }));
    expect(extra.completeness).toEqual(base.completeness);
    expect(extra.completeness).toEqual({ num: 2, den: 3, value: 2 / 3 });
    expect(extra.faithfulness).toEqual({ num: 2, den: 3, value: 2 / 3 });
  });

  it('Undefined is null with a reason, never 0 or 1: nothing retrieved, empty answer, no reference', async () => {
    const r = await measureGrounding(input({ retrieved: [], claims: [], answerText: '', requiredFacts: [] }));
    for (const m of [
      r.contextRelevance,
      r.faithfulness,
      r.citationSupport,
      r.citationPrecision,
      r.completeness,
    ]) {
      expect(m.value).toBeNull();
      expect(m.value === null && m.undefinedReason.length > 0).toBe(true);
    }
    expect(r.contextRelevance).toMatchObject({ undefinedReason: 'nothing retrieved' });
    expect(r.citationPrecision).toMatchObject({ undefinedReason: 'no citations (empty answer)' });
    expect(r.completeness).toMatchObject({
      undefinedReason: 'no required facts (the question has no reference)',
    });
  });

  it('an empty answer scores completeness 0, not Undefined', async () => {
    const r = await measureGrounding(input({ claims: [], answerText: '' }));
    expect(r.completeness).toEqual({ num: 0, den: 3, value: 0 });
    expect(r.faithfulness.value).toBeNull();
  });
});

describe('measureGrounding: citations', () => {
  it('a claim citing two sections is validly cited when one supports it alone', async () => {
    const r = await measureGrounding(input({ claims: [day(['S3', 'S1'])] }));
    expect(r.citationSupport).toEqual({ num: 1, den: 1, value: 1 });
    expect(r.citationPrecision).toEqual({ num: 1, den: 2, value: 0.5 });
    expect(r.claims[0]!.citations.map((c) => c.valid)).toEqual([false, true]);
  });

  it('numbers are 1-based markers into the retrieved list; out-of-range ones are present but invalid', async () => {
    const r = await measureGrounding(input({ claims: [day([1]), fee([2, 7]), fee([0]), fee([1.5])] }));
    expect(r.citationSupport).toEqual({ num: 2, den: 4, value: 0.5 });
    expect(r.citationPrecision).toEqual({ num: 2, den: 5, value: 0.4 });
    expect(r.claims[1]!.citations).toEqual([
      { ref: 2, sectionId: 'S2', valid: true, precise: true },
      { ref: 7, sectionId: null, valid: false, precise: false },
    ]);
  });

  it('unknown section ids are present but invalid', async () => {
    const r = await measureGrounding(input({ claims: [day(['nope'])] }));
    expect(r.citationPrecision).toEqual({ num: 0, den: 1, value: 0 });
    expect(r.citationSupport.value).toBe(0);
  });

  it('duplicate citations of the same section in one claim count once (by id or by marker)', async () => {
    const r = await measureGrounding(input({ claims: [day(['S1', 'S1', 1]), fee([9, 9])] }));
    expect(r.claims[0]!.citations).toHaveLength(1);
    expect(r.claims[1]!.citations).toHaveLength(1);
    expect(r.citationPrecision).toEqual({ num: 1, den: 2, value: 0.5 });
  });

  it('the same section cited by two claims counts for each claim', async () => {
    const time = { text: 'At 10:00.', factIds: ['time'], citations: ['S1'] };
    const r = await measureGrounding(input({ claims: [day(['S1']), time] }));
    expect(r.citationPrecision).toEqual({ num: 2, den: 2, value: 1 });
  });

  it('retrieved sections with a repeated id count once in context relevance', async () => {
    const r = await measureGrounding(input({ retrieved: [S1, S1, S3], claims: [] }));
    expect(r.contextRelevance).toEqual({ num: 1, den: 2, value: 0.5 });
  });

  it('unlabelled retrieved sections count as not relevant', async () => {
    const r = await measureGrounding(input({ retrieved: [S1, { id: 'X' }], claims: [] }));
    expect(r.contextRelevance).toEqual({ num: 1, den: 2, value: 0.5 });
  });
});

describe('measureGrounding: ALCE-style columns', () => {
  const both = {
    text: 'It opens Tuesday and costs 4 credits.',
    factIds: ['day', 'fee'],
    citations: ['S1', 'S2'],
  };

  it('a claim needing two sources is jointly supported but not validly cited by either alone', async () => {
    const r = await measureGrounding(input({ claims: [both] }));
    expect(r.faithfulness.value).toBe(0); // no single retrieved section supports it
    expect(r.citationSupport.value).toBe(0);
    expect(r.citationPrecision).toEqual({ num: 0, den: 2, value: 0 });
    expect(r.alceCitationRecall).toEqual({ num: 1, den: 1, value: 1 });
    // Each citation fails alone, but removing it breaks joint support: both are precise.
    expect(r.alceCitationPrecision).toEqual({ num: 2, den: 2, value: 1 });
  });

  it('a citation is imprecise when it fails alone and the others still support the claim', async () => {
    const r = await measureGrounding(input({ claims: [day(['S1', 'S3'])] }));
    expect(r.alceCitationRecall.value).toBe(1);
    expect(r.alceCitationPrecision).toEqual({ num: 1, den: 2, value: 0.5 });
    expect(r.claims[0]!.citations.map((c) => c.precise)).toEqual([true, false]);
  });

  it('when the cited sections do not jointly support the claim, no citation is precise', async () => {
    const r = await measureGrounding(input({ claims: [{ ...both, citations: ['S1', 'S3'] }] }));
    expect(r.alceCitationRecall).toEqual({ num: 0, den: 1, value: 0 });
    expect(r.alceCitationPrecision).toEqual({ num: 0, den: 2, value: 0 });
  });

  it('without a supportsJointly hook, joint support means some cited source supports alone', async () => {
    const perSource: SupportJudge = { supports: (s, c) => judge.supports(s, c) };
    const r = await measureGrounding(input({ claims: [both, day(['S1', 'S3'])], judge: perSource }));
    expect(r.alceCitationRecall).toEqual({ num: 1, den: 2, value: 0.5 });
    expect(r.alceCitationPrecision).toEqual({ num: 1, den: 4, value: 0.25 });
  });

  it('cited sections that were not retrieved do not count towards joint support', async () => {
    const r = await measureGrounding(input({ retrieved: [S1], claims: [both] }));
    expect(r.alceCitationRecall.value).toBe(0);
  });
});

describe('measureGrounding: judge calls', () => {
  it('accepts a synchronous judge and asks each (section, claim) pair at most once', async () => {
    const calls: string[] = [];
    const sync: SupportJudge = {
      supports(source: JudgeSource, claim: JudgeClaim): boolean {
        calls.push(`${source.id}|${claim.text}`);
        return (claim.factIds ?? []).every((f) => (source.factIds ?? []).includes(f));
      },
    };
    const r = await measureGrounding(input({ claims: [day(['S1', 'S3', 2]), fee(['S2'])], judge: sync }));
    expect(r.faithfulness.value).toBe(1);
    expect(new Set(calls).size).toBe(calls.length);
  });

  it('passes the abort signal to the judge', async () => {
    const controller = new AbortController();
    const seen: (AbortSignal | undefined)[] = [];
    const spy: SupportJudge = {
      supports: (_s, _c, o) => {
        seen.push(o?.signal);
        return true;
      },
    };
    await measureGrounding(input({ claims: [day(['S1'])], judge: spy, signal: controller.signal }));
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((s) => s === controller.signal)).toBe(true);
  });
});

describe('measureCompleteness', () => {
  it('counts distinct facts: a fact listed twice is one fact', () => {
    expect(measureCompleteness(['Tuesday', ' tuesday ', '10:00'], 'Opens TUESDAY.')).toEqual({
      num: 1,
      den: 2,
      value: 0.5,
    });
  });

  it('matches phrasings case- and whitespace-insensitively, or by claim fact id', () => {
    expect(measureCompleteness([{ id: 'fee', phrasings: ['4  credits'] }], 'It costs 4\ncredits').value).toBe(
      1,
    );
    expect(measureCompleteness([{ id: 'fee', phrasings: [] }], 'free', [{ factIds: ['fee'] }]).value).toBe(1);
    expect(measureCompleteness([{ id: 'fee', phrasings: [] }], 'free').value).toBe(0);
  });
});
