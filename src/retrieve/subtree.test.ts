import { describe, expect, it } from 'vitest';
import type { SectionRecord } from '../types.js';
import { subtree } from './subtree.js';

const sec = (
  seq: number,
  parent: number | null,
  level: number,
  title: string,
  text: string,
): SectionRecord => ({
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
});

// d#0 root › d#1 A (› d#2 A.1 › d#3 A.1.a) › d#4 B
const ALL = [
  sec(0, null, 0, 'Doc', 'intro'),
  sec(1, 0, 1, 'A', 'a text'),
  sec(2, 1, 2, 'A.1', 'a1 text'),
  sec(3, 2, 9, 'A.1.a', 'deep'),
  sec(4, 0, 1, 'B', 'b text'),
];

describe('subtree', () => {
  it('gives a section its descendants in document order, as headings of their level', () => {
    const r = subtree(ALL[1]!, ALL);
    expect(r.children).toEqual(['d#2']);
    expect(r.text).toBe('a text\n\n## A.1\n\na1 text\n\n###### A.1.a\n\ndeep');
  });
  it('the root holds everything; a leaf only itself', () => {
    expect(subtree(ALL[0]!, ALL).children).toEqual(['d#1', 'd#4']);
    expect(subtree(ALL[4]!, ALL)).toEqual({ children: [], text: 'b text' });
  });
  it('leaves out blank parts (a heading-only section) but keeps its children', () => {
    const blank = [sec(0, null, 0, 'Doc', '   '), sec(1, 0, 1, 'A', 'a')];
    expect(subtree(blank[0]!, blank).text).toBe('# A\n\na');
  });
  it('clamps a level 0 child to one #', () => {
    const odd = [sec(0, null, 0, 'Doc', 'x'), sec(1, 0, 0, 'Z', 'z')];
    expect(subtree(odd[0]!, odd).text).toBe('x\n\n# Z\n\nz');
  });
  it('still gives the text of a section missing from the list', () => {
    expect(subtree(sec(9, null, 1, 'Alone', 'alone'), [])).toEqual({ children: [], text: 'alone' });
  });
});
