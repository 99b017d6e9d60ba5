import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  MAX_FRONT_MATTER_CHARS,
  MAX_FRONT_MATTER_NESTING,
  parseFrontMatter,
  yamlNestingBound,
} from './front-matter.js';

describe('parseFrontMatter', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('splits the YAML mapping off the body', () => {
    expect(parseFrontMatter('---\ntitle: Bees\ntags: [a, b]\n---\n# Hive\n')).toEqual({
      meta: { title: 'Bees', tags: ['a', 'b'] },
      body: '# Hive\n',
    });
  });

  it('needs --- on the very first line and a closing --- or ... line', () => {
    expect(parseFrontMatter('\n---\na: 1\n---\n').meta).toEqual({});
    expect(parseFrontMatter('---\na: 1\nno close')).toEqual({ meta: {}, body: '---\na: 1\nno close' });
    expect(parseFrontMatter('---\na: 1\n...\nbody')).toEqual({ meta: { a: 1 }, body: 'body' });
    expect(parseFrontMatter('--- \na: 1\n---  \nbody')).toEqual({ meta: { a: 1 }, body: 'body' });
    expect(parseFrontMatter('----\na: 1\n---\nbody').meta).toEqual({});
  });

  it('accepts a closing fence at the end of the text, without a newline', () => {
    expect(parseFrontMatter('---\na: 1\n---')).toEqual({ meta: { a: 1 }, body: '' });
  });

  it('is not front matter when a blank line follows the opening --- (a thematic break)', () => {
    const text = '---\n\nIntro: with a colon\n\nMore prose.\n\n---\n';
    expect(parseFrontMatter(text)).toEqual({ meta: {}, body: text });
  });

  it('keeps prose between two thematic breaks in the body (YAML that is not a mapping)', () => {
    for (const text of ['---\nJust a sentence\n---\nrest', '---\n- a\n- b\n---\nrest']) {
      expect(parseFrontMatter(text)).toEqual({ meta: {}, body: text });
    }
  });

  it('drops invalid YAML with meta {}: a syntax error, a duplicate key, a non-string key', () => {
    for (const yaml of ['a: b: c', 'x: 1\nx: 2', 'k: "unterminated', '? [a]\n: 1']) {
      expect(parseFrontMatter(`---\n${yaml}\n---\nbody`)).toEqual({ meta: {}, body: 'body' });
    }
  });

  it('drops an empty or comment-only block', () => {
    expect(parseFrontMatter('---\n---\nbody')).toEqual({ meta: {}, body: 'body' });
    expect(parseFrontMatter('---\n# nothing\n---\nbody')).toEqual({ meta: {}, body: 'body' });
  });

  it('strips a BOM and reads CRLF line endings, keeping the body as written', () => {
    expect(parseFrontMatter('\uFEFF---\r\na: x\r\nb: [1, 2]\r\n---\r\nline\r\n')).toEqual({
      meta: { a: 'x', b: [1, 2] },
      body: 'line\r\n',
    });
  });

  it('returns JSON-safe values: YAML 1.2 core types, dates as strings, non-finite numbers as null', () => {
    const yaml = 'n: 0x1F\nf: .inf\nnan: .nan\nd: 2024-03-02\nyes: yes\nnull: ~\nnested: {a: [1, {b: .inf}]}';
    expect(parseFrontMatter(`---\n${yaml}\n---\n`).meta).toEqual({
      n: 31,
      f: null,
      nan: null,
      d: '2024-03-02',
      yes: 'yes', // YAML 1.2: only true/false are booleans
      null: null,
      nested: { a: [1, { b: null }] },
    });
  });

  it('keeps a __proto__ key as an own field, without touching Object.prototype', () => {
    const meta = parseFrontMatter('---\n__proto__: {polluted: 1}\n---\n').meta;
    expect(Object.keys(meta)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('drops an alias bomb instead of expanding it', () => {
    const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 12; i++)
      lines.push(
        `${'abcdefghijkl'[i]}: &${'abcdefghijkl'[i]} [${Array(10)
          .fill(`*${'abcdefghijkl'[i - 1]}`)
          .join(', ')}]`,
      );
    expect(parseFrontMatter(`---\n${lines.join('\n')}\n---\nbody`)).toEqual({ meta: {}, body: 'body' });
  });

  it('resolves ordinary aliases', () => {
    expect(parseFrontMatter('---\na: &x [1]\nb: *x\n---\n').meta).toEqual({ a: [1], b: [1] });
  });

  // Regression: 15,000 nested `[` (or `- `) made yaml overflow the stack inside V8's regexp
  // compiler, a fatal error that no catch sees. The nesting bound refuses such a block first.
  it('drops deeply nested front matter without handing it to the YAML parser', () => {
    for (const level of ['[', '{', '- ']) {
      const yaml = level.repeat(30_000);
      expect(parseFrontMatter(`---\n${yaml}\n---\nbody`)).toEqual({ meta: {}, body: 'body' });
    }
  });

  it('keeps a block longer than MAX_FRONT_MATTER_CHARS as body text', () => {
    const long = `---\n${'word '.repeat(MAX_FRONT_MATTER_CHARS / 4)}\n---\nbody`;
    expect(parseFrontMatter(long)).toEqual({ meta: {}, body: long });
  });

  it('never emits a process warning (yaml logs through process.emitWarning by default)', () => {
    const emit = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    parseFrontMatter('---\nk: !custom tagged\nok: 1\n---\n');
    parseFrontMatter('---\n? {a: 1}\n: b\n---\n');
    expect(emit).not.toHaveBeenCalled();
  });
});

describe('yamlNestingBound', () => {
  it('counts indentation, compact indicators and open flow brackets', () => {
    expect(yamlNestingBound('')).toBe(1);
    expect(yamlNestingBound('a: 1')).toBe(2); // one `: ` indicator
    expect(yamlNestingBound('a:\n  - b')).toBe(4); // indent 2 + 1 + one `- `
    expect(yamlNestingBound('a: [[1], {b: 2}]')).toBe(5); // `: ` twice + two brackets deep
    expect(yamlNestingBound('- - - x')).toBe(4);
  });

  it('bounds real front matter far below the limit', () => {
    const yaml = 'title: T\ntags:\n  - a\n  - b\nauthor:\n  name: Ann\n  links: [x, y]\n';
    expect(yamlNestingBound(yaml)).toBeLessThan(10);
    expect(MAX_FRONT_MATTER_NESTING).toBeGreaterThan(100);
  });

  it('over-counts brackets inside strings (erring high, never low)', () => {
    expect(yamlNestingBound('a: "[[[["')).toBe(6);
  });
});
