import { describe, expect, it } from 'vitest';
import { isQuiverError } from '../errors.js';
import type { ContextSection } from './context-section.js';
import {
  applyBudgets,
  buildPrompt,
  cutAtWord,
  DEFAULT_CONTEXT_CHARS,
  DEFAULT_SECTION_CHARS,
  DEFAULT_SYSTEM_PROMPT,
  EMPTY_CONTEXT_LINE,
} from './prompt.js';

function section(n: number, text: string, extra: Partial<ContextSection> = {}): ContextSection {
  return {
    n,
    sectionId: `doc${n}#1`,
    docId: `doc${n}`,
    title: `Title ${n}`,
    breadcrumb: `Doc ${n} › Part`,
    source: `file${n}.md`,
    pages: null,
    text,
    score: 1 / n,
    ...extra,
  };
}

describe('buildPrompt', () => {
  it('renders the exact layout (golden)', () => {
    const p = buildPrompt('  How long do I boil eggs? ', [
      section(1, 'Boil the eggs for ten minutes.', { breadcrumb: 'Kitchen › Eggs', source: 'kitchen.md' }),
      section(2, 'Water boils at 100 °C.', {
        breadcrumb: 'Physics  ›  Water',
        source: 'physics.pdf',
        pages: [3, 4],
      }),
    ]);
    expect(p.user).toBe(
      '[1] Kitchen › Eggs\n' +
        '(source: kitchen.md)\n' +
        '\n' +
        'Boil the eggs for ten minutes.\n' +
        '\n' +
        '---\n' +
        '\n' +
        '[2] Physics › Water\n' +
        '(source: physics.pdf, pages 3–4)\n' +
        '\n' +
        'Water boils at 100 °C.\n' +
        '\n' +
        '---\n' +
        '\n' +
        'Question: How long do I boil eggs?',
    );
    expect(p.system).toBe(DEFAULT_SYSTEM_PROMPT);
    expect(p.question).toBe('How long do I boil eggs?');
    expect(p.sections.map((s) => s.n)).toEqual([1, 2]);
  });

  it('says the vault returned nothing for an empty context (golden)', () => {
    const p = buildPrompt('What is X?', []);
    expect(p.user).toBe(`${EMPTY_CONTEXT_LINE}\n\nQuestion: What is X?`);
    expect(p.sections).toEqual([]);
  });

  it('falls back to the title, then the source, when the breadcrumb is empty', () => {
    const a = buildPrompt('q', [section(1, 't', { breadcrumb: '', title: 'Only title' })]);
    expect(a.user.startsWith('[1] Only title\n')).toBe(true);
    const b = buildPrompt('q', [section(1, 't', { breadcrumb: ' ', title: '', source: 'x.txt' })]);
    expect(b.user.startsWith('[1] x.txt\n(source: x.txt)')).toBe(true);
  });

  it('renumbers sections by position', () => {
    const p = buildPrompt('q', [section(7, 'a'), section(3, 'b')]);
    expect(p.sections.map((s) => s.n)).toEqual([1, 2]);
    expect(p.user).toContain('[1] Doc 7 › Part');
    expect(p.user).toContain('[2] Doc 3 › Part');
  });

  it('cuts each section at a word boundary with …', () => {
    const p = buildPrompt('q', [section(1, 'alpha beta gamma delta epsilon')], { sectionChars: 14 });
    expect(p.sections[0]!.text).toBe('alpha beta…');
    expect(p.user).toContain('\n\nalpha beta…\n\n---\n\nQuestion: q');
  });

  it('drops trailing sections that exceed the total budget, never cutting one to nothing', () => {
    const texts = ['a'.repeat(40), 'b'.repeat(40), 'c'.repeat(40)];
    const p = buildPrompt(
      'q',
      texts.map((t, i) => section(i + 1, t)),
      { sectionChars: 50, totalChars: 100 },
    );
    expect(p.sections.map((s) => s.text)).toEqual([texts[0], texts[1]]);
    expect(p.user).not.toContain('ccc');
  });

  it('stops at the first section that does not fit (rank order is kept)', () => {
    const p = buildPrompt('q', [section(1, 'x'.repeat(60)), section(2, 'y'.repeat(60)), section(3, 'z')], {
      sectionChars: 100,
      totalChars: 100,
    });
    expect(p.sections).toHaveLength(1);
  });

  it('keeps the first section even when it alone exceeds the total budget, cut to it', () => {
    const p = buildPrompt('q', [section(1, 'word '.repeat(100))], { sectionChars: 1000, totalChars: 20 });
    expect(p.sections).toHaveLength(1);
    expect([...p.sections[0]!.text].length).toBeLessThanOrEqual(20);
    expect(p.sections[0]!.text.endsWith('…')).toBe(true);
  });

  it('uses the documented defaults', () => {
    expect(DEFAULT_SECTION_CHARS).toBe(1500);
    expect(DEFAULT_CONTEXT_CHARS).toBe(9000);
    const long = 'word '.repeat(1000);
    const p = buildPrompt(
      'q',
      [1, 2, 3, 4, 5, 6, 7].map((n) => section(n, long)),
    );
    expect(p.sections.every((s) => [...s.text].length <= 1500)).toBe(true);
    expect(p.sections.reduce((a, s) => a + [...s.text].length, 0)).toBeLessThanOrEqual(9000);
    expect(p.sections).toHaveLength(6);
  });

  it('rejects an empty question and non-positive budgets', () => {
    expect(() => buildPrompt('  ', [])).toThrowError(/question/);
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      try {
        buildPrompt('q', [], { sectionChars: bad });
        expect.unreachable();
      } catch (e) {
        expect(isQuiverError(e, 'BAD_INPUT')).toBe(true);
      }
    }
    expect(() => buildPrompt('q', [], { totalChars: 0 })).toThrowError(/totalChars/);
  });
});

describe('cutAtWord', () => {
  it('keeps text within budget (trimmed)', () => {
    expect(cutAtWord('  short text ', 20)).toBe('short text');
  });
  it('cuts at the last whitespace before the budget', () => {
    expect(cutAtWord('the quick brown fox', 12)).toBe('the quick…');
  });
  it('keeps a whole word when the cut lands right before a space', () => {
    expect(cutAtWord('the quick brown', 10)).toBe('the quick…');
  });
  it('cuts a single long word mid-word', () => {
    expect(cutAtWord('supercalifragilistic', 6)).toBe('super…');
  });
  it('counts code points, not UTF-16 units', () => {
    expect(cutAtWord('😀😀😀 😀😀', 6)).toBe('😀😀😀 😀😀');
    expect(cutAtWord('😀😀😀 😀😀', 5)).toBe('😀😀😀…');
  });
  it('budget 1 gives only the mark', () => {
    expect(cutAtWord('abc def', 1)).toBe('…');
  });
});

describe('applyBudgets', () => {
  it('returns [] for no sections', () => {
    expect(applyBudgets([], 10, 10)).toEqual([]);
  });
});
