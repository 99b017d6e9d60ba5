import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isQuiverError } from '../errors.js';
import { codePointLength } from '../text/tokens.js';
import { chunkText, DEFAULT_CHUNK_CHARS, DEFAULT_MIN_CHUNK_CHARS } from './chunk.js';

const strip = (s: string): string => s.replace(/\s+/gu, '');

const collapse = (s: string): string => s.replace(/\s+/gu, ' ');

/** Naive reference: non-whitespace text preserved, each chunk found in order (whitespace collapsed), bounded. */
function assertInvariants(text: string, chunks: string[], target: number, minChars: number): void {
  expect(strip(chunks.join(''))).toBe(strip(text));
  const flat = collapse(text);
  let from = 0;
  for (const c of chunks) {
    expect(c.trim()).toBe(c);
    expect(c.length).toBeGreaterThan(0);
    const at = flat.indexOf(collapse(c), from);
    expect(at).toBeGreaterThanOrEqual(from);
    from = at + collapse(c).length;
    expect(codePointLength(c)).toBeLessThanOrEqual(target + minChars);
    // Never split a surrogate pair.
    expect(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/.test(c)).toBe(false);
  }
}

describe('chunkText', () => {
  it('has the documented defaults', () => {
    expect(DEFAULT_CHUNK_CHARS).toBe(512);
    expect(DEFAULT_MIN_CHUNK_CHARS).toBe(40);
  });

  it('returns [] for empty and whitespace-only text', () => {
    expect(chunkText('')).toEqual([]);
    expect(chunkText(' \n\t \n')).toEqual([]);
  });

  it('returns short text as one trimmed chunk', () => {
    expect(chunkText('  Hello world.  ')).toEqual(['Hello world.']);
  });

  it('prefers a paragraph break over a later sentence end', () => {
    const a = 'a'.repeat(30) + ' ' + 'b'.repeat(30);
    const text = `${a}\n\n${'c'.repeat(10)}. ${'d'.repeat(40)}`;
    const chunks = chunkText(text, { target: 80, minChars: 0 });
    expect(chunks[0]).toBe(a);
  });

  it('prefers a line break over a sentence end', () => {
    const text = `${'x'.repeat(50)}\n${'y'.repeat(10)}. ${'z'.repeat(60)}`;
    expect(chunkText(text, { target: 80, minChars: 0 })[0]).toBe('x'.repeat(50));
  });

  it('cuts after a sentence end when there is no line break', () => {
    const text = 'One two three four. Five six seven eight. Nine ten eleven twelve.';
    const chunks = chunkText(text, { target: 45, minChars: 0 });
    expect(chunks[0]).toBe('One two three four. Five six seven eight.');
    expect(chunks[1]).toBe('Nine ten eleven twelve.');
  });

  it('falls back to a word boundary, then a hard cut', () => {
    expect(chunkText('alpha beta gamma delta', { target: 12, minChars: 0 })).toEqual([
      'alpha beta',
      'gamma delta',
    ]);
    expect(chunkText('abcdefghij', { target: 4, minChars: 0 })).toEqual(['abcd', 'efgh', 'ij']);
  });

  it('hard-cuts emoji text at code-point boundaries (never inside a surrogate pair)', () => {
    const text = '😀'.repeat(10);
    const chunks = chunkText(text, { target: 3, minChars: 0 });
    expect(chunks).toEqual(['😀😀😀', '😀😀😀', '😀😀😀', '😀']);
  });

  it('cuts CJK after a full stop', () => {
    const text = '今天天气很好。我们去公园散步吧。然后回家吃饭';
    const chunks = chunkText(text, { target: 10, minChars: 0 });
    expect(chunks[0]).toBe('今天天气很好。');
  });

  it('keeps the kind of break when merging, and never grows a chunk past target + minChars', () => {
    expect(chunkText('lorem     sit', { target: 5, minChars: 5 })).toEqual(['lorem sit']);
    expect(chunkText('lorem \n\n sit', { target: 5, minChars: 5 })).toEqual(['lorem\n\nsit']);
    // Repeated short pieces cannot cascade into one long chunk.
    const chunks = chunkText('\0\0\0\0\0', { target: 1, minChars: 2 });
    expect(chunks.join('')).toBe('\0\0\0\0\0');
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(3);
  });

  it('merges a short trailing piece into the previous chunk, never the first', () => {
    const text = `${'word '.repeat(19)}end.\n\nTiny.`;
    const chunks = chunkText(text, { target: 100, minChars: 10 });
    expect(chunks).toHaveLength(1);
    expect(chunks[0]?.endsWith('Tiny.')).toBe(true);
    // The first piece is never merged, even when short.
    expect(chunkText('Hi.\n\n' + 'x'.repeat(20), { target: 10, minChars: 5 })[0]).toBe('Hi.');
  });

  it('rejects a bad target or minChars with BAD_INPUT', () => {
    for (const options of [{ target: 0 }, { target: 1.5 }, { minChars: -1 }]) {
      try {
        chunkText('x', options);
        expect.unreachable();
      } catch (e) {
        expect(isQuiverError(e, 'BAD_INPUT')).toBe(true);
      }
    }
  });

  it('property: text preserved, chunks ordered substrings, bounded, non-empty (arbitrary unicode)', () => {
    const piece = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 30 }),
      fc.string({ unit: 'binary', maxLength: 30 }),
      fc.constantFrom('. ', '\n', '\n\n', ' ', '! ', '。', '😀', '漢字', '  \n \n'),
    );
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 60 }),
        fc.integer({ min: 1, max: 120 }),
        fc.integer({ min: 0, max: 40 }),
        (parts, target, minChars) => {
          const text = parts.join('');
          assertInvariants(text, chunkText(text, { target, minChars }), target, minChars);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('property: chunks never exceed target + minChars, even across wide whitespace gaps', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('lorem', 'ipsum', 'dolor.', ' ', '\n', '\n\n', 'sit', 'amet!'), {
          maxLength: 300,
        }),
        fc.integer({ min: 5, max: 80 }),
        (parts, target) => {
          const text = parts.join(' ');
          const minChars = 5;
          for (const c of chunkText(text, { target, minChars })) {
            expect(codePointLength(c)).toBeLessThanOrEqual(target + minChars);
          }
        },
      ),
    );
  });

  it('chunks 5 MB of prose into whole chunks that cover it (speed is measured in bench/, not here)', () => {
    const line = 'The quick brown fox jumps over the lazy dog. It was a sunny day.\n';
    const chunks = chunkText(line.repeat(80_000));
    expect(chunks.length).toBeGreaterThan(9000);
    expect(chunks.join(' ').replace(/\s+/g, '')).toBe(line.repeat(80_000).replace(/\s+/g, ''));
  });
});
