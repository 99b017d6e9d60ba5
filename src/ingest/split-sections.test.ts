import { describe, expect, it } from 'vitest';
import type { ParsedDocument } from './parsed.js';
import { splitLargeSections } from './split-sections.js';

const doc = (sections: ParsedDocument['sections']): ParsedDocument => ({
  source: 's',
  title: 'T',
  kind: 'txt',
  meta: {},
  pages: null,
  sections,
});
const para = (n: number, word = 'word'): string =>
  Array.from({ length: n }, (_, i) => `${word}${i} is here.`).join(' ');

describe('splitLargeSections', () => {
  it('returns the same document when every section is small', () => {
    const d = doc([{ level: 0, title: 'T', segments: [{ page: null, text: 'short' }] }]);
    expect(splitLargeSections(d, 100)).toBe(d);
  });

  it('groups pages of a long paged section into Page/Pages children after an emptied parent', () => {
    const pages = [1, 2, 3, 4].map((p) => ({ page: p, text: para(4, `p${p}w`) }));
    const len = [...pages[0]!.text].length;
    const d = splitLargeSections(doc([{ level: 0, title: 'T', segments: pages }]), len * 2 + 5);
    expect(d.sections.map((s) => [s.level, s.title])).toEqual([
      [0, 'T'],
      [1, 'Pages 1–2'],
      [1, 'Pages 3–4'],
    ]);
    expect(d.sections[0]!.segments).toEqual([]);
    expect(d.sections[1]!.segments.map((g) => g.page)).toEqual([1, 2]);
  });

  it('cuts a long unpaged section into parts at sentence boundaries, losing no words', () => {
    const text = para(200);
    const d = splitLargeSections(doc([{ level: 1, title: 'Long', segments: [{ page: null, text }] }]), 500);
    const parts = d.sections.slice(1);
    expect(parts.length).toBeGreaterThan(3);
    expect(parts.every((p) => p.level === 2 && /^Part \d+ of \d+$/.test(p.title))).toBe(true);
    expect(
      parts
        .map((p) => p.segments[0]!.text)
        .join(' ')
        .split(/\s+/),
    ).toEqual(text.split(/\s+/));
    expect(parts.every((p) => p.segments[0]!.text.endsWith('.'))).toBe(true);
  });

  it('splits a single oversized page into parts of that page', () => {
    const d = splitLargeSections(
      doc([{ level: 0, title: 'T', segments: [{ page: 7, text: para(100) }] }]),
      300,
    );
    expect(d.sections[1]!.title).toMatch(/^Page 7 \(part 1 of \d+\)$/);
    expect(d.sections.slice(1).every((s) => s.segments[0]!.page === 7)).toBe(true);
  });
});
