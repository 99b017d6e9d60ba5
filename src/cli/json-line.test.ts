import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonLine } from './json-line.js';

const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

describe('jsonLine', () => {
  it('is JSON.stringify and a line end, as UTF-8', () => {
    const v = { id: 'q1', results: [{ a: 1, s: 'Київ…' }, { b: [1, 2] }], n: null };
    expect(text(jsonLine(v))).toBe(`${JSON.stringify(v)}\n`);
  });

  it('leaves out undefined members and reads undefined array elements as null', () => {
    const v = { a: undefined, b: [undefined, 1], c: () => 1, d: 'x' };
    expect(text(jsonLine(v))).toBe(`${JSON.stringify(v)}\n`);
    expect(text(jsonLine({}))).toBe('{}\n');
    expect(text(jsonLine({ a: undefined }))).toBe('{}\n');
  });

  it('grows past its first buffer', () => {
    const v = { results: Array.from({ length: 300 }, (_, i) => ({ i, s: '…'.repeat(1000) })) };
    expect(text(jsonLine(v))).toBe(`${JSON.stringify(v)}\n`);
  });

  it('equals encoding the whole line for any JSON object (property)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (v) => {
        expect(jsonLine(v)).toEqual(new TextEncoder().encode(`${JSON.stringify(v)}\n`));
      }),
      { numRuns: 500 },
    );
  });
});
