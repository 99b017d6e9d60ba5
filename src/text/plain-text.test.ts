import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { markdownToPlain, markdownToPlain as plain, snippetToPlain } from './plain-text.js';

const squash = (s: string): string => s.replace(/\s+/g, ' ').trim();

describe('markdownToPlain: the real cases', () => {
  it('reads the snippets search shows', () => {
    expect(plain('**changes in surface albedo**')).toBe('changes in surface albedo');
    expect(plain('- **Yield:** 36 g')).toBe('Yield: 36 g');
    expect(plain('see [the guide](http://x)')).toBe('see the guide');
    expect(plain('`npm ci`')).toBe('npm ci');
  });
});

describe('markdownToPlain: rules', () => {
  it('removes emphasis, strong and strikethrough markers, keeping the text', () => {
    expect(plain('**changes in surface albedo**')).toBe('changes in surface albedo');
    expect(plain('a *b* _c_ ~~d~~ __e__ ***f***')).toBe('a b c d e f');
  });

  it('keeps the text of links and the alt of images; autolinks keep the URL', () => {
    expect(plain('see [the guide](http://x)')).toBe('see the guide');
    expect(plain('[**bold** link](http://x "title")')).toBe('bold link');
    expect(plain('![a cat](cat.png)')).toBe('a cat');
    expect(plain('![a *cat* &amp; dog](c.png)')).toBe('a cat & dog');
    expect(plain('<https://x.org>')).toBe('https://x.org');
    expect(plain('go to https://x.org/a_b or www.x.org, mail a@b.org')).toBe(
      'go to https://x.org/a_b or www.x.org, mail a@b.org',
    );
  });

  it('reduces reference links to their text and drops the definitions', () => {
    expect(plain('Read [the docs][d] now.\n\n[d]: http://docs "Docs"')).toBe('Read the docs now.');
  });

  it('drops list markers, heading hashes and blockquote markers, one block per line', () => {
    expect(plain('- **Yield:** 36 g\n- two')).toBe('Yield: 36 g\ntwo');
    expect(plain('* a\n* b\n\n+ c')).toBe('a\nb\nc');
    expect(plain('1. one\n2. two')).toBe('one\ntwo');
    expect(plain('# Title\n\nBody')).toBe('Title\nBody');
    expect(plain('> quoted *x*')).toBe('quoted x');
  });

  it('puts nested and loose list items on their own lines, without task boxes', () => {
    expect(plain('1. one\n2. two\n   - nested **n**')).toBe('one\ntwo\nnested n');
    expect(plain('- a\n\n  second paragraph\n- b')).toBe('a\nsecond paragraph\nb');
    expect(plain('- [ ] todo\n- [x] done')).toBe('todo\ndone');
  });

  it('reads setext headings and nested quotes', () => {
    expect(plain('Title\n=====\n\nSub\n---\n\ntext')).toBe('Title\nSub\ntext');
    expect(plain('> outer\n>\n> > inner')).toBe('outer\ninner');
  });

  it('keeps code without backticks or fences, and the spacing inside a code block', () => {
    expect(plain('run `npm ci` first')).toBe('run npm ci first');
    expect(plain('```sh\n  a  b\n```')).toBe('  a  b');
    expect(plain('    indented\n      more')).toBe('indented\n  more');
  });

  it('leaves Markdown and entities inside code alone', () => {
    expect(plain('`**not bold**` and `&amp;`')).toBe('**not bold** and &amp;');
    expect(plain('```\n# not a heading\n- not a list\n```')).toBe('# not a heading\n- not a list');
  });

  it('writes a table as one line per row with cells joined by |', () => {
    expect(plain('| a | b |\n|---|---|\n| 1 | 2 |')).toBe('a | b\n1 | 2');
    expect(plain('| a | b |\n|---|---|\n| **x** | |')).toBe('a | b\nx |');
  });

  it('decodes entities, resolves escapes and drops HTML tags', () => {
    expect(plain('fish &amp; chips &#8212; &#x41;')).toBe('fish & chips — A');
    expect(plain('\\*literal\\*')).toBe('*literal*');
    expect(plain('a <b>bold</b> word')).toBe('a bold word');
    expect(plain('&bogus;')).toBe('&bogus;');
  });

  it('leaves unknown entity names alone, including Object.prototype names', () => {
    expect(plain('&constructor; &toString; &hasOwnProperty;')).toBe(
      '&constructor; &toString; &hasOwnProperty;',
    );
  });

  it('decodes entities once: &amp;lt; is the text &lt;', () => {
    expect(plain('&amp;lt; &mdash; a&nbsp;b')).toBe('&lt; — a b');
  });

  it('drops HTML comments, scripts and styles; block tags and <br> break the line', () => {
    expect(plain('<div>\n<p>a</p><p>b &amp; c</p>\n<!-- hidden -->\n<script>evil()</script>\n</div>')).toBe(
      'a\nb & c',
    );
    expect(plain('Text<br>more <!-- note --> end')).toBe('Text\nmore end');
  });

  it('drops thematic breaks', () => {
    expect(plain('a\n\n---\n\nb\n\n***')).toBe('a\nb');
  });
});

describe('markdownToPlain: whitespace', () => {
  it('joins soft line breaks with a space, drops blank lines and collapses spaces', () => {
    expect(plain('one\ntwo   three\n\n\n\nfour')).toBe('one two three\nfour');
    expect(plain('  \n  ')).toBe('');
    expect(plain('')).toBe('');
  });

  it('keeps hard line breaks (two spaces, a backslash) as line breaks', () => {
    expect(plain('a  \nb\\\nc')).toBe('a\nb\nc');
  });

  it('keeps at most one blank line inside code, and trims the ends', () => {
    expect(plain('\n\n```\nx\n\n\n\ny   \n```\n\n')).toBe('x\n\ny');
  });
});

describe('markdownToPlain: fragments cut from a document', () => {
  it('edge cases: half emphasis from a cut snippet is removed, a lone * is kept', () => {
    expect(plain('cut **here and')).toBe('cut here and');
    expect(plain('there** ends')).toBe('there ends');
    expect(plain('3 * 4 = 12')).toBe('3 * 4 = 12');
    expect(plain('a_b_c snake_case')).toBe('a_b_c snake_case');
  });

  it('drops a stray ** next to punctuation: the cut went through **Yield:**', () => {
    expect(plain('**Yield: 36 g')).toBe('Yield: 36 g');
    expect(plain('Yield:** 36 g')).toBe('Yield: 36 g');
    expect(plain('(**note')).toBe('(note');
  });

  it('drops stray backticks and ~~ the same way', () => {
    expect(plain('`npm ci and more')).toBe('npm ci and more');
    expect(plain('**`npm ci`')).toBe('npm ci');
    expect(plain('~~gone~~ ~~half')).toBe('gone half');
  });

  it('keeps marker runs with the same kind on both sides, escaped ones, and __', () => {
    expect(plain('2**3 and a ** b')).toBe('2**3 and a ** b');
    expect(plain('\\*\\*a\\*\\*')).toBe('**a**');
    expect(plain('set __dirname first')).toBe('set __dirname first');
  });

  it('reduces a half link at the end or the start to its text', () => {
    expect(plain('see [the guide](http://x')).toBe('see the guide');
    expect(plain('see [the guide](')).toBe('see the guide');
    expect(plain('an ![old map](http://x/m')).toBe('an old map');
    expect(plain('guide](http://x) and more')).toBe('guide and more');
  });

  it('reduces a reference link whose definition was cut off; keeps citations', () => {
    expect(plain('x [see this][1] y')).toBe('x see this y');
    expect(plain('as shown [1][2] and [sic] [3]')).toBe('as shown [1][2] and [sic] [3]');
  });

  it('falls back to the input instead of throwing on absurd nesting', () => {
    const deep = '>'.repeat(5000) + ' x';
    expect(plain(deep)).toBe(deep);
  });
});

// Markdown built from words with emphasis, links, code spans, images, headings, lists, quotes
// and tables: no escapes, entities or code that would produce Markdown on a second pass.
const word = fc.stringMatching(/^[A-Za-z]{1,8}$/);
const inlinePart = fc.oneof(
  word,
  word.map((w) => `**${w}**`),
  word.map((w) => `*${w}*`),
  word.map((w) => `~~${w}~~`),
  word.map((w) => `[${w}](http://x.org/${w})`),
  word.map((w) => `\`${w}\``),
  word.map((w) => `![${w}](${w}.png)`),
);
const inlineText = fc.array(inlinePart, { minLength: 1, maxLength: 6 }).map((parts) => parts.join(' '));
const blockMd = fc.oneof(
  inlineText,
  inlineText.map((t) => `## ${t}`),
  fc.array(inlineText, { minLength: 1, maxLength: 3 }).map((items) => items.map((t) => `- ${t}`).join('\n')),
  fc
    .array(inlineText, { minLength: 1, maxLength: 3 })
    .map((items) => items.map((t, i) => `${i + 1}. ${t}`).join('\n')),
  inlineText.map((t) => `> ${t}`),
  fc
    .tuple(word, word, inlineText, inlineText)
    .map(([a, b, c, d]) => `| ${a} | ${b} |\n|---|---|\n| ${c} | ${d} |`),
);
const documentMd = fc.array(blockMd, { minLength: 1, maxLength: 5 }).map((blocks) => blocks.join('\n\n'));

describe('markdownToPlain: properties', () => {
  it('property: never throws and returns a string for any input', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (s) => {
        expect(typeof plain(s)).toBe('string');
      }),
    );
  });

  it('property: never throws on Markdown-dense input, any Unicode included', () => {
    const dense = fc.string({
      unit: fc.oneof(
        fc.constantFrom(...'*_~`[]()!<>#-+|\\&;:\n \t1.'.split('')),
        fc.string({ unit: 'grapheme', maxLength: 1 }),
      ),
      maxLength: 300,
    });
    fc.assert(
      fc.property(dense, (s) => {
        expect(typeof plain(s)).toBe('string');
      }),
      { numRuns: 300 },
    );
  });

  it('property: text without Markdown punctuation comes back as it was, spaces collapsed', () => {
    const textWord = fc.stringMatching(/^[A-Za-z0-9,.;:?'"()]{1,8}$/);
    fc.assert(
      fc.property(fc.array(textWord, { minLength: 1, maxLength: 12 }), (words) => {
        const text = words.join(' ');
        // "1." at the start of a line would be a list marker: keep such inputs out.
        fc.pre(!/^\d+[.)]/.test(text));
        expect(plain(text.replace(/ /g, '   '))).toBe(text);
      }),
    );
  });

  it('property: letters, digits and whitespace over many lines: paragraphs become lines (reference)', () => {
    const line = fc.oneof(
      fc.constant(''),
      fc.constant('  \t'),
      // No trailing spaces: two of them before a line break make a hard break (tested above).
      fc.stringMatching(/^[A-Za-z0-9](?:[A-Za-z0-9 \t]{0,20}[A-Za-z0-9])?$/),
    );
    // Naive reference: paragraphs are separated by blank lines; each becomes one squashed line.
    const reference = (text: string): string =>
      text
        .split(/\n[ \t]*\n/)
        .map(squash)
        .filter((p) => p !== '')
        .join('\n');
    fc.assert(
      fc.property(fc.array(line, { maxLength: 12 }), (lines) => {
        const text = lines.join('\n');
        expect(plain(text)).toBe(reference(text));
        expect(squash(plain(text))).toBe(squash(text));
      }),
    );
  });

  it('property: **word** and __word__ never leave their markers', () => {
    const w = fc.stringMatching(/^[A-Za-z]{1,10}$/);
    fc.assert(
      fc.property(fc.array(w, { minLength: 1, maxLength: 6 }), fc.boolean(), (words, under) => {
        const m = under ? '__' : '**';
        const out = plain(words.map((x) => `${m}${x}${m}`).join(' '));
        expect(out).toBe(words.join(' '));
      }),
    );
  });

  it('property: Markdown built from emphasis, links, code and lists leaves none of its syntax', () => {
    const piece = fc.constantFrom(
      '**bold**',
      '*em*',
      '[link](u)',
      '`code`',
      'word',
      '\n- item\n',
      '\n# h\n',
      '\n\n',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 10 }), (pieces) => {
        const out = plain(pieces.join(' '));
        expect(out).not.toMatch(/\*|\]\(|`|^- |^# /m);
        for (const w of ['bold', 'em', 'link', 'code', 'item'])
          if (pieces.some((p) => p.includes(w))) expect(out).toContain(w);
      }),
    );
  });

  it('property: generated documents keep every word, in order, and none of the syntax', () => {
    fc.assert(
      fc.property(documentMd, (md) => {
        const out = plain(md);
        expect(out).not.toMatch(/\*\*|__|~~|`|\]\(|^[-#>] |^\d+\. |^\|/m);
        const words = (s: string): string[] => s.match(/[A-Za-z]+/g) ?? [];
        // Every word of the source except the link targets and image file names.
        const expected = words(md.replace(/\]\([^)]*\)/g, ']'));
        expect(words(out)).toEqual(expected);
      }),
    );
  });

  // Not idempotent in general (see the top comment of plain-text.ts): a second pass reads the
  // first one's lines as one paragraph, and escapes or code can produce Markdown.
  it('property: idempotent on one-line results, and up to line breaks on generated documents', () => {
    fc.assert(
      fc.property(inlineText, (md) => {
        const once = plain(md);
        expect(plain(once)).toBe(once);
      }),
    );
    fc.assert(
      fc.property(documentMd, (md) => {
        const once = plain(md);
        expect(squash(plain(once))).toBe(squash(once));
      }),
    );
  });

  it('is not idempotent across escapes, as documented', () => {
    expect(plain(plain('\\*\\*a\\*\\*'))).toBe('a');
  });
});

describe('snippetToPlain', () => {
  it('drops each line’s block marker, reads the rest as inline Markdown, joins lines with ·', () => {
    expect(snippetToPlain('- **Yield:** 36 g\n- two')).toBe('Yield: 36 g · two');
    expect(snippetToPlain('## Dough\n> see [the guide](http://x) and `npm ci`')).toBe(
      'Dough · see the guide and npm ci',
    );
    expect(snippetToPlain('1. one\n2) two\n- [x] done')).toBe('one · two · done');
  });

  it('edge cases: cut emphasis and links tidied, a lone * kept, table rows keep pipes, rules dropped', () => {
    expect(snippetToPlain('cut **here and')).toBe('cut here and');
    expect(snippetToPlain('guide](http://x) and more')).toBe('guide and more');
    expect(snippetToPlain('3 * 4 = 12')).toBe('3 * 4 = 12');
    expect(snippetToPlain('| a | b |\n|---|---|\n| 1 | 2 |')).toBe('| a | b | · | 1 | 2 |');
    expect(snippetToPlain('')).toBe('');
  });

  it('property: a line without inline syntax comes back as it was, spaces collapsed', () => {
    const word = fc.stringMatching(/^[A-Za-z0-9,.;:?'"()!|>-]{1,8}$/);
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 10 }), (words) => {
        const text = words.join(' ');
        fc.pre(!/^\s*(?:[-*+>]|\d+[.)])/.test(text));
        expect(snippetToPlain(text.replace(/ /g, '  '))).toBe(text);
        expect(snippetToPlain(text)).toBe(markdownToPlain(text));
      }),
    );
  });

  it('property: agrees with markdownToPlain on one-line inline Markdown', () => {
    const piece = fc.constantFrom('**bold**', '*em*', '[link](u)', '`code`', 'word', 'a & b', '~~gone~~');
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 8 }), (pieces) => {
        const md = pieces.join(' ');
        expect(snippetToPlain(md)).toBe(markdownToPlain(md));
      }),
    );
  });
});
