import { describe, expect, it } from 'vitest';
import { whereLabel } from './where-label.js';

describe('whereLabel', () => {
  it('says the source, one page, or the page range a section spans', () => {
    expect(whereLabel({ source: 'notes.md', pages: null })).toBe('notes.md');
    expect(whereLabel({ source: 'paper.pdf', pages: [3, 3] })).toBe('paper.pdf, p. 3');
    expect(whereLabel({ source: 'paper.pdf', pages: [1, 3] })).toBe('paper.pdf, pp. 1–3');
  });
});
