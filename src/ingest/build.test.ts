import { describe, expect, it } from 'vitest';
import { buildDocument, buildHash, contentHash, documentId } from './build.js';
import { DEFAULT_CHUNK_CHARS, DEFAULT_MIN_CHUNK_CHARS } from './chunk.js';
import { parseMarkdown } from './markdown.js';
import { DEFAULT_MAX_SECTION_CHARS } from './split-sections.js';
import type { ParsedDocument } from './parsed.js';

const parsed = (text = 'First paragraph about bees.\n\nSecond paragraph about honey.'): ParsedDocument => ({
  source: 'notes/bees.md',
  title: 'Bees',
  kind: 'md',
  meta: { tags: ['x'] },
  pages: null,
  sections: [
    { level: 0, title: 'Bees', segments: [{ page: null, text: 'Intro text for the whole document here.' }] },
    { level: 2, title: 'Hive', segments: [{ page: null, text }] },
  ],
});

describe('documentId', () => {
  it('is the first 16 hex digits of SHA-256(source)', () => {
    // sha256("abc") = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad
    expect(documentId('abc')).toBe('ba7816bf8f01cfea');
    expect(documentId('notes/bees.md')).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe('buildDocument', () => {
  it('is deterministic: same input, same ids, hash, sections and chunks', () => {
    expect(buildDocument(parsed())).toEqual(buildDocument(parsed()));
  });

  it('keeps the id but changes the hash when any text changes', () => {
    const a = buildDocument(parsed());
    const b = buildDocument(parsed('First paragraph about bees.\n\nSecond paragraph about wax.'));
    expect(b.id).toBe(a.id);
    expect(b.contentHash).not.toBe(a.contentHash);
  });

  it('changes the hash when a heading title or level changes, or text moves across sections', () => {
    const base = contentHash(parsed());
    const retitled = parsed();
    retitled.sections[1] = { ...retitled.sections[1]!, title: 'Hives' };
    expect(contentHash(retitled)).not.toBe(base);
    const releveled = parsed();
    releveled.sections[1] = { ...releveled.sections[1]!, level: 3 };
    expect(contentHash(releveled)).not.toBe(base);
    const moved = parsed();
    moved.sections[0] = {
      level: 0,
      title: 'Bees',
      segments: [{ page: null, text: 'Intro text for the whole document' }],
    };
    moved.sections[1] = {
      level: 2,
      title: 'Hive',
      segments: [{ page: null, text: 'here.First paragraph about bees.\n\nSecond paragraph about honey.' }],
    };
    expect(contentHash(moved)).not.toBe(base);
  });

  it('ignores meta and source in the content hash', () => {
    const other = { ...parsed(), meta: { different: true }, source: 'elsewhere.md' };
    expect(contentHash(other)).toBe(contentHash(parsed()));
  });

  it('chunks per section with ord from 0 per section and pages from segments', () => {
    const doc: ParsedDocument = {
      source: 'a.pdf',
      title: 'A',
      kind: 'pdf',
      meta: {},
      pages: 2,
      sections: [
        {
          level: 0,
          title: 'A',
          segments: [
            { page: 1, text: 'Page one has a sentence that is long enough to stand alone here.' },
            { page: 2, text: 'Page two has another sentence that is long enough to stand alone.' },
          ],
        },
      ],
    };
    const built = buildDocument(doc);
    expect(built.chunks.map((c) => [c.sectionSeq, c.ord, c.page])).toEqual([
      [0, 0, 1],
      [0, 1, 2],
    ]);
    expect(built.sections[0]).toMatchObject({ pageStart: 1, pageEnd: 2 });
  });

  it('respects chunkTarget and makes no chunks for empty sections', () => {
    const built = buildDocument(
      {
        ...parsed(
          'Sentence one is here. Sentence two is here. Sentence three is here. Sentence four is here.',
        ),
        sections: [
          { level: 0, title: 'Bees', segments: [{ page: null, text: '' }] },
          {
            level: 2,
            title: 'Hive',
            segments: [
              {
                page: null,
                text: 'Sentence one is here. Sentence two is here. Sentence three is here. Sentence four is here.',
              },
            ],
          },
        ],
      },
      { chunkTarget: 45, chunkMinChars: 0 },
    );
    expect(built.chunks.every((c) => c.sectionSeq === 1)).toBe(true);
    expect(built.chunks.map((c) => c.ord)).toEqual([0, 1, 2]);
    expect(built.chunks[0]?.text).toBe('Sentence one is here. Sentence two is here.');
  });

  it('aligns chunks with seqs when the parsed list has no root', () => {
    const built = buildDocument({
      ...parsed(),
      sections: [
        { level: 1, title: 'H', segments: [{ page: null, text: 'Body text of the only heading.' }] },
      ],
    });
    expect(built.sections).toHaveLength(2);
    expect(built.chunks).toEqual([
      { sectionSeq: 1, ord: 0, text: 'Body text of the only heading.', page: null },
    ]);
  });
});

describe('build settings in the stored hash (re-add with other chunking re-chunks)', () => {
  it('gives a different contentHash for chunkTarget 512 and 300, and the same for the same settings', () => {
    const at512 = buildDocument(parsed(), { chunkTarget: 512 });
    const at300 = buildDocument(parsed(), { chunkTarget: 300 });
    expect(at300.contentHash).not.toBe(at512.contentHash);
    expect(buildDocument(parsed(), { chunkTarget: 300 }).contentHash).toBe(at300.contentHash);
    expect(buildDocument(parsed(), { chunkMinChars: 10 }).contentHash).not.toBe(at512.contentHash);
    expect(buildDocument(parsed(), { maxSectionChars: 1000 }).contentHash).not.toBe(at512.contentHash);
  });

  it('keeps the plain content hash under the default settings, so existing vaults see no change', () => {
    expect(DEFAULT_CHUNK_CHARS).toBe(512);
    expect(buildDocument(parsed()).contentHash).toBe(contentHash(parsed()));
    const defaults = {
      chunkTarget: DEFAULT_CHUNK_CHARS,
      chunkMinChars: DEFAULT_MIN_CHUNK_CHARS,
      maxSectionChars: DEFAULT_MAX_SECTION_CHARS,
    };
    expect(buildHash(parsed(), defaults)).toBe(contentHash(parsed()));
    expect(buildHash(parsed(), { ...defaults, chunkTarget: 300 })).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('buildDocument on Markdown with YAML front matter', () => {
  it('stores the front matter title and meta, and no front matter text in sections or chunks', () => {
    const md =
      '---\ntitle: Winter Bees\ntags: [bees, winter]\n---\n# Cluster\n\nBees cluster to keep warm.\n';
    const built = buildDocument(parseMarkdown(md, 'notes/bees.md'));
    expect(built.title).toBe('Winter Bees');
    expect(built.meta).toEqual({ title: 'Winter Bees', tags: ['bees', 'winter'] });
    expect(built.sections.map((s) => s.breadcrumb)).toEqual(['Winter Bees', 'Winter Bees › Cluster']);
    expect(built.chunks.map((c) => c.text)).toEqual(['Bees cluster to keep warm.']);
    expect(JSON.stringify(built.sections)).not.toContain('tags');
  });
});
