import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { collapseWhitespace, isSpaceCode } from './whitespace.js';

describe('collapseWhitespace', () => {
  it('reads each whitespace run as one space, without trimming', () => {
    expect(collapseWhitespace(' a \n\t b ')).toBe(' a b ');
    expect(collapseWhitespace('a\u00a0b')).toBe('a b');
    expect(collapseWhitespace('')).toBe('');
    expect(collapseWhitespace('\n\n')).toBe(' ');
    expect(collapseWhitespace('one two')).toBe('one two');
  });

  it('is the regular-expression rewrite for any text (property)', () => {
    const piece = fc.oneof(
      fc.constantFrom(' ', '  ', '\n', '\r\n', '\t', '\u00a0', '\u2028', '\u3000', '\ufeff'),
      fc.string({ maxLength: 6 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (parts) => {
        const t = parts.join('');
        expect(collapseWhitespace(t)).toBe(t.replace(/\s+/g, ' '));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('isSpaceCode', () => {
  it('is \\s for every UTF-16 code unit', () => {
    for (let c = 0; c <= 0xffff; c++) expect(isSpaceCode(c)).toBe(/\s/.test(String.fromCharCode(c)));
  });
});
