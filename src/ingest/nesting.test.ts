import fc from 'fast-check';
import { JSDOM, VirtualConsole } from 'jsdom';
import { describe, expect, it } from 'vitest';
import { isQuiverError } from '../errors.js';
import { parseHtml } from './html.js';
import { htmlNestingDepth } from './html-nesting.js';
import { parseMarkdown } from './markdown.js';
import {
  assertNesting,
  markdownNestingDepth,
  MAX_HTML_NESTING,
  MAX_MARKDOWN_NESTING,
  MAX_MARKDOWN_NESTING_WORK,
} from './nesting.js';

/** A list nested `depth` levels, two spaces per level, each item padded to about `lineChars`. */
function nestedList(depth: number, lineChars = 0): string {
  const lines: string[] = [];
  for (let i = 0; i < depth; i++) {
    const item = `${'  '.repeat(i)}- item ${i}`;
    lines.push(lineChars > 0 ? `${item} ${'x'.repeat(Math.max(0, lineChars - item.length - 1))}` : item);
  }
  return lines.join('\n');
}

function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  return undefined;
}

/** Column of `index` in `line`, tabs to the next multiple of 4. */
function columnOf(line: string, index: number): number {
  let col = 0;
  for (let i = 0; i < index; i++) col = line[i] === '\t' ? col + 4 - (col % 4) : col + 1;
  return col;
}

interface NaiveLine {
  blank: boolean;
  quotes: number;
  items: { abs: number; rel: number }[];
  content: { abs: number; rel: number };
  length: number;
}

/** One line read with regular expressions, as markdownNestingDepth's TSDoc describes. */
function naiveLine(line: string): NaiveLine {
  let idx = 0;
  let quotes = 0;
  let prefix = 0;
  const items: { abs: number; rel: number }[] = [];
  for (;;) {
    idx += /^[ \t]*/.exec(line.slice(idx))![0].length;
    const rest = line.slice(idx);
    const quote = /^>[ \t]?/.exec(rest);
    if (quote !== null) {
      quotes++;
      const afterGt = columnOf(line, idx + 1);
      const col =
        quote[0].length === 2 ? (rest[1] === '\t' ? afterGt + 4 - (afterGt % 4) : afterGt + 1) : afterGt;
      idx += quote[0].length;
      if (items.length === 0) prefix = col;
      continue;
    }
    const marker = /^(?:[-+*]|\d{1,9}[.)])(?=[ \t]|$)/.exec(rest);
    if (marker === null || /^([-*_])(?:[ \t]*\1){2,}[ \t]*$/.test(rest)) break;
    const col = columnOf(line, idx);
    items.push({ abs: col, rel: col - prefix });
    idx += marker[0].length;
  }
  const col = columnOf(line, idx);
  return {
    blank: line.trim() === '' && quotes === 0 && items.length === 0,
    quotes,
    items,
    content: { abs: col, rel: col - prefix },
    length: line.length,
  };
}

/** Quadratic reference: an item is open at line n unless some line after it, up to n, closes it. */
function naiveMarkdownDepth(text: string): { depth: number; line: number; work: number } {
  const lines = text.split('\n').map(naiveLine);
  const closes = (k: number, col: number, reading: 'abs' | 'rel'): boolean => {
    const l = lines[k]!;
    if (l.blank) return false;
    if (l.items.length > 0) return l.items[0]![reading] <= col;
    return (k === 0 || lines[k - 1]!.blank) && l.content[reading] <= col;
  };
  const openAt = (n: number, reading: 'abs' | 'rel'): number => {
    let open = 0;
    for (let j = 0; j <= n; j++)
      for (const item of lines[j]!.items) {
        let closed = false;
        for (let k = j + 1; k <= n && !closed; k++) closed = closes(k, item[reading], reading);
        if (!closed) open++;
      }
    return open;
  };
  let best = { depth: 0, line: 0 };
  let work = 0;
  lines.forEach((l, n) => {
    if (l.blank) return;
    const carried = n > 0 && !lines[n - 1]!.blank ? lines[n - 1]!.quotes : 0;
    const depth = carried + l.quotes + Math.max(openAt(n, 'abs'), openAt(n, 'rel'));
    work += (l.length + 1) * depth;
    if (depth > best.depth) best = { depth, line: n + 1 };
  });
  return { ...best, work };
}

describe('markdownNestingDepth', () => {
  it('counts list levels by indentation and > markers, per line', () => {
    expect(markdownNestingDepth('- a\n  - b\n    > c')).toEqual({ depth: 3, line: 3, work: 40 });
    expect(markdownNestingDepth('1. a\n   1. b\n      1. c').depth).toBe(3);
    expect(markdownNestingDepth('- a\n- b\n- c').depth).toBe(1); // siblings
    expect(markdownNestingDepth('- - - x').depth).toBe(3); // three lists on one line; `- - -` alone is a rule
    expect(markdownNestingDepth('- - -\n* * *\n_ _ _').depth).toBe(0); // thematic breaks
    expect(markdownNestingDepth('> > > x').depth).toBe(3);
    expect(markdownNestingDepth('\t- a\n\t\t- b').depth).toBe(2);
    expect(markdownNestingDepth('- a\n\nafter\n  - b').depth).toBe(1); // a paragraph after a blank line closes
    expect(markdownNestingDepth('')).toEqual({ depth: 0, line: 0, work: 0 });
    expect(markdownNestingDepth('plain\n\ntext').depth).toBe(0);
  });

  it('counts a lazy line inside the quotes above it', () => {
    expect(markdownNestingDepth('> > quoted\nlazy').depth).toBe(2);
    expect(markdownNestingDepth('> quoted\n\nnot lazy').depth).toBe(1);
  });

  it('agrees with a quadratic reference on generated documents (property)', () => {
    const piece = fc.constantFrom(
      '',
      ' ',
      '  ',
      '   ',
      '    ',
      '\t',
      '> ',
      '>',
      '>\t',
      '- ',
      '* ',
      '+ ',
      '1. ',
      '12) ',
      '-',
      'text',
      '---',
      '- - -',
      '* * *',
      '__ _',
    );
    const doc = fc
      .array(
        fc.array(piece, { maxLength: 6 }).map((a) => a.join('')),
        { maxLength: 14 },
      )
      .map((a) => a.join('\n'));
    fc.assert(
      fc.property(doc, (text) => {
        expect(markdownNestingDepth(text)).toEqual(naiveMarkdownDepth(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('reads well-nested documents as deep as they are', () => {
    for (const depth of [1, 5, 10, 40]) expect(markdownNestingDepth(nestedList(depth)).depth).toBe(depth);
  });
});

describe('htmlNestingDepth', () => {
  it('follows the parser: implied ends, void and raw-text elements, comments, foreign content', () => {
    expect(htmlNestingDepth('<ul>\n<li><b>x</b>\n<li>y\n</ul>')).toEqual({ depth: 3, line: 2 });
    expect(htmlNestingDepth('<p>a<p>b<p>c').depth).toBe(1);
    expect(htmlNestingDepth('<div><div></div></div><div></div>').depth).toBe(2);
    expect(htmlNestingDepth('<html><body><div>x</div></body></html>').depth).toBe(1);
    expect(htmlNestingDepth('<div><img><br></div>').depth).toBe(2); // a void element is a leaf
    expect(htmlNestingDepth('<!-- <div><div><div> -->x<!-->').depth).toBe(0);
    expect(htmlNestingDepth('<script>"<div><div><div>"</script><p>').depth).toBe(1);
    expect(htmlNestingDepth('<div title="a > b"><span>x</span></div>').depth).toBe(2);
    expect(htmlNestingDepth('<table><tr><td>x<td>y</table>').depth).toBe(4); // table > tbody > tr > td
    expect(htmlNestingDepth('<svg><path/><path/><g><path/></g></svg>').depth).toBe(3);
    expect(htmlNestingDepth('<div/><div/><div/>').depth).toBe(3); // `/>` means nothing on HTML elements
    expect(htmlNestingDepth('').depth).toBe(0);
  });

  it('does not let an ignored end tag hide depth', () => {
    // `</span>` cannot close past a `div`, and `</li>` cannot close past a `ul`: both are ignored.
    expect(htmlNestingDepth('<span><div></span>'.repeat(5)).depth).toBe(10);
    expect(htmlNestingDepth('<li><ul></li>'.repeat(5)).depth).toBe(10);
  });

  it('stops as soon as the depth passes stopAbove', () => {
    expect(htmlNestingDepth('<div>\n'.repeat(1000), 10)).toEqual({ depth: 11, line: 11 });
  });

  it('is never below the depth of the DOM jsdom builds (property)', () => {
    const window = new JSDOM('', { virtualConsole: new VirtualConsole() }).window;
    const domDepth = (html: string): number => {
      const doc = new window.DOMParser().parseFromString(html, 'text/html');
      let max = 0;
      const walk = (el: Element, d: number): void => {
        max = Math.max(max, d);
        for (const c of Array.from(el.children)) walk(c, d + 1);
      };
      for (const part of Array.from(doc.documentElement.children))
        for (const c of Array.from(part.children)) walk(c, 1);
      return max;
    };
    const tag = fc.constantFrom(
      '<div>',
      '</div>',
      '<span>',
      '</span>',
      '<p>',
      '</p>',
      '<li>',
      '</li>',
      '<ul>',
      '</ul>',
      '<b>',
      '</b>',
      '<table>',
      '<tr>',
      '<td>',
      '</table>',
      '<br>',
      '<img src=x>',
      '<svg>',
      '<g/>',
      '<g>',
      '</svg>',
      '<foreignObject>',
      '<script>x<div></script>',
      '<!-- <div> -->',
      '<h1>',
      '<h2>',
      '<dd>',
      '<dl>',
      '<button>',
      '<select>',
      '<option>',
      '<math>',
      '<mi>',
      '<a href=x>',
      '</a>',
      '<i>',
      '<font color=red>',
      '<rt>',
      '<ruby>',
      'text',
    );
    // Found by this property: a table part ends a select inside a table ("in select in table").
    for (const html of ['<table><select><td>', '<table><select><tr><td>x', '<table><tr><td><select><td>x'])
      expect(htmlNestingDepth(html).depth, html).toBeGreaterThanOrEqual(domDepth(html));
    fc.assert(
      fc.property(fc.array(tag, { maxLength: 60 }), (tags) => {
        const html = tags.join('');
        expect(htmlNestingDepth(html).depth).toBeGreaterThanOrEqual(domDepth(html));
      }),
      { numRuns: 1500 },
    );
  });
});

describe('assertNesting and the readers', () => {
  it('refuses a 9 MB, 3,000-level nested list quickly, naming file, depth, line and limit', () => {
    const md = nestedList(3000, 3000);
    expect(md.length).toBeGreaterThan(9_000_000);
    const heap0 = process.memoryUsage().heapUsed;
    const t0 = performance.now();
    const err = thrown(() => parseMarkdown(md, 'deep/list.md'));
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(process.memoryUsage().heapUsed - heap0).toBeLessThan(100 * 1024 * 1024);
    expect(isQuiverError(err, 'CORRUPT_FILE')).toBe(true);
    expect((err as Error).message).toBe(
      `quiver: deep/list.md nests 3000 levels deep at line 3000, over the Markdown limit of ${MAX_MARKDOWN_NESTING}`,
    );
    expect((err as { details: unknown }).details).toMatchObject({ depth: 3000, line: 3000, limit: 100 });
  });

  it('refuses 20,000 nested > quickly (marked would overflow the stack)', () => {
    const t0 = performance.now();
    const err = thrown(() => parseMarkdown('>'.repeat(20_000) + ' hello\n', 'quotes.md'));
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(isQuiverError(err, 'CORRUPT_FILE')).toBe(true);
    expect((err as Error).message).toMatch(/quotes\.md nests 20000 levels deep at line 1/);
  });

  it('refuses deep HTML before jsdom sees it, and a large file nested moderately deep', () => {
    const html = '<html><body>' + '<div>'.repeat(20_000) + 'x' + '</div>'.repeat(20_000) + '</body></html>';
    const t0 = performance.now();
    const err = thrown(() => parseHtml(html, 'deep.html'));
    expect(performance.now() - t0).toBeLessThan(1000);
    expect((err as Error).message).toBe(
      `quiver: deep.html nests more than ${MAX_HTML_NESTING} levels deep at line 1, over the HTML limit of ${MAX_HTML_NESTING}`,
    );
    // 60 levels is allowed, but 60 levels × 5 MB is more copying than marked may do.
    const indent = '  '.repeat(60);
    const body = `${indent}lorem ipsum dolor sit amet\n`.repeat(40_000);
    const big = `${nestedList(60)}\n${body}`;
    expect(markdownNestingDepth(big).work).toBeGreaterThan(MAX_MARKDOWN_NESTING_WORK);
    expect(thrown(() => assertNesting(big, 'Markdown', 'big.md'))).toMatchObject({
      code: 'CORRUPT_FILE',
      message: expect.stringMatching(
        /big\.md holds \d+ characters × nesting levels \(deepest 60 at line 60\)/,
      ),
    });
  });

  it('still parses ordinary nested lists as before', () => {
    const md = `# Plan\n\n${nestedList(10)}\n\nAfter the list.\n`;
    const doc = parseMarkdown(md, 'plan.md');
    expect(doc.sections).toHaveLength(1);
    expect(doc.sections[0]?.segments[0]?.text).toBe(`${nestedList(10)}\n\nAfter the list.`);
    expect(() => assertNesting(nestedList(MAX_MARKDOWN_NESTING), 'Markdown', 'ok.md')).not.toThrow();
    expect(() => assertNesting(nestedList(MAX_MARKDOWN_NESTING + 1), 'Markdown', 'no.md')).toThrow(
      /limit of 100/,
    );
  });
});
