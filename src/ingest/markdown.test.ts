import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { buildDocument } from './build.js';
import { parseMarkdown, readMarkdown, reduceLinks } from './markdown.js';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('readMarkdown', () => {
  it('builds the heading tree; a leading H1 becomes the root and the title', async () => {
    const md = '# Guide\n\nIntro.\n\n## Setup\n\nInstall it.\n\n### Linux\n\nUse apt.\n\n## Use\n\nRun it.\n';
    const doc = await readMarkdown({ source: 'docs/guide.md', bytes: enc(md) });
    expect(doc.title).toBe('Guide');
    expect(doc.kind).toBe('md');
    expect(doc.pages).toBeNull();
    expect(doc.sections.map((s) => [s.level, s.title, s.segments[0]?.text])).toEqual([
      [0, 'Guide', 'Intro.'],
      [2, 'Setup', 'Install it.'],
      [3, 'Linux', 'Use apt.'],
      [2, 'Use', 'Run it.'],
    ]);
    const built = buildDocument(doc);
    expect(built.sections[2]?.breadcrumb).toBe('Guide › Setup › Linux');
    expect(built.sections[2]?.parentSeq).toBe(1);
  });

  it('does not treat # lines inside fenced code as headings, and keeps the fence as text', () => {
    const md = 'Intro\n\n```bash\n# install\nnpm i\n```\n\n~~~\n## also not\n~~~\n';
    const doc = parseMarkdown(md, 'a.md');
    expect(doc.sections).toHaveLength(1);
    expect(doc.sections[0]?.segments[0]?.text).toBe(
      'Intro\n\n```bash\n# install\nnpm i\n```\n\n~~~\n## also not\n~~~',
    );
  });

  it('recognises setext headings', () => {
    const doc = parseMarkdown('Top\n===\n\nbody\n\nSub\n---\n\nmore\n', 'a.md');
    expect(doc.title).toBe('Top');
    expect(doc.sections.map((s) => [s.level, s.title])).toEqual([
      [0, 'Top'],
      [2, 'Sub'],
    ]);
  });

  it('keeps later H1s as level-1 sections under the root', () => {
    const doc = parseMarkdown('# One\n\na\n\n# Two\n\nb\n', 'a.md');
    expect(doc.sections.map((s) => [s.level, s.title])).toEqual([
      [0, 'One'],
      [1, 'Two'],
    ]);
  });

  it('takes the title from front matter when the document does not start with an H1', () => {
    const md =
      '---\ntitle: "From FM"\ntags: [a, b]\ndraft: false\nweight: 3\nauthors:\n  - Ann\n  - Bo\n---\nText first.\n\n# Later H1\n\nx\n';
    const doc = parseMarkdown(md, 'a.md');
    expect(doc.title).toBe('From FM');
    expect(doc.meta).toEqual({
      title: 'From FM',
      tags: ['a', 'b'],
      draft: false,
      weight: 3,
      authors: ['Ann', 'Bo'],
    });
    // Front matter is not indexed.
    expect(doc.sections.map((s) => s.segments[0]?.text).join(' ')).not.toContain('tags');
    expect(doc.sections[0]?.segments[0]?.text).toBe('Text first.');
  });

  it('falls back to the file name without extension, and honours an explicit title', async () => {
    expect(parseMarkdown('just text', 'notes/my.notes.md').title).toBe('my.notes');
    expect((await readMarkdown({ source: 'a.md', bytes: enc('# H\n\nx'), title: 'Given' })).title).toBe(
      'Given',
    );
  });

  it('reduces link syntax to link text and strips inline markup from heading titles', () => {
    const doc = parseMarkdown(
      '## See [the docs](https://x.y/a_(b)) and **bold** `code`\n\nRead [here](http://a) or ![alt](i.png) or [ref][1].\n\n[1]: http://r\n',
      'a.md',
    );
    expect(doc.sections[1]?.title).toBe('See the docs and bold code');
    expect(doc.sections[1]?.segments[0]?.text).toBe('Read here or alt or ref.');
  });

  it('parses the demo espresso notes into a nested tree with front matter meta', async () => {
    const bytes = await readFile(new URL('../../demo/corpus/coffee/espresso-dialing-in.md', import.meta.url));
    const doc = await readMarkdown({ source: 'coffee/espresso-dialing-in.md', bytes });
    expect(doc.title).toBe('Dialing In Espresso');
    expect(doc.meta['tags']).toEqual(['coffee', 'espresso']);
    const built = buildDocument(doc);
    const extraction = built.sections.find((s) => s.title === 'How long should extraction take?');
    expect(extraction?.text).toContain('25–30 seconds');
    expect(built.sections.find((s) => s.title === 'Channeling')?.breadcrumb).toBe(
      'Dialing In Espresso › How long should extraction take? › Channeling',
    );
  });

  // marked's lexer dominates (about 1 MB/s on a loaded 2-core box); this only guards against
  // catastrophic slowdowns such as regex backtracking in our own post-processing.
  it('is not pathologically slow: 1 MB of Markdown', () => {
    const block =
      '## Heading\n\nSome paragraph text with a [link](http://x) and more words.\n\n- item one\n- item two\n\n```\ncode\n```\n\n';
    const md = block.repeat(Math.ceil(1_000_000 / block.length));
    const t0 = performance.now();
    const doc = parseMarkdown(md, 'big.md');
    expect(doc.sections.length).toBeGreaterThan(5000);
    expect(performance.now() - t0).toBeLessThan(10_000);
  });
});

describe('reduceLinks', () => {
  it('leaves text without links untouched', () => {
    expect(reduceLinks('a [b] c')).toBe('a [b] c');
  });
});

describe('readMarkdown: front matter', () => {
  const text = (doc: { sections: { segments: { text: string }[] }[] }): string =>
    doc.sections.map((s) => s.segments.map((g) => g.text).join(' ')).join(' ');

  it('uses the front matter title over the leading H1 and the file name', () => {
    const doc = parseMarkdown('---\ntitle: Bees in Winter\n---\n# Notes\n\nThey cluster.\n', 'notes/x.md');
    expect(doc.title).toBe('Bees in Winter');
    // The differing H1 is kept as a level-1 section, so its heading is still indexed.
    expect(doc.sections.map((s) => [s.level, s.title, s.segments[0]?.text])).toEqual([
      [0, 'Bees in Winter', ''],
      [1, 'Notes', 'They cluster.'],
    ]);
    expect(buildDocument(doc).sections[1]?.breadcrumb).toBe('Bees in Winter › Notes');
  });

  it('keeps a leading H1 equal to the front matter title (case and spacing aside) as the root', () => {
    const doc = parseMarkdown(
      '---\ntitle: "bees  in winter"\n---\n# Bees in Winter\n\nThey cluster.\n',
      'x.md',
    );
    expect(doc.title).toBe('bees in winter');
    expect(doc.sections.map((s) => [s.level, s.title, s.segments[0]?.text])).toEqual([
      [0, 'bees in winter', 'They cluster.'],
    ]);
  });

  it('lets an explicit title win over the front matter title', () => {
    expect(parseMarkdown('---\ntitle: FM\n---\nx\n', 'a.md', 'Given').title).toBe('Given');
  });

  it('ignores a blank or non-string title, keeping it in meta', () => {
    expect(parseMarkdown('---\ntitle: "  "\n---\n# H\n', 'a.md').title).toBe('H');
    const doc = parseMarkdown('---\ntitle: 1984\n---\nx\n', 'notes/orwell.md');
    expect(doc.title).toBe('orwell');
    expect(doc.meta).toEqual({ title: 1984 });
  });

  it('keeps the other fields in meta: scalars, lists, nested maps; dates as strings', () => {
    const md =
      '---\ntitle: T\ntags:\n  - coffee\n  - espresso\nupdated: 2024-03-02\ndraft: true\nweight: 1.5\nauthor: {name: Ann}\nempty:\n---\nBody.\n';
    expect(parseMarkdown(md, 'a.md').meta).toEqual({
      title: 'T',
      tags: ['coffee', 'espresso'],
      updated: '2024-03-02',
      draft: true,
      weight: 1.5,
      author: { name: 'Ann' },
      empty: null,
    });
  });

  it('does not index the front matter: the body starts after the closing fence', () => {
    const doc = parseMarkdown('---\ntitle: T\nsecret: zebra\n---\nVisible text.\n', 'a.md');
    expect(text(doc)).toBe('Visible text.');
    expect(
      buildDocument(doc)
        .chunks.map((c) => c.text)
        .join(' '),
    ).not.toContain('zebra');
  });

  it('drops invalid YAML front matter from the body, records nothing, and still reads the file', () => {
    const doc = parseMarkdown('---\ntitle: [unclosed\nkey: : :\n---\n# Real\n\nBody.\n', 'a.md');
    expect(doc.meta).toEqual({});
    expect(doc.title).toBe('Real');
    expect(text(doc)).toBe('Body.');
    expect(text(doc)).not.toContain('unclosed');
  });

  it('leaves a later --- (a thematic break or setext underline) alone', () => {
    const doc = parseMarkdown('# Top\n\nIntro.\n\n---\n\ntitle: not meta\n---\n\nEnd.\n', 'a.md');
    expect(doc.meta).toEqual({});
    expect(doc.title).toBe('Top');
    // `title: not meta` over `---` is a setext H2, as in any Markdown renderer.
    expect(doc.sections.map((s) => [s.level, s.title, s.segments[0]?.text])).toEqual([
      [0, 'Top', 'Intro.'],
      [2, 'title: not meta', 'End.'],
    ]);
  });

  it('counts front matter only at the very start: not after a blank line or text', () => {
    expect(parseMarkdown('\n---\ntitle: T\n---\nx\n', 'a.md').meta).toEqual({});
    expect(parseMarkdown('Intro\n---\ntitle: T\n---\n', 'a.md').meta).toEqual({});
  });

  it('reads front matter after a BOM and with CRLF line endings', async () => {
    const md =
      '\uFEFF---\r\ntitle: Crlf Doc\r\ntags: [a, b]\r\n---\r\nLine one.\r\n\r\n## Part\r\n\r\nTwo.\r\n';
    const viaString = parseMarkdown(md, 'a.md');
    expect(viaString.title).toBe('Crlf Doc');
    expect(viaString.meta).toEqual({ title: 'Crlf Doc', tags: ['a', 'b'] });
    expect(text(viaString)).toBe('Line one. Two.');
    const viaBytes = await readMarkdown({ source: 'a.md', bytes: enc(md) });
    expect(viaBytes.title).toBe('Crlf Doc');
    expect(viaBytes.meta).toEqual({ title: 'Crlf Doc', tags: ['a', 'b'] });
    expect(text(viaBytes)).toBe('Line one. Two.');
  });

  it('treats empty front matter as none: meta {}, title from the H1, block not indexed', () => {
    const doc = parseMarkdown('---\n---\n# Heading\n\nBody.\n', 'a.md');
    expect(doc.meta).toEqual({});
    expect(doc.title).toBe('Heading');
    expect(text(doc)).toBe('Body.');
    expect(parseMarkdown('---\n# only a comment\n---\nBody.\n', 'a.md').meta).toEqual({});
  });

  it('reads the demo sourdough notes: title from front matter, no H1', async () => {
    const bytes = await readFile(new URL('../../demo/corpus/sourdough/starter-care.md', import.meta.url));
    const doc = await readMarkdown({ source: 'sourdough/starter-care.md', bytes });
    expect(doc.title).toBe('Keeping a Sourdough Starter Alive');
    expect(doc.meta).toEqual({ title: 'Keeping a Sourdough Starter Alive' });
    expect(doc.sections[0]?.segments[0]?.text).toMatch(/^A sourdough starter is a culture/);
  });
});
