import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { comparisonVerdict, isYesNoQuestion } from './verdict.js';

const verdi = { n: 1, title: 'Giuseppe Verdi', text: 'Giuseppe Verdi was an Italian opera composer.' };
const thomas = {
  n: 2,
  title: 'Ambroise Thomas (composer)',
  text: 'Ambroise Thomas was a French composer of operas.',
};
const ford = { n: 3, title: 'Ford Airport', text: 'Ford Airport is near Grand Rapids, Michigan.' };
const elko = { n: 4, title: 'Elko Airport', text: 'Elko Airport is in Elko County, Nevada.' };

describe('comparisonVerdict', () => {
  it('yes when each thing holds the property; a bracketed qualifier in a title is not needed', () => {
    const v = comparisonVerdict('Are Giuseppe Verdi and Ambroise Thomas both opera composers?', [
      verdi,
      thomas,
    ]);
    expect(v?.verdict).toBe('yes');
    expect(v?.quoted.map((s) => s.n)).toEqual([1, 2]);
  });

  it('no when a named value one thing holds is missing from the other', () => {
    expect(
      comparisonVerdict('Are Ford Airport and Elko Airport both located in Michigan?', [ford, elko])?.verdict,
    ).toBe('no');
  });

  it('edge cases: not yes/no, no "both", one thing, or nothing left to compare → null', () => {
    expect(comparisonVerdict('Which of Verdi and Thomas wrote operas?', [verdi, thomas])).toBeNull();
    expect(
      comparisonVerdict('Are Giuseppe Verdi and Ambroise Thomas opera composers?', [verdi, thomas]),
    ).toBeNull();
    expect(comparisonVerdict('Are Giuseppe Verdi and Elko both opera composers?', [verdi])).toBeNull();
    expect(comparisonVerdict('Are both Giuseppe Verdi and Ambroise Thomas?', [verdi, thomas])).toBeNull();
  });

  it('does not depend on the order of the sentences (property)', () => {
    const all = [verdi, thomas, ford, elko];
    const qs = [
      'Are Giuseppe Verdi and Ambroise Thomas both opera composers?',
      'Are Ford Airport and Elko Airport both located in Michigan?',
    ];
    fc.assert(
      fc.property(
        fc.shuffledSubarray(all, { minLength: 4, maxLength: 4 }),
        fc.constantFrom(...qs),
        (order, q) => {
          expect(comparisonVerdict(q, order)?.verdict).toBe(comparisonVerdict(q, all)?.verdict);
        },
      ),
    );
  });
});

describe('isYesNoQuestion', () => {
  it('opens with an auxiliary verb', () => {
    expect(isYesNoQuestion('Are both airports in Michigan?')).toBe(true);
    expect(isYesNoQuestion('Which airport is in Michigan?')).toBe(false);
  });
});
