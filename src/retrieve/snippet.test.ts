import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SNIPPET_CHARS, snippet } from './snippet.js';

/** The rule read plainly: normalise the whole text, then cut. */
function reference(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim();
  if (t.length <= SNIPPET_CHARS) return t;
  return `${t.slice(0, SNIPPET_CHARS).replace(/\s+\S*$/, '')}…`;
}

describe('snippet', () => {
  it('collapses whitespace and trims', () => {
    expect(snippet('  a \n\t b  ')).toBe('a b');
    expect(snippet('')).toBe('');
    expect(snippet(' \n \u00a0 ')).toBe('');
  });

  it('keeps a text of exactly SNIPPET_CHARS characters whole', () => {
    const t = 'x'.repeat(SNIPPET_CHARS);
    expect(snippet(t)).toBe(t);
  });

  it('cuts a long text at the last whole word', () => {
    const t = 'word '.repeat(200);
    const s = snippet(t);
    expect(s.endsWith('word…')).toBe(true);
    expect(s.length).toBeLessThanOrEqual(SNIPPET_CHARS + 1);
  });

  it('cuts a first word longer than SNIPPET_CHARS inside it', () => {
    expect(snippet('y'.repeat(1000))).toBe(`${'y'.repeat(SNIPPET_CHARS)}…`);
  });

  it('reads a long whitespace run before the words as nothing', () => {
    const t = `${' '.repeat(5000)}${'word '.repeat(100)}`;
    expect(snippet(t)).toBe(reference(t));
  });

  it('is the whole-text rule for any text (property)', () => {
    const piece = fc.oneof(
      fc.constantFrom(' ', '  ', '\n', '\t', '\u00a0', '\u2028'),
      fc.stringMatching(/^[a-z]{1,12}$/),
      fc.constant(' '.repeat(700)),
      fc.constant('z'.repeat(350)),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 200 }), (parts) => {
        const t = parts.join('');
        expect(snippet(t)).toBe(reference(t));
      }),
      { numRuns: 1000 },
    );
  });
});
