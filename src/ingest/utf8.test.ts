import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { invalidUtf8Offset, utf8Profile, Utf8ProfileStream } from './utf8.js';

const bytes = (...b: number[]): Uint8Array => Uint8Array.from(b);

describe('utf8Profile', () => {
  it('counts well-formed multi-byte characters and ill-formed sequences', () => {
    expect(utf8Profile(new Uint8Array())).toEqual({ multibyte: 0, invalid: 0, firstInvalid: -1 });
    expect(utf8Profile(new TextEncoder().encode('aé€😀'))).toEqual({
      multibyte: 3,
      invalid: 0,
      firstInvalid: -1,
    });
    expect(utf8Profile(bytes(0xc3, 0xa9, 0xe9, 0x41))).toEqual({ multibyte: 1, invalid: 1, firstInvalid: 2 });
  });

  it('counts a truncated sequence once, and overlong forms, surrogates and stray continuations', () => {
    expect(utf8Profile(bytes(0xe2, 0x82)).invalid).toBe(1); // cut off at the end
    expect(utf8Profile(bytes(0xe2, 0x82, 0x41)).invalid).toBe(1); // cut off by ASCII
    expect(utf8Profile(bytes(0xc0, 0xaf)).invalid).toBe(2); // overlong: two bad bytes
    expect(utf8Profile(bytes(0xed, 0xa0, 0x80)).invalid).toBe(3); // a surrogate
    expect(utf8Profile(bytes(0x80, 0x80)).invalid).toBe(2);
  });

  it('counts what a lenient decoder replaces, and agrees with invalidUtf8Offset (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (b) => {
        const p = utf8Profile(b);
        const decoded = new TextDecoder().decode(b);
        const replaced = (decoded.match(/\ufffd/g) ?? []).length;
        // Each U+FFFD is an ill-formed sequence, or the input's own EF BF BD (never part of a bad run:
        // EF is no continuation byte).
        const spelt = Buffer.from(b).toString('latin1').split('\xef\xbf\xbd').length - 1;
        expect(p.invalid).toBe(replaced - spelt);
        expect(p.firstInvalid).toBe(invalidUtf8Offset(b, true));
      }),
    );
  });
});

describe('Utf8ProfileStream', () => {
  it('profiles chunks as one buffer, wherever the chunk boundaries fall (property)', () => {
    const piece = fc.oneof(
      fc.uint8Array({ maxLength: 12 }),
      fc.string({ unit: 'binary', maxLength: 6 }).map((s) => new TextEncoder().encode(s)),
    );
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 12 }),
        fc.array(fc.nat(40), { maxLength: 6 }),
        (pieces, cuts) => {
          const all = Uint8Array.from(pieces.flatMap((p) => [...p]));
          const stream = new Utf8ProfileStream();
          let at = 0;
          for (const cut of [...cuts].sort((a, b) => a - b)) {
            const end = Math.min(all.length, Math.max(at, cut));
            stream.push(all.subarray(at, end));
            at = end;
          }
          stream.push(all.subarray(at));
          expect(stream.finish()).toEqual(utf8Profile(all));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('counts a sequence split between chunks once, and one cut off by the end as ill-formed', () => {
    const s = new Utf8ProfileStream();
    for (const b of [0x41, 0xf0, 0x9f, 0x98, 0x80, 0xe2, 0x82]) s.push(Uint8Array.from([b]));
    expect(s.finish()).toEqual({ multibyte: 1, invalid: 1, firstInvalid: 5 });
  });
});
