import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isQuiverError } from '../errors.js';
import { coerceValue, describeValue, parseOptions, type OptionSpec } from './options.js';

const specs: Record<string, OptionSpec> = {
  limit: { type: 'integer', min: 1, short: 'k', help: '' },
  'min-score': { type: 'number', help: '' },
  lambda: { type: 'number', min: 0, max: 1, help: '' },
  select: { type: 'enum', choices: ['topk', 'mmr'], help: '' },
  kind: { type: 'list', choices: ['md', 'pdf'], multiple: true, help: '' },
  text: { type: 'string', multiple: true, help: '' },
  json: { type: 'boolean', help: '' },
  quiet: { type: 'boolean', short: 'q', help: '' },
};

const parse = (args: string[]) => parseOptions(args, specs, 'quiver test');

function errorOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (isQuiverError(e, 'BAD_INPUT')) return e.message;
    throw e;
  }
  throw new Error('expected BAD_INPUT');
}

describe('parseOptions', () => {
  it('reads long, inline, short and attached short values, typed', () => {
    expect(parse(['--limit', '5', '--min-score=-2.5', '-q', 'a', 'b']).values).toEqual({
      limit: 5,
      'min-score': -2.5,
      quiet: true,
    });
    expect(parse(['-k', '3']).values.limit).toBe(3);
    expect(parse(['-k7']).values.limit).toBe(7);
    expect(parse(['x', '--json', 'y']).positionals).toEqual(['x', 'y']);
  });

  it('takes a negative number as a value and, when not a value, as a positional', () => {
    expect(parse(['--min-score', '-1000']).values['min-score']).toBe(-1000);
    expect(parse(['--min-score', '-.5']).values['min-score']).toBe(-0.5);
    expect(parse(['-3']).positionals).toEqual(['-3']);
  });

  it('keeps every occurrence of a repeatable option, lists split on commas', () => {
    expect(parse(['--kind', 'md', '--kind', 'pdf,md']).values.kind).toEqual(['md', 'pdf', 'md']);
    expect(parse(['--text', 'a', '--text', 'b']).values.text).toEqual(['a', 'b']);
  });

  it('keeps the last value of a non-repeatable option', () => {
    expect(parse(['--limit', '2', '--limit', '9']).values.limit).toBe(9);
  });

  it('passes -, and everything after --, as positionals', () => {
    expect(parse(['-', '--', '--json', '-k']).positionals).toEqual(['-', '--json', '-k']);
    expect(parse(['--', '--json']).values.json).toBeUndefined();
  });

  it('names the command and the option of an unknown flag, with the hint', () => {
    expect(errorOf(() => parse(['--bogus']))).toBe('quiver test: unknown option --bogus');
    expect(errorOf(() => parse(['-z']))).toBe('quiver test: unknown option -z');
    expect(
      errorOf(() => parseOptions(['--k', '5'], specs, 'quiver noise marks', () => ' (it belongs to x)')),
    ).toBe('quiver noise marks: unknown option --k (it belongs to x)');
  });

  it('says a value is missing, at the end or before another option', () => {
    expect(errorOf(() => parse(['--limit']))).toBe('quiver test: --limit needs a value (N)');
    expect(errorOf(() => parse(['--select', '--json']))).toBe(
      'quiver test: --select needs a value (topk|mmr)',
    );
  });

  it('refuses a value for a boolean flag', () => {
    expect(errorOf(() => parse(['--json=yes']))).toBe('quiver test: --json takes no value, got "yes"');
  });

  it('gives every bad value the same wording, whatever the type', () => {
    expect(errorOf(() => parse(['--limit', 'abc']))).toBe(
      'quiver test: --limit must be an integer ≥ 1, got "abc"',
    );
    expect(errorOf(() => parse(['--min-score', 'abc']))).toBe(
      'quiver test: --min-score must be a number, got "abc"',
    );
    expect(errorOf(() => parse(['--lambda', '2']))).toBe(
      'quiver test: --lambda must be a number from 0 to 1, got "2"',
    );
    expect(errorOf(() => parse(['--select', 'best']))).toBe(
      'quiver test: --select must be one of topk, mmr, got "best"',
    );
    expect(errorOf(() => parse(['--kind', 'md,doc']))).toBe(
      'quiver test: --kind must be a comma-separated list of md, pdf, got "doc"',
    );
  });
});

describe('coerceValue', () => {
  const int: OptionSpec = { type: 'integer', help: '' };
  const number: OptionSpec = { type: 'number', help: '' };
  it('edge cases: spaces around a number, 1.0 as an integer; empty, hex, Infinity and 1e400 refused', () => {
    expect(coerceValue(' 5 ', int, 'n', 'q')).toBe(5);
    expect(coerceValue('1.0', int, 'n', 'q')).toBe(1);
    expect(coerceValue('1e3', number, 'n', 'q')).toBe(1000);
    for (const bad of ['', '  ', '0x10', 'Infinity', '1e400', '1.5', '--1'])
      expect(() => coerceValue(bad, int, 'n', 'q')).toThrow(/must be an integer/);
  });

  it('drops empty list items and refuses a list of nothing', () => {
    expect(coerceValue('md,,pdf,', { type: 'list', help: '' }, 'k', 'q')).toEqual(['md', 'pdf']);
    expect(() => coerceValue(',', { type: 'list', help: '' }, 'k', 'q')).toThrow(/comma-separated/);
  });

  it('property: every finite number printed by JS reads back as itself', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        expect(coerceValue(String(x), number, 'x', 'q')).toBe(x === 0 ? 0 : x);
      }),
    );
  });

  it('property: any integer passes an integer option in range and fails outside it', () => {
    const spec: OptionSpec = { type: 'integer', min: -5, max: 5, help: '' };
    fc.assert(
      fc.property(fc.integer({ min: -50, max: 50 }), (n) => {
        const ok = n >= -5 && n <= 5;
        if (ok) expect(coerceValue(String(n), spec, 'x', 'q')).toBe(n);
        else expect(() => coerceValue(String(n), spec, 'x', 'q')).toThrow(describeValue(spec));
      }),
    );
  });

  it('property: a string option keeps any value, by --name=value or --name value', () => {
    fc.assert(
      fc.property(fc.string(), (v) => {
        expect(parse([`--text=${v}`]).values.text).toEqual([v]);
        if (!v.startsWith('-')) expect(parse(['--text', v]).values.text).toEqual([v]);
      }),
    );
  });
});
