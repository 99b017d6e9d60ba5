import { describe, expect, it } from 'vitest';
import { judgedText } from './context-section.js';

describe('judgedText', () => {
  it('puts the heading path above the text', () => {
    expect(judgedText({ title: 'Boiling', breadcrumb: 'Eggs › Boiling', text: 'Ten minutes.' })).toBe(
      'Eggs › Boiling\nTen minutes.',
    );
  });

  it('adds the title when the breadcrumb does not end with it, and uses whichever is there', () => {
    expect(judgedText({ title: 'Boiling', breadcrumb: 'Eggs', text: 'x' })).toBe('Eggs › Boiling\nx');
    expect(judgedText({ title: 'Boiling', breadcrumb: '', text: 'x' })).toBe('Boiling\nx');
    expect(judgedText({ title: '', breadcrumb: 'Eggs', text: 'x' })).toBe('Eggs\nx');
    expect(judgedText({ title: ' ', breadcrumb: '', text: 'x' })).toBe('x');
  });
});
