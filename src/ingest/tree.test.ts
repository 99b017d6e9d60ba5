import { describe, expect, it } from 'vitest';
import type { ParsedDocument, ParsedSection } from './parsed.js';
import { BREADCRUMB_SEPARATOR, buildSections, MAX_BREADCRUMB_CHARS, shortenBreadcrumb } from './tree.js';

const sec = (level: number, title: string, ...texts: [number | null, string][]): ParsedSection => ({
  level,
  title,
  segments: texts.map(([page, text]) => ({ page, text })),
});

const doc = (sections: ParsedSection[], title = 'Doc'): ParsedDocument => ({
  source: 'x.md',
  title,
  kind: 'md',
  meta: {},
  pages: null,
  sections,
});

describe('buildSections', () => {
  it('uses U+203A with spaces as the separator', () => {
    expect(BREADCRUMB_SEPARATOR).toBe(' \u203a ');
  });

  it('numbers sections in pre-order and parents them by level', () => {
    const built = buildSections(
      doc([
        sec(0, 'Doc', [null, 'intro']),
        sec(1, 'A'),
        sec(2, 'A1', [null, 'a1']),
        sec(1, 'B'),
        sec(2, 'B1'),
      ]),
    );
    expect(built.map((s) => [s.seq, s.parentSeq, s.level])).toEqual([
      [0, null, 0],
      [1, 0, 1],
      [2, 1, 2],
      [3, 0, 1],
      [4, 3, 2],
    ]);
    expect(built[2]?.breadcrumb).toBe('Doc › A › A1');
    expect(built[4]?.breadcrumb).toBe('Doc › B › B1');
  });

  it('parents an H3 that follows an H1 directly under the H1', () => {
    const built = buildSections(doc([sec(0, 'Doc'), sec(1, 'A'), sec(3, 'Deep'), sec(2, 'Mid')]));
    expect(built[2]?.parentSeq).toBe(1);
    expect(built[3]?.parentSeq).toBe(1); // H2 after H3: the H3 closes, the H1 stays open
    expect(built[2]?.breadcrumb).toBe('Doc › A › Deep');
  });

  it('adds a root titled with the document title when the list lacks one', () => {
    const built = buildSections(doc([sec(2, 'Only')], 'My Doc'));
    expect(built[0]).toMatchObject({ seq: 0, level: 0, title: 'My Doc', text: '', parentSeq: null });
    expect(built[1]).toMatchObject({ seq: 1, parentSeq: 0, breadcrumb: 'My Doc › Only' });
  });

  it('titles the root with the document title even if the parsed root differs', () => {
    expect(buildSections(doc([sec(0, 'other')], 'Real'))[0]?.title).toBe('Real');
  });

  it('keeps empty intermediate sections', () => {
    const built = buildSections(doc([sec(0, 'Doc'), sec(1, 'Empty'), sec(2, 'Full', [null, 'x'])]));
    expect(built).toHaveLength(3);
    expect(built[1]?.text).toBe('');
  });

  it('joins segments with blank lines and takes the page range from non-blank segments', () => {
    const built = buildSections(doc([sec(0, 'Doc', [2, ' a '], [3, '  '], [4, 'b'])]));
    expect(built[0]?.text).toBe('a\n\nb');
    expect([built[0]?.pageStart, built[0]?.pageEnd]).toEqual([2, 4]);
    expect(buildSections(doc([sec(0, 'Doc', [null, 'x'])]))[0]?.pageStart).toBeNull();
    // All blank: the range of all segments.
    expect(buildSections(doc([sec(0, 'Doc', [5, ''])]))[0]?.pageStart).toBe(5);
  });

  it('clamps heading levels to 1..6 and squashes title whitespace', () => {
    const built = buildSections(doc([sec(0, 'Doc'), sec(9, ' A \n b '), sec(0, 'zero')]));
    expect(built[1]).toMatchObject({ level: 6, title: 'A b' });
    expect(built[2]?.level).toBe(1);
  });

  it('caps breadcrumbs at MAX_BREADCRUMB_CHARS', () => {
    const long = 'x'.repeat(80);
    const built = buildSections(doc([sec(0, 'Doc'), sec(1, long), sec(2, long), sec(3, long)]));
    const crumb = built[3]?.breadcrumb ?? '';
    expect([...crumb].length).toBeLessThanOrEqual(MAX_BREADCRUMB_CHARS);
    expect(crumb.startsWith('Doc › …')).toBe(true);
    expect(crumb.endsWith(long)).toBe(true);
  });
});

describe('shortenBreadcrumb', () => {
  it('returns short breadcrumbs unchanged and [] as empty', () => {
    expect(shortenBreadcrumb(['a', 'b'])).toBe('a › b');
    expect(shortenBreadcrumb([])).toBe('');
  });

  it('drops middle parts first, then cuts', () => {
    expect(shortenBreadcrumb(['Doc', 'middle part', 'Leaf'], 16)).toBe('Doc › … › Leaf');
    const cut = shortenBreadcrumb(['a'.repeat(30)], 10);
    expect(cut).toBe('a'.repeat(9) + '…');
  });
});
