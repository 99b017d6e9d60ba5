import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { factKey, factPresent, normalizeForMatch } from './judge.js';

describe('factPresent', () => {
  it('finds a plain string fact case-, diacritic- and whitespace-insensitively', () => {
    expect(factPresent('4 credits', 'Admission is 4  Credits.')).toBe(true);
    expect(factPresent('Café opens', 'the CAFE\topens early')).toBe(true);
    expect(factPresent('4 credits', 'Admission is 40 credits.')).toBe(false);
  });

  it('accepts any of several phrasings', () => {
    const fact = { id: 'day', phrasings: ['Tuesday', 'Tue'] };
    expect(factPresent(fact, 'open on tue')).toBe(true);
    expect(factPresent(fact, 'open on Monday')).toBe(false);
  });

  it('matches an {id} fact by the claims’ fact ids, never a plain string fact', () => {
    expect(factPresent({ id: 'fee', phrasings: [] }, { text: '', factIds: ['fee'] })).toBe(true);
    expect(factPresent({ id: 'fee', phrasings: [] }, { text: 'fee', factIds: [] })).toBe(false);
    expect(factPresent('fee', { text: 'no', factIds: ['fee'] })).toBe(false);
  });

  it('an empty phrasing never matches and an empty answer contains nothing', () => {
    expect(factPresent('', 'anything')).toBe(false);
    expect(factPresent('  ', 'anything')).toBe(false);
    expect(factPresent('x', '')).toBe(false);
  });

  it('matches whole words only: a fact "no" is not inside "north"', () => {
    expect(factPresent('no', 'The library is on the north campus.')).toBe(false);
    expect(factPresent('no', 'No, it is not.')).toBe(true);
    expect(factPresent('10:00', 'It opens at 10:00.')).toBe(true);
  });

  it('property: an ASCII phrasing with a word in it, embedded in any text, in any case, is present', () => {
    const ascii = fc.string({ unit: 'grapheme-ascii' });
    fc.assert(
      fc.property(
        ascii,
        ascii.filter((s) => /[A-Za-z0-9]/.test(s)),
        ascii,
        (a, p, b) => factPresent(p, `${a} ${p.toUpperCase()} ${b}`),
      ),
    );
  });
});

describe('normalizeForMatch / factKey', () => {
  it('collapses whitespace and trims', () => {
    expect(normalizeForMatch('  A\n\tB  ')).toBe('a b');
  });
  it('property: idempotent', () => {
    fc.assert(
      fc.property(fc.string(), (s) => normalizeForMatch(normalizeForMatch(s)) === normalizeForMatch(s)),
    );
  });
  it('keys strings by their normalised text and objects by id', () => {
    expect(factKey(' Tuesday ')).toBe(factKey('tuesday'));
    expect(factKey({ id: 'tuesday', phrasings: [] })).not.toBe(factKey('tuesday'));
  });
});
