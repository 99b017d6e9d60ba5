import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isQuiverError } from '../errors.js';
import { detectKind, SNIFF_BYTES } from '../ingest/detect.js';
import { UPLOAD_EXTENSIONS, UPLOAD_HEAD_BYTES, uploadKind } from './upload-kind.js';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const bytes = (...b: number[]): Uint8Array => new Uint8Array(b);

/** The BAD_INPUT message `uploadKind` throws; fails the test when it returns or throws anything else. */
function rejection(name: string, head: Uint8Array): string {
  try {
    uploadKind(name, head);
  } catch (e) {
    if (isQuiverError(e, 'BAD_INPUT')) return e.message;
    throw e;
  }
  throw new Error(`accepted ${name}`);
}

const PDF = enc('%PDF-1.7\n%\u00e2\u00e3\u00cf\u00d3\n1 0 obj\n');
const PNG = bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52);
const ZIP = bytes(0x50, 0x4b, 0x03, 0x04, 0x14, 0, 0, 0, 0x08, 0);
const ELF = bytes(0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0, 0, 0);
const EXE = bytes(0x4d, 0x5a, 0x90, 0, 3, 0, 0, 0, 4, 0, 0, 0, 0xff, 0xff, 0, 0);

describe('uploadKind accepts', () => {
  it('each allowed extension, case-insensitively, as detect.ts names its kind', () => {
    const cases: [string, string][] = [
      ['a.md', 'md'],
      ['a.MARKDOWN', 'md'],
      ['a.mdx', 'md'],
      ['a.html', 'html'],
      ['a.HTM', 'html'],
      ['a.xhtml', 'html'],
      ['a.txt', 'txt'],
      ['a.text', 'txt'],
      ['a.rst', 'txt'],
      ['a.log', 'txt'],
      ['a.jsonl', 'jsonl'],
      ['a.NDJSON', 'jsonl'],
    ];
    for (const [name, kind] of cases) expect(uploadKind(name, enc('# hello\n'))).toBe(kind);
    expect(uploadKind('a.pdf', PDF)).toBe('pdf');
    expect(uploadKind('A.PDF', PDF)).toBe('pdf');
  });

  it('the extension after the last dot, so a double extension ending in an allowed one', () => {
    expect(uploadKind('archive.tar.md', enc('text'))).toBe('md');
    expect(uploadKind('report.exe.txt', enc('text'))).toBe('txt');
  });

  it('UTF-16 text behind a byte-order mark, whose NUL bytes are not binary', () => {
    const utf16 = bytes(0xff, 0xfe, ...[...'hello'].flatMap((c) => [c.charCodeAt(0), 0]));
    expect(uploadKind('a.txt', utf16)).toBe('txt');
  });

  it('an empty head for a text kind (the reader then reports EMPTY_FILE)', () => {
    expect(uploadKind('a.md', new Uint8Array())).toBe('md');
  });

  it('only the extensions detect.ts has readers for, and looks at as many bytes as its sniffing', () => {
    expect(UPLOAD_EXTENSIONS).toEqual([
      'md',
      'markdown',
      'mdx',
      'html',
      'htm',
      'xhtml',
      'pdf',
      'txt',
      'text',
      'rst',
      'log',
      'jsonl',
      'ndjson',
    ]);
    expect(UPLOAD_HEAD_BYTES).toBe(SNIFF_BYTES);
  });
});

describe('uploadKind rejects', () => {
  it('an unknown extension, naming the allowed ones', () => {
    const m = rejection('data.csv', enc('a,b\n1,2\n'));
    expect(m).toMatch(
      /^quiver: upload "data\.csv" has the extension \.csv, which quiver does not ingest; allowed: /,
    );
    for (const ext of UPLOAD_EXTENSIONS) expect(m).toContain(`.${ext}`);
  });

  it('executables, even when their bytes are given as text', () => {
    for (const name of ['setup.exe', 'run.sh', 'a.bat', 'a.cmd', 'a.ps1', 'lib.dll', 'a.so', 'a.js', 'a.msi'])
      expect(rejection(name, enc('echo hi'))).toMatch(/which quiver does not ingest/);
    expect(rejection('a.exe', EXE)).toMatch(/\.exe/);
  });

  it('images and archives', () => {
    for (const name of ['a.png', 'a.jpg', 'a.gif', 'a.svg', 'a.zip', 'a.tar.gz', 'a.7z', 'a.docx', 'a.epub'])
      expect(rejection(name, ZIP)).toMatch(/which quiver does not ingest/);
  });

  it('a name without an extension, and a dot file (".md" has no extension, as for detectKind)', () => {
    expect(rejection('README', enc('# hi'))).toMatch(/has no extension; allowed: \.md/);
    expect(rejection('.md', enc('# hi'))).toMatch(/has no extension/);
    expect(rejection('notes.', enc('# hi'))).toMatch(/has no extension/);
    expect(detectKind('.md', enc('# hi'))).toBe('txt'); // the reader's rule, which the upload follows
  });

  it('a .pdf whose bytes do not start with %PDF-', () => {
    expect(rejection('a.pdf', enc('hello'))).toMatch(/is named \.pdf but its bytes do not start with %PDF-/);
    expect(rejection('a.pdf', ZIP)).toMatch(/%PDF-/);
    expect(rejection('a.pdf', new Uint8Array())).toMatch(/%PDF-/);
    expect(rejection('a.pdf', enc('%PDF'))).toMatch(/%PDF-/); // cut short
    expect(rejection('a.pdf', enc('%pdf-1.4'))).toMatch(/%PDF-/); // case matters
  });

  it('a .pdf with junk before %PDF-, which the reader would tolerate', () => {
    expect(rejection('a.pdf', enc(`PK\u0003\u0004junk%PDF-1.7`))).toMatch(/do not start with %PDF-/);
    expect(rejection('a.pdf', enc(` %PDF-1.7`))).toMatch(/do not start with %PDF-/);
  });

  it('a text kind whose head has a NUL byte, as binary', () => {
    expect(rejection('a.md', enc('hello\0world'))).toMatch(
      /is named \.md but looks binary \(NUL byte at 5\)/,
    );
    expect(rejection('a.jsonl', enc('{"a":1}\n\0'))).toMatch(/looks binary/);
  });

  it('binary files disguised with a text extension: image, archive, executable, SQLite, PDF', () => {
    expect(rejection('photo.md', PNG)).toMatch(/looks binary/);
    expect(rejection('archive.txt', ZIP)).toMatch(/looks binary/);
    expect(rejection('prog.html', ELF)).toMatch(/looks binary/);
    expect(rejection('setup.txt', EXE)).toMatch(/looks binary/);
    expect(rejection('vault.txt', enc('SQLite format 3\0'))).toMatch(/looks binary \(SQLite database\)/);
    expect(rejection('paper.md', bytes(...PDF, 0, 1, 2))).toMatch(/looks binary/);
  });

  it('a text kind with many control bytes but no NUL', () => {
    expect(rejection('a.txt', bytes(...Array.from({ length: 100 }, (_, i) => 1 + (i % 7))))).toMatch(
      /looks binary \(\d+ control bytes/,
    );
  });

  it('with the extension and the allowed list in the error details', () => {
    try {
      uploadKind('a.exe', EXE);
    } catch (e) {
      expect(isQuiverError(e) && e.details).toMatchObject({ field: 'name', name: 'a.exe', extension: 'exe' });
    }
    expect.assertions(1);
  });
});

describe('uploadKind properties', () => {
  it('never accepts an extension outside the list, whatever the bytes', () => {
    const ext = fc.string({
      unit: fc.constantFrom('a', 'x', 'e', 'p', 'd', 'f', 'm', '1'),
      minLength: 1,
      maxLength: 5,
    });
    fc.assert(
      fc.property(ext, fc.uint8Array({ maxLength: 64 }), (e, head) => {
        if (UPLOAD_EXTENSIONS.includes(e.toLowerCase())) return;
        expect(() => uploadKind(`file.${e}`, head)).toThrow(/which quiver does not ingest/);
      }),
    );
  });

  it('accepts a listed extension exactly when detect.ts would read the bytes: %PDF- for pdf, text otherwise', () => {
    fc.assert(
      fc.property(fc.constantFrom(...UPLOAD_EXTENSIONS), fc.uint8Array({ maxLength: 64 }), (ext, head) => {
        let kind: string | undefined;
        try {
          kind = uploadKind(`file.${ext}`, head);
        } catch (e) {
          if (!isQuiverError(e, 'BAD_INPUT')) throw e;
        }
        if (kind !== undefined) expect(kind).toBe(detectKind(`file.${ext}`, head));
        if (ext === 'pdf')
          expect(kind !== undefined).toBe(new TextDecoder().decode(head.subarray(0, 5)) === '%PDF-');
        else if (
          head.includes(0) &&
          !(head[0] === 0xff && head[1] === 0xfe) &&
          !(head[0] === 0xfe && head[1] === 0xff)
        )
          expect(kind).toBeUndefined();
      }),
    );
  });
});
