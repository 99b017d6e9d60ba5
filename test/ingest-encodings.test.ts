// Text and HTML in other encodings, small and over 8 MiB (issue 16: UTF-16 text with a BOM was
// refused as binary, windows-1251 HTML as invalid UTF-8): real files in a temp folder, added to a
// real vault through the public API, then searched and read back as Cyrillic.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Vault, type DocumentRecord } from '../src/index.js';
import { tempDir } from './helpers.js';

const tmp = tempDir('quiver-encodings-');
afterAll(() => tmp.cleanup());

/** Over the 8 MiB where plain text starts to be streamed in parts (and HTML used to be refused). */
const BIG = 8 * 1024 * 1024 + 64 * 1024;

const MOSCOW = 'Москва — столица России, крупнейший по численности населения город страны.';
const KAZAN = 'Казань стоит на левом берегу Волги, при впадении в неё реки Казанки.';
const PERM = 'Пермь раскинулась вдоль реки Камы почти на семьдесят километров.';

/** `text` in windows-1251, from the decoder's own table (every character must be in it). */
function windows1251(text: string): Buffer {
  const decoder = new TextDecoder('windows-1251');
  const table = new Map<string, number>();
  for (let b = 255; b >= 0; b--) table.set(decoder.decode(new Uint8Array([b])), b);
  return Buffer.from(
    [...text].map((c) => {
      const b = table.get(c);
      if (b === undefined) throw new Error(`not in windows-1251: ${c}`);
      return b;
    }),
  );
}

const utf16le = (text: string): Buffer =>
  Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
const utf16be = (text: string): Buffer =>
  Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]);

/**
 * Spaces to push a file past `bytes` (`unit` bytes a character), so it is big but cheap to index,
 * then a blank line. (Not millions of line breaks: marked's lexer overflows its regex stack on them.)
 */
const padding = (bytes: number, unit: number): string => `${' '.repeat(Math.ceil(bytes / unit))}\n\n`;

/** A page: an article in Cyrillic, then (for a big page) a large inline JSON script, then one more paragraph. */
function page(charset: string | undefined, bytes = 0): string {
  const meta = charset === undefined ? '' : `<meta charset="${charset}">`;
  const data = bytes === 0 ? '' : `<script type="application/json">{"pad":"${'x'.repeat(bytes)}"}</script>`;
  return `<!doctype html><html><head>${meta}<title>Города России</title></head><body><article><h1>Города России</h1><p>${MOSCOW}</p><p>${KAZAN}</p>${data}<p>${PERM}</p></article></body></html>`;
}

const FILES: Record<string, Buffer> = {
  'le.txt': utf16le(`${MOSCOW}\n\n${KAZAN}\n\n${PERM}\n`),
  'be.md': utf16be(`# Города\n\n${MOSCOW}\n\n${KAZAN}\n\n${PERM}\n`),
  'declared.html': windows1251(page('windows-1251')),
  'undeclared.html': windows1251(page(undefined)),
  'big-le.txt': utf16le(`${MOSCOW}\n\n${KAZAN}${padding(BIG, 2)}${PERM}\n`),
  'big-be.md': utf16be(`# Города\n\n${MOSCOW}\n\n${KAZAN}${padding(BIG, 2)}${PERM}\n`),
  'big-1251.txt': windows1251(`${MOSCOW}\n\n${KAZAN}${padding(BIG, 1)}${PERM}\n`),
  'big-declared.html': windows1251(page('windows-1251', BIG)),
  'big-undeclared.html': windows1251(page(undefined, BIG)),
};

/** Binary files, small and big, one of them starting with a UTF-16 byte-order mark. */
const BINARY: Record<string, Buffer> = {
  'image.txt': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]),
  'big-random.txt': randomBytes(BIG),
  'big-bom-random.txt': Buffer.concat([Buffer.from([0xff, 0xfe]), randomBytes(BIG)]),
};

/** The file a document or report item came from: its source's last segment, without `#part-n`. */
const fileOf = (source: string): string =>
  source
    .split('/')
    .pop()!
    .replace(/#part-\d+$/, '');

let vault: Vault;
let report: Awaited<ReturnType<Vault['add']>>;
let docs: Map<string, DocumentRecord[]>;

describe('text and HTML in other encodings, at any size, through vault.add', () => {
  beforeAll(async () => {
    for (const [name, bytes] of Object.entries({ ...FILES, ...BINARY }))
      writeFileSync(join(tmp.dir, name), bytes);
    vault = await Vault.open({ overrides: { vault: join(tmp.dir, 'vault.db') } });
    report = await vault.add(Object.keys({ ...FILES, ...BINARY }).map((name) => join(tmp.dir, name)));
    docs = new Map();
    for (const d of await vault.docs()) {
      const file = fileOf(d.source);
      docs.set(file, [...(docs.get(file) ?? []), d]);
    }
  }, 60_000);
  afterAll(async () => {
    await vault.close();
  });

  it('adds every text file, whatever its size, and records its encoding', () => {
    const want: Record<string, string> = {
      'le.txt': 'utf-16le',
      'be.md': 'utf-16be',
      'declared.html': 'windows-1251',
      'undeclared.html': 'windows-1251',
      'big-le.txt': 'utf-16le',
      'big-be.md': 'utf-16be',
      'big-1251.txt': 'windows-1251',
      'big-declared.html': 'windows-1251',
      'big-undeclared.html': 'windows-1251',
    };
    for (const [file, encoding] of Object.entries(want)) {
      const item = report.items.find((i) => fileOf(i.source) === file);
      expect(item?.status, `${file}: ${item?.error?.message}`).toBe('added');
      const records = docs.get(file) ?? [];
      expect(records.length, file).toBeGreaterThan(0);
      for (const d of records) expect(d.meta['encoding'], file).toBe(encoding);
    }
  });

  it('indexes the Cyrillic text, before and after the bulk of a big file', async () => {
    for (const file of Object.keys(FILES)) {
      const text: string[] = [];
      for (const d of docs.get(file) ?? []) text.push((await vault.read(`${d.id}#0`)).text);
      const all = text.join('\n').replace(/\s+/g, ' ');
      for (const sentence of [MOSCOW, KAZAN, PERM]) expect(all, file).toContain(sentence);
      expect(all, file).not.toMatch(/[\u0080-\u009f\ufffd]|Ð|Ñ|Ã/); // no mojibake, no replacement
    }
    // Each file's copy of the last sentence is found by a Cyrillic query (the copies fold as
    // near-duplicates in one result list, so each file is searched on its own).
    for (const file of Object.keys(FILES)) {
      const ids = (docs.get(file) ?? []).map((d) => d.id);
      const hits = await vault.search('Пермь Камы', { limit: 3, filter: { docIds: ids } });
      expect(hits.hits.length, file).toBeGreaterThan(0);
    }
  });

  it('still refuses binary files as binary, also big ones and one behind a UTF-16 byte-order mark', () => {
    for (const file of Object.keys(BINARY)) {
      const item = report.items.find((i) => fileOf(i.source) === file);
      expect(item?.status, file).toBe('failed');
      expect(item?.error?.code, file).toBe('BINARY_FILE');
    }
  });
});
