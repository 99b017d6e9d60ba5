import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { abstentionText, evidenceCoverage } from './abstain.js';

const stats = (docs: number, df: Record<string, number>) => ({ docs, df: new Map(Object.entries(df)) });

describe('evidenceCoverage', () => {
  it('weights each question term by its rarity in the vault', () => {
    // "boil" and "point" are common in the vault, "mercury" absent: covering the common ones is little.
    const s = stats(100, { boil: 20, point: 30 });
    const c = evidenceCoverage(
      'What is the boiling point of mercury?',
      ['Water boils at a lower point up high.'],
      s,
    );
    expect(c.coverage).toBeGreaterThan(0);
    expect(c.coverage).toBeLessThan(0.5);
    expect(c.missing).toEqual(['mercury']);
    const full = evidenceCoverage(
      'What is the boiling point of mercury?',
      ['Mercury boils at 357 °C; its boiling point.'],
      s,
    );
    expect(full.coverage).toBe(1);
    expect(full.missing).toEqual([]);
  });

  it('lists missing words most distinctive first, as written in the question', () => {
    const s = stats(100, { orchid: 0, repot: 3, soil: 40 });
    expect(evidenceCoverage('How do I repot an orchid in soil?', [], s).missing).toEqual([
      'orchid',
      'repot',
      'soil',
    ]);
  });

  it('edge cases: no content terms or an empty vault → 1; empty evidence → 0', () => {
    expect(evidenceCoverage('What is it?', [], stats(10, {})).coverage).toBe(1);
    expect(evidenceCoverage('Where is mercury?', ['x'], stats(0, {})).coverage).toBe(1);
    expect(evidenceCoverage('Where is mercury?', [], stats(10, { mercuri: 2 })).coverage).toBe(0);
  });

  it('stays in [0, 1] and never falls when evidence is added (property)', () => {
    const word = fc.constantFrom('kettle', 'beans', 'grind', 'water', 'mercury', 'orchid', 'the', 'pour');
    const text = fc.array(word, { maxLength: 8 }).map((w) => w.join(' '));
    fc.assert(
      fc.property(text, text, text, (q, e1, e2) => {
        const s = stats(50, { kettl: 3, bean: 10, grind: 5, water: 30 });
        const a = evidenceCoverage(q, [e1], s).coverage;
        const b = evidenceCoverage(q, [e1, e2], s).coverage;
        expect(a).toBeGreaterThanOrEqual(0);
        expect(b).toBeLessThanOrEqual(1);
        expect(b).toBeGreaterThanOrEqual(a - 1e-12);
      }),
    );
  });
});

describe('abstentionText', () => {
  it('says what the passages do not mention, at most three words', () => {
    expect(abstentionText('No.', [])).toBe('No.');
    expect(abstentionText('No.', ['a', 'b', 'c', 'd'])).toBe(
      'No. The closest passages do not mention: a, b, c.',
    );
  });
});
