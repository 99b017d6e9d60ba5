import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { buildDocument } from './build.js';
import { parseFrontMatter, parseMarkdown, readMarkdown, reduceLinks } from './markdown.js';

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

describe('parseFrontMatter', () => {
  it('needs --- on the very first line and a closing line', () => {
    expect(parseFrontMatter('\n---\na: 1\n---\n').meta).toEqual({});
    expect(parseFrontMatter('---\na: 1\nno close').meta).toEqual({});
    expect(parseFrontMatter('---\na: 1\n...\nbody')).toEqual({ meta: { a: 1 }, body: 'body' });
  });
});
