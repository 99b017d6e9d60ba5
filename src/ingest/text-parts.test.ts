import { spawnSync } from 'node:child_process';
import { closeSync, openSync, statSync, writeSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isQuiverError } from '../errors.js';
import type { ParsedDocument } from './parsed.js';
import { allDocs, readPath } from './read-source.js';
import {
  bytesInChunks,
  cutIndex,
  decodeChunks,
  indexAtUtf8Bytes,
  partSource,
  TEXT_PART_BYTES,
  textParts,
} from './text-parts.js';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

async function* chunked(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

const textOf = (d: ParsedDocument | undefined): string => d?.sections[0]?.segments[0]?.text ?? '';

/** Paragraphs of 200–800 characters separated by exactly one blank line, about `bytes` long. */
function writeParagraphs(path: string, bytes: number): string[] {
  const words = 'river stone basalt glacier delta reef dune valley lava ice sand sea wind'.split(' ');
  const fd = openSync(path, 'w');
  const paragraphs: string[] = [];
  let n = 0;
  let i = 0;
  try {
    while (n < bytes) {
      const len = 200 + ((i * 37) % 600);
      let p = `P${paragraphs.length}`;
      while (p.length < len) p += ` ${words[(i++ * 7) % words.length]}`;
      p += '.';
      paragraphs.push(p);
      writeSync(fd, `${p}\n\n`);
      n += p.length + 2;
    }
  } finally {
    closeSync(fd);
  }
  return paragraphs;
}

describe('cutIndex / indexAtUtf8Bytes', () => {
  it('cuts after the last blank line in the window, else a line break, else a space, else hard', () => {
    expect(cutIndex('aaaa\n\nbbbb\ncc', 2, 12)).toBe(6);
    expect(cutIndex('aaaa\nbbbb\ncc', 2, 12)).toBe(10);
    expect(cutIndex('aaaa bbbb cc', 2, 12)).toBe(10);
    expect(cutIndex('aaaaaaaaaaaa', 2, 8)).toBe(8);
    // A blank line before the window does not count: the line break inside it does.
    expect(cutIndex('a\n\nbbbbbb\nccc', 5, 12)).toBe(10);
    expect(cutIndex('abc', 3, 3)).toBe(3);
  });

  it('never cuts a surrogate pair and counts UTF-8 bytes', () => {
    expect(cutIndex('aaa😀', 1, 4)).toBe(3);
    expect(indexAtUtf8Bytes('héllo', 2)).toBe(1); // é is 2 bytes: it does not fit after h
    expect(indexAtUtf8Bytes('héllo', 3)).toBe(2);
    expect(indexAtUtf8Bytes('a😀b', 4)).toBe(1);
    expect(indexAtUtf8Bytes('a😀b', 5)).toBe(3);
    expect(indexAtUtf8Bytes('abc', 99)).toBe(3);
  });
});

describe('decodeChunks', () => {
  it('decodes across chunk boundaries, drops a BOM and normalises CRLF split between chunks', async () => {
    const bytes = enc('\uFEFFcafé\r\n☕ 😀\rend');
    for (const size of [1, 2, 3, 5, 100]) {
      const pieces = await collect(decodeChunks(chunked(bytes, size), 's'));
      expect(pieces.join(''), `chunk ${size}`).toBe('café\n☕ 😀\nend');
    }
  });

  it('names the byte offset of the first bad sequence, even when it spans chunks', async () => {
    const bytes = new Uint8Array([...enc('abc☕'), 0xe2, 0x98, 0x41, ...enc('tail')]); // E2 98 41: cut short
    for (const size of [1, 2, 4, 6, 64]) {
      const err = await collect(decodeChunks(chunked(bytes, size), 'bad.txt')).catch((e: unknown) => e);
      expect(isQuiverError(err, 'INVALID_UTF8'), `chunk ${size}`).toBe(true);
      expect((err as { details: { offset: number } }).details.offset, `chunk ${size}`).toBe(6);
    }
    const truncated = await collect(decodeChunks(chunked(enc('ok☕').subarray(0, 4), 2), 't')).catch(
      (e: unknown) => e,
    );
    expect((truncated as Error).message).toBe('quiver: t is not valid UTF-8 (at byte 2)');
  });
});

describe('textParts', () => {
  it('names, titles and tags the parts, and their texts joined at the cuts give the text back', async () => {
    const paragraphs = Array.from({ length: 40 }, (_, i) => `Paragraph ${i} ${'word '.repeat(i % 9)}end.`);
    const text = `# Field notes\n\n${paragraphs.join('\n\n')}\n`;
    const parts = await collect(textParts(chunked(enc(text), 7), 'notes/field.txt', { partBytes: 200 }));
    expect(parts.length).toBeGreaterThan(3);
    parts.forEach((p, i) => {
      expect(p.source).toBe(partSource('notes/field.txt', i + 1));
      expect(p.title).toBe(`Field notes (part ${i + 1})`);
      expect(p.meta).toEqual({ part: i + 1, of_source: 'notes/field.txt' });
      expect(p.kind).toBe('txt');
      expect(new TextEncoder().encode(textOf(p)).length).toBeLessThanOrEqual(200);
    });
    expect(parts[0]?.source).toBe('notes/field.txt#part-0001');
    // Every cut fell on a blank line here, so joining with one gives the trimmed text back.
    expect(parts.map(textOf).join('\n\n')).toBe(text.trim());
  });

  it('loses no non-whitespace character wherever the cuts fall (property)', async () => {
    const alphabet = fc.constantFrom('a', 'é', '😀', ' ', '\n', '\n\n', '\r\n', 'word', '\t');
    await fc.assert(
      fc.asyncProperty(
        fc.array(alphabet, { minLength: 1, maxLength: 300 }),
        fc.integer({ min: 8, max: 64 }),
        fc.integer({ min: 1, max: 17 }),
        async (pieces, partBytes, chunk) => {
          const text = pieces.join('');
          const parts = await collect(textParts(chunked(enc(text), chunk), 'p.txt', { partBytes }));
          const squash = (s: string): string => s.replace(/\s+/g, '');
          expect(squash(parts.map(textOf).join(''))).toBe(squash(text));
          for (const p of parts) expect(textOf(p)).not.toBe('');
        },
      ),
      { numRuns: 300 },
    );
  });

  it('takes a given title and reads from memory as from disk', async () => {
    const parts = await collect(
      textParts(bytesInChunks(enc('one\n\ntwo\n\nthree')), 'x', { partBytes: 6, title: 'T' }),
    );
    expect(parts.map((p) => [p.title, textOf(p)])).toEqual([
      ['T (part 1)', 'one'],
      ['T (part 2)', 'two'],
      ['T (part 3)', 'three'],
    ]);
  });
});

describe('large plain text through readPath', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'quiver-parts-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('yields a ~40 MB file as parts whose texts, joined, are the file', async () => {
    const path = join(dir, 'forty.txt');
    const paragraphs = writeParagraphs(path, 40 * 1024 * 1024);
    const r = await readPath(path, 'forty.txt', { maxBytes: 100 * 1024 * 1024 });
    expect(Array.isArray(r.docs)).toBe(false); // lazy: read as iterated
    const parts = await allDocs(r.docs);
    expect(parts.length).toBeGreaterThanOrEqual(5);
    expect(parts.length).toBeLessThanOrEqual(6);
    expect(parts.map((p) => p.source)).toEqual(parts.map((_, i) => partSource('forty.txt', i + 1)));
    expect(parts[0]?.title).toBe(`${paragraphs[0]!.slice(0, 79).replace(/ \S*$/, '')}… (part 1)`);
    for (const p of parts) expect(Buffer.byteLength(textOf(p))).toBeLessThanOrEqual(TEXT_PART_BYTES);
    expect(parts.map(textOf).join('\n\n')).toBe(paragraphs.join('\n\n'));
  }, 60_000);

  it('checks the whole file before yielding: bytes no encoding reads, deep inside → INVALID_UTF8 with the offset', async () => {
    const path = join(dir, 'bad.txt');
    writeParagraphs(path, TEXT_PART_BYTES + 4096);
    const fd = openSync(path, 'a');
    const offset = statSync(path).size;
    writeSync(fd, new Uint8Array([0x41, 0x81, 0x42])); // 0x81: not UTF-8, and undefined in windows-1252
    closeSync(fd);
    const err = await readPath(path, 'bad.txt').catch((e: unknown) => e);
    expect(isQuiverError(err, 'INVALID_UTF8')).toBe(true);
    expect((err as Error).message).toBe(
      `quiver: bad.txt is not valid UTF-8 (at byte ${offset + 1}) and no other encoding fits`,
    );
  });

  it('keeps big UTF-8 with a few bad bytes as a small file does: each a U+FFFD, counted in meta', async () => {
    const path = join(dir, 'mostly.txt');
    writeParagraphs(path, TEXT_PART_BYTES + 4096);
    const fd = openSync(path, 'a');
    writeSync(fd, new Uint8Array([...new TextEncoder().encode('\nZürich, Genève '), 0xff, 0x0a]));
    closeSync(fd);
    const parts = await allDocs((await readPath(path, 'mostly.txt')).docs);
    expect(parts.every((p) => p.meta['encoding'] === 'utf-8' && p.meta['invalid_sequences'] === 1)).toBe(
      true,
    );
    expect(textOf(parts[parts.length - 1]!).endsWith('Zürich, Genève \ufffd')).toBe(true);
  });

  it('reads a legacy byte deep inside a big file as a small file reads it (windows-1252)', async () => {
    const path = join(dir, 'latin.txt');
    writeParagraphs(path, TEXT_PART_BYTES + 4096);
    const fd = openSync(path, 'a');
    writeSync(fd, new Uint8Array([0x0a, 0x63, 0x61, 0x66, 0xe9, 0x0a])); // "café" in windows-1252
    closeSync(fd);
    const parts = await allDocs((await readPath(path, 'latin.txt')).docs);
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.every((p) => p.meta['encoding'] === 'windows-1252')).toBe(true);
    expect(textOf(parts[parts.length - 1]!).endsWith('café')).toBe(true);
  });

  it('reads, builds and drops a ~60 MB text in a 128 MB heap (child process)', async () => {
    const path = join(dir, 'sixty.txt');
    writeParagraphs(path, 60 * 1024 * 1024);
    const script = join(dir, 'read-big.mts');
    const src = (f: string): string => pathToFileURL(resolve('src/ingest', f)).href;
    await writeFile(
      script,
      [
        `import { readPath } from '${src('read-source.ts')}';`,
        `import { buildDocument } from '${src('build.ts')}';`,
        `const r = await readPath(process.argv[2], 'sixty.txt', { maxBytes: 1e9 });`,
        'let parts = 0; let chunks = 0;',
        'for await (const d of r.docs) { parts++; chunks += buildDocument(d).chunks.length; }',
        'console.log(JSON.stringify({ parts, chunks }));',
      ].join('\n'),
    );
    const run = spawnSync(process.execPath, ['--max-old-space-size=128', '--import', 'tsx', script, path], {
      encoding: 'utf8',
      cwd: process.cwd(),
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const out = JSON.parse(run.stdout) as { parts: number; chunks: number };
    expect(out.parts).toBeGreaterThanOrEqual(7);
    expect(out.chunks).toBeGreaterThan(100_000);
  }, 120_000);
});
