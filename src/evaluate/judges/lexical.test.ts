import { describe, expect, it } from 'vitest';
import { isQuiverError } from '../../errors.js';
import {
  DEFAULT_LEXICAL_THRESHOLD,
  createLexicalJudge,
  isNegated,
  lexicalVerdict,
  numbersIn,
} from './lexical.js';

const D1 = 'Current schedule: the Harbor Museum opens Tuesday at 10:00.';

describe('lexicalVerdict', () => {
  it('supports a claim whose content words the source covers', () => {
    const v = lexicalVerdict(D1, 'The Harbor Museum opens on Tuesday.');
    expect(v).toEqual({ supported: true, coverage: 1, missingNumbers: [], polarityMismatch: false });
  });

  it('stems: "opening" matches "opens"', () => {
    expect(lexicalVerdict(D1, 'Harbor Museum opening Tuesday').supported).toBe(true);
  });

  it('coverage exactly at the threshold passes, just below fails', () => {
    // claim terms: admiss, cost, 4, fiction, credit; the source lacks "cost" → 4/5 = 0.8.
    const src = 'Current admission: the Harbor Museum charges 4 fictional credits.';
    expect(lexicalVerdict(src, 'Admission costs 4 fictional credits.')).toMatchObject({
      coverage: 0.8,
      supported: true,
    });
    // "Admission is free": admiss, free → 1/2.
    expect(lexicalVerdict(src, 'Admission is free.')).toMatchObject({ coverage: 0.5, supported: false });
    expect(lexicalVerdict(src, 'Admission costs 4 fictional credits.', 0.81).supported).toBe(false);
  });

  it('every number of the claim must appear in the source', () => {
    // 4 of 5 terms (harbor, museum, open, 00; not 09) are covered, but 09:00 is not in the source.
    const v = lexicalVerdict(D1, 'The Harbor Museum opens at 09:00.');
    expect(v.coverage).toBeCloseTo(0.8, 12);
    expect(v.missingNumbers).toEqual(['09:00']);
    expect(v.supported).toBe(false);
  });

  it('a negated claim is not supported by an affirmative source, and vice versa', () => {
    expect(lexicalVerdict(D1, 'The Harbor Museum does not open on Tuesday.')).toMatchObject({
      supported: false,
      polarityMismatch: true,
    });
    const neg = 'The Harbor Museum never opens on Monday. It opens Tuesday.';
    expect(lexicalVerdict(neg, 'The Harbor Museum opens on Monday.').supported).toBe(false);
    expect(lexicalVerdict(neg, 'The Harbor Museum never opens on Monday.').supported).toBe(true);
    expect(
      lexicalVerdict("The museum isn't open on Monday.", 'The museum is not open on Monday.').supported,
    ).toBe(true);
  });

  it('a claim without content words is never supported', () => {
    expect(lexicalVerdict(D1, 'It is.')).toMatchObject({ supported: false, coverage: 0 });
    expect(lexicalVerdict('', 'Museum')).toMatchObject({ supported: false, coverage: 0 });
  });
});

describe('numbersIn / isNegated', () => {
  it('keeps separators inside numbers, not trailing punctuation', () => {
    expect(numbersIn('At 10:00, 3.5 or 1,000. Then 7.')).toEqual(['10:00', '3.5', '1,000', '7']);
  });
  it('detects negation words and n’t contractions', () => {
    expect(isNegated('It does not open')).toBe(true);
    expect(isNegated('It doesn’t open')).toBe(true);
    expect(isNegated('Nothing to see; notable')).toBe(false);
  });
});

describe('createLexicalJudge', () => {
  it('is named as a proxy', () => {
    const j = createLexicalJudge();
    expect(j.id).toBe('lexical-proxy');
    expect(j.proxy).toBe(true);
    expect(DEFAULT_LEXICAL_THRESHOLD).toBe(0.8);
  });

  it('joint support reads the sources together', async () => {
    const j = createLexicalJudge();
    const a = { id: 'a', text: 'The museum opens Tuesday.' };
    const b = { id: 'b', text: 'Admission costs 4 credits.' };
    const claim = { text: 'The museum opens Tuesday and admission costs 4 credits.' };
    expect(await j.supports(a, claim)).toBe(false);
    expect(await j.supportsJointly!([a, b], claim)).toBe(true);
  });

  it('rejects a threshold outside (0, 1]', () => {
    for (const t of [0, -0.1, 1.5, Number.NaN]) {
      let err: unknown;
      try {
        createLexicalJudge({ threshold: t });
      } catch (e) {
        err = e;
      }
      expect(isQuiverError(err, 'BAD_INPUT')).toBe(true);
    }
  });
});

describe('lexicalVerdict on wrapped text', () => {
  it('reads a sentence wrapped over two lines as one, so its heading cannot decide its polarity', () => {
    const source =
      'Pre-ride checklist (the ABC quick check)\n\nPush the bike forward with the\nfront brake on; the wheel should lock without the fork clunking.';
    const claim =
      'Pre-ride checklist (the ABC quick check): Push the bike forward with the front brake on; the wheel should lock without the fork clunking.';
    expect(lexicalVerdict(source, claim)).toMatchObject({ supported: true, polarityMismatch: false });
  });
});
