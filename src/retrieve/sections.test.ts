import { describe, expect, it } from 'vitest';
import type { SectionRecord } from '../types.js';
import { subtreeText } from './sections.js';

/** A section of document `d`: [seq, parent seq | null, level, title, text]. */
function tree(rows: [number, number | null, number, string, string][]): SectionRecord[] {
  return rows.map(([seq, parent, level, title, text]) => ({
    id: `d#${seq}`,
    docId: 'd',
    parentId: parent === null ? null : `d#${parent}`,
    seq,
    level,
    title,
    breadcrumb: title,
    pageStart: null,
    pageEnd: null,
    text,
    lang: null,
  }));
}

describe('subtreeText', () => {
  // # Title → ## Sub (text) → # Other (text)
  const doc = tree([
    [0, null, 0, 'Doc', ''],
    [1, 0, 1, 'Title', ''],
    [2, 1, 2, 'Sub', 'Sub text.'],
    [3, 0, 1, 'Other', 'Other text.'],
  ]);

  it('a section with text of its own gives that text', () => {
    expect(subtreeText('d#2', doc)).toBe('Sub text.');
  });

  it('a heading-only section gives its first descendant with text', () => {
    expect(subtreeText('d#1', doc)).toBe('Sub text.');
    expect(subtreeText('d#0', doc)).toBe('Sub text.'); // the root: pre-order, Sub before Other
  });

  it('never takes text from outside the subtree; an empty subtree gives the title', () => {
    const t = tree([
      [0, null, 0, 'Doc', ''],
      [1, 0, 1, 'Empty', ''],
      [2, 1, 2, 'Also empty', '  \n '],
      [3, 0, 1, 'Next', 'Next text.'],
    ]);
    expect(subtreeText('d#1', t)).toBe('Empty');
  });

  it('follows seq, not the order given', () => {
    expect(subtreeText('d#1', [...doc].reverse())).toBe('Sub text.');
  });

  it('deep chains: the first text any number of levels down', () => {
    const t = tree([
      [0, null, 0, 'Doc', ''],
      [1, 0, 1, 'A', ''],
      [2, 1, 2, 'B', ''],
      [3, 2, 3, 'C', 'Deep.'],
    ]);
    expect(subtreeText('d#1', t)).toBe('Deep.');
  });

  it('an untitled empty section with nothing below gives ""; an unknown id gives ""', () => {
    expect(subtreeText('d#0', tree([[0, null, 0, '  ', '']]))).toBe('');
    expect(subtreeText('d#9', doc)).toBe('');
    expect(subtreeText('d#0', [])).toBe('');
  });
});
