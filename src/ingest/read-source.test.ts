import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isQuiverError, type QuiverErrorCode } from '../errors.js';
import { readBytes, readLiteral, readPath, readSource } from './read-source.js';

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
    const md = await readPath(join(dir, 'note.md'), 'note.md');
    expect(md.docs[0]).toMatchObject({ kind: 'md', title: 'Note', source: 'note.md' });
    expect((await readPath(join(dir, 'page.htm'))).docs[0]?.kind).toBe('html');
    expect((await readPath(join(dir, 'plain.log'))).docs[0]?.kind).toBe('txt');
  });

  it('returns JSONL documents plus per-line errors', async () => {
    const r = await readPath(join(dir, 'data.ndjson'), 'data.ndjson');
    expect(r.docs.map((d) => d.source)).toEqual(['a', 'b']);
    expect(r.errors).toEqual([expect.objectContaining({ source: 'data.ndjson:2', line: 2 })]);
  });

  it('throws a coded error for each bad input kind', async () => {
    expect(await codeOf(readPath(join(dir, 'image.png')))).toBe('BINARY_FILE');
    expect(await codeOf(readPath(join(dir, 'latin1.txt')))).toBe('INVALID_UTF8');
    expect(await codeOf(readPath(join(dir, 'empty.md')))).toBe('EMPTY_FILE');
    expect(await codeOf(readPath(join(dir, 'broken.pdf')))).toBe('CORRUPT_FILE');
    expect(await codeOf(readPath(join(dir, 'big.txt'), 'big.txt', { maxBytes: 1000 }))).toBe(
      'FILE_TOO_LARGE',
    );
    expect(await codeOf(readPath(join(dir, 'missing.md')))).toBe('UNREADABLE');
    expect(await codeOf(readPath(join(dir, 'sub')))).toBe('BAD_INPUT');
  });

  it('honours a forced kind and a title override', async () => {
    const r = await readPath(join(dir, 'plain.log'), 'p', { kind: 'md', title: 'Forced' });
    expect(r.docs[0]).toMatchObject({ kind: 'md', title: 'Forced' });
  });
});

describe('readLiteral / readBytes / readSource', () => {
  it('reads literal text as a note with a content-derived source', () => {
    const a = readLiteral({ text: 'Remember the milk.\nAnd eggs.' });
    const b = readLiteral({ text: 'Remember the milk.\nAnd eggs.' });
    expect(a.docs[0]?.kind).toBe('note');
    expect(a.docs[0]?.source).toMatch(/^text:[0-9a-f]{16}$/);
    expect(a.docs[0]?.source).toBe(b.docs[0]?.source);
    expect(a.docs[0]?.title).toBe('Remember the milk.');
    expect(readLiteral({ text: 'x', source: 'notes/1', title: 'T' }).docs[0]).toMatchObject({
      source: 'notes/1',
      title: 'T',
    });
    expect(() => readLiteral({ text: '  ' })).toThrow(expect.objectContaining({ code: 'EMPTY_FILE' }));
  });

  it('reads uploaded bytes by their name', async () => {
    const r = await readBytes(new TextEncoder().encode('# Up\n\nloaded'), 'upload.md');
    expect(r.docs[0]).toMatchObject({ kind: 'md', title: 'Up', source: 'upload.md' });
  });

  it('readSource accepts all three input shapes', async () => {
    expect((await readSource(join(dir, 'note.md'))).docs[0]?.title).toBe('Note');
    expect((await readSource({ text: 'hello note' }, { title: 'Opt' })).docs[0]?.title).toBe('Opt');
    expect(
      (await readSource({ bytes: new TextEncoder().encode('a\nb'), source: 'x.txt' })).docs[0]?.kind,
    ).toBe('txt');
  });
});
