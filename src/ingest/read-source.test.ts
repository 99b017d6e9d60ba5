import { mkdtemp, mkdir, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isQuiverError, type QuiverErrorCode } from '../errors.js';
import type { ParsedDocument } from './parsed.js';
import { allDocs, readBytes, readLiteral, readPath, readSource, type ReadResult } from './read-source.js';
import { MAX_HTML_BYTES } from './size-limits.js';
import { TEXT_PART_BYTES } from './text-parts.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'quiver-read-'));
  await writeFile(join(dir, 'note.md'), '# Note\n\nBody text.\n');
  await writeFile(join(dir, 'page.htm'), '<title>T</title><article><p>Hello from HTML.</p></article>');
  await writeFile(join(dir, 'plain.log'), 'first line\nsecond line\n');
  await writeFile(join(dir, 'data.ndjson'), '{"id":"a","text":"x"}\nbad\n{"id":"b","text":"y"}\n');
  await writeFile(join(dir, 'image.png'), new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]));
  await writeFile(join(dir, 'latin1.txt'), new Uint8Array([0x63, 0x61, 0x66, 0xe9]));
  await writeFile(join(dir, 'empty.md'), '   \n');
  await writeFile(join(dir, 'broken.pdf'), '%PDF-1.4\ngarbage without xref');
  await writeFile(join(dir, 'big.txt'), 'x'.repeat(2000));
  await mkdir(join(dir, 'sub'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The documents of a read result, in an array. */
async function docsOf(r: ReadResult | Promise<ReadResult>): Promise<ParsedDocument[]> {
  return allDocs((await r).docs);
}

async function codeOf(p: Promise<unknown>): Promise<QuiverErrorCode | undefined> {
  try {
    await p;
  } catch (e) {
    if (isQuiverError(e)) return e.code;
    throw e;
  }
  return undefined;
}

describe('readPath', () => {
  it('dispatches by extension and records the given source', async () => {
    const md = await docsOf(readPath(join(dir, 'note.md'), 'note.md'));
    expect(md[0]).toMatchObject({ kind: 'md', title: 'Note', source: 'note.md' });
    expect((await docsOf(readPath(join(dir, 'page.htm'))))[0]?.kind).toBe('html');
    expect((await docsOf(readPath(join(dir, 'plain.log'))))[0]?.kind).toBe('txt');
  });

  it('returns JSONL documents plus per-line errors', async () => {
    const r = await readPath(join(dir, 'data.ndjson'), 'data.ndjson');
    // JSONL ids are scoped by the file: `<file source>#<id>`.
    expect((await allDocs(r.docs)).map((d) => d.source)).toEqual(['data.ndjson#a', 'data.ndjson#b']);
    expect(r.errors).toEqual([expect.objectContaining({ source: 'data.ndjson:2', line: 2 })]);
  });

  it('throws a coded error for each bad input kind', async () => {
    expect(await codeOf(readPath(join(dir, 'image.png')))).toBe('BINARY_FILE');
    expect(await codeOf(readPath(join(dir, 'empty.md')))).toBe('EMPTY_FILE');
    expect(await codeOf(readPath(join(dir, 'broken.pdf')))).toBe('CORRUPT_FILE');
    expect(await codeOf(readPath(join(dir, 'big.txt'), 'big.txt', { maxBytes: 1000 }))).toBe(
      'FILE_TOO_LARGE',
    );
    expect(await codeOf(readPath(join(dir, 'missing.md')))).toBe('UNREADABLE');
    expect(await codeOf(readPath(join(dir, 'sub')))).toBe('BAD_INPUT');
  });

  it('honours a forced kind and a title override', async () => {
    const r = await docsOf(readPath(join(dir, 'plain.log'), 'p', { kind: 'md', title: 'Forced' }));
    expect(r[0]).toMatchObject({ kind: 'md', title: 'Forced' });
  });

  it('refuses Markdown, HTML and PDF over their ceilings, naming the format and the ceiling', async () => {
    const big = join(dir, 'huge.html');
    await truncate(big, 0).catch(() => undefined);
    await writeFile(big, '');
    await truncate(big, MAX_HTML_BYTES + 1); // sparse: nothing is written or read
    const err = await readPath(big, 'huge.html', { maxBytes: 2 * MAX_HTML_BYTES }).catch((e: unknown) => e);
    expect(isQuiverError(err, 'FILE_TOO_LARGE')).toBe(true);
    expect((err as Error).message).toMatch(
      new RegExp(
        `huge.html is ${MAX_HTML_BYTES + 1} bytes of HTML, over the HTML ceiling of ${MAX_HTML_BYTES}.*plain text is read in parts`,
      ),
    );
    expect(
      await codeOf(
        readBytes(new Uint8Array(MAX_HTML_BYTES + 1).fill(0x61), 'x.html', { maxBytes: 2 * MAX_HTML_BYTES }),
      ),
    ).toBe('FILE_TOO_LARGE');
  });

  it('gives CORRUPT_FILE for a file nested too deeply, before any parser sees it', async () => {
    const quotes = join(dir, 'quotes.md');
    await writeFile(quotes, '>'.repeat(20_000) + ' deep\n');
    const err = await readPath(quotes, 'quotes.md').catch((e: unknown) => e);
    expect(isQuiverError(err, 'CORRUPT_FILE')).toBe(true);
    expect((err as Error).message).toBe(
      'quiver: quotes.md nests 20000 levels deep at line 1, over the Markdown limit of 100',
    );
    const html = '<html><body>' + '<div>'.repeat(5000) + 'x' + '</div>'.repeat(5000);
    expect(await codeOf(readBytes(new TextEncoder().encode(html), 'deep.html'))).toBe('CORRUPT_FILE');
  });
});

describe('decoding (issue 16)', () => {
  const utf16le = (text: string): Uint8Array => new Uint8Array(Buffer.from('\ufeff' + text, 'utf16le'));

  it('reads Latin-1 text as windows-1252 and records the encoding in meta', async () => {
    const [doc] = await docsOf(readPath(join(dir, 'latin1.txt')));
    expect(doc?.sections[0]?.segments[0]?.text).toBe('café');
    expect(doc?.meta).toEqual({ encoding: 'windows-1252' });
  });

  it('reads UTF-16 Markdown, text and JSONL with a BOM', async () => {
    const md = await docsOf(readBytes(utf16le('# Über\r\n\r\nKörper text.\r\n'), 'notes.md'));
    expect(md[0]).toMatchObject({ kind: 'md', title: 'Über', meta: { encoding: 'utf-16le' } });
    expect(md[0]?.sections.map((s) => s.segments[0]?.text).join(' ')).toContain('Körper text.');
    const txt = await docsOf(readBytes(utf16le('Привет, мир'), 'a.txt'));
    expect(txt[0]?.sections[0]?.segments[0]?.text).toBe('Привет, мир');
    const jsonl = await docsOf(readBytes(utf16le('{"id":"a","text":"é"}\n'), 'a.jsonl'));
    expect(jsonl.map((d) => d.source)).toEqual(['a.jsonl#a']);
  });

  it('reads an HTML page by its meta charset and keeps UTF-8 with a few bad bytes', async () => {
    const cyrillic = 'Кофе — напиток из жареных зёрен кофейного дерева, он бодрит.';
    const bytes = new Uint8Array([
      ...Buffer.from('<html><head><meta charset="windows-1251"><title>T</title></head><body><p>'),
      ...windows1251(cyrillic),
      ...Buffer.from('</p></body></html>'),
    ]);
    const [doc] = await docsOf(readBytes(bytes, 'ru.html'));
    expect(doc?.sections[0]?.segments[0]?.text).toBe(cyrillic);
    expect(doc?.meta).toMatchObject({ encoding: 'windows-1251' });
    const broken = new Uint8Array([...Buffer.from('<p>Crème brûlée, '), 0xff, ...Buffer.from(' ok</p>')]);
    const [page] = await docsOf(readBytes(broken, 'b.html'));
    expect(page?.sections[0]?.segments[0]?.text).toBe('Crème brûlée, \ufffd ok');
    expect(page?.meta).toMatchObject({ encoding: 'utf-8', invalid_sequences: 1 });
  });

  it('streams big UTF-16 text in parts, re-encoded as UTF-8', async () => {
    const line = 'Zwölf Boxkämpfer jagen Viktor quer über den großen Sylter Deich.\n';
    // Over TEXT_PART_BYTES even as UTF-8, so it streams and comes out in parts.
    const text = line.repeat(Math.ceil((TEXT_PART_BYTES * 1.1) / Buffer.byteLength(line)));
    await writeFile(join(dir, 'big-utf16.txt'), utf16le(text));
    const parts = await docsOf(readPath(join(dir, 'big-utf16.txt'), 'big-utf16.txt'));
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.map((p) => p.sections[0]?.segments[0]?.text).join('\n')).toBe(text.trim());
  });
});

/** `text` in windows-1251, from the decoder's own table (every character must be in it). */
function windows1251(text: string): Uint8Array {
  const decoder = new TextDecoder('windows-1251');
  const table = new Map<string, number>();
  for (let b = 255; b >= 0; b--) table.set(decoder.decode(new Uint8Array([b])), b);
  return Uint8Array.from([...text].map((c) => table.get(c)!));
}

describe('readLiteral / readBytes / readSource', () => {
  it('reads literal text as a note with a content-derived source', async () => {
    const a = await docsOf(readLiteral({ text: 'Remember the milk.\nAnd eggs.' }));
    const b = await docsOf(readLiteral({ text: 'Remember the milk.\nAnd eggs.' }));
    expect(a[0]?.kind).toBe('note');
    expect(a[0]?.source).toMatch(/^text:[0-9a-f]{16}$/);
    expect(a[0]?.source).toBe(b[0]?.source);
    expect(a[0]?.title).toBe('Remember the milk.');
    expect((await docsOf(readLiteral({ text: 'x', source: 'notes/1', title: 'T' })))[0]).toMatchObject({
      source: 'notes/1',
      title: 'T',
    });
    expect(() => readLiteral({ text: '  ' })).toThrow(expect.objectContaining({ code: 'EMPTY_FILE' }));
  });

  it('reads uploaded bytes by their name', async () => {
    const r = await docsOf(readBytes(new TextEncoder().encode('# Up\n\nloaded'), 'upload.md'));
    expect(r[0]).toMatchObject({ kind: 'md', title: 'Up', source: 'upload.md' });
  });

  it('readSource accepts all three input shapes', async () => {
    expect((await docsOf(readSource(join(dir, 'note.md'))))[0]?.title).toBe('Note');
    expect((await docsOf(readSource({ text: 'hello note' }, { title: 'Opt' })))[0]?.title).toBe('Opt');
    expect(
      (await docsOf(readSource({ bytes: new TextEncoder().encode('a\nb'), source: 'x.txt' })))[0]?.kind,
    ).toBe('txt');
  });
});
