import { posix, win32 } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isQuiverError } from '../errors.js';
import { MAX_UPLOAD_NAME_BYTES, safeUploadName } from './upload-name.js';

/** The BAD_INPUT message `safeUploadName(name)` throws; fails the test when it returns or throws anything else. */
function rejection(name: string): string {
  try {
    safeUploadName(name);
  } catch (e) {
    if (isQuiverError(e, 'BAD_INPUT')) return e.message;
    throw e;
  }
  throw new Error(`accepted ${JSON.stringify(name)}`);
}

describe('safeUploadName rejects', () => {
  it('the empty name and whitespace-only names', () => {
    for (const name of ['', ' ', '   ', '\u3000', '\u00a0\u2003'])
      expect(rejection(name)).toMatch(/^quiver: an upload's file name is empty or only whitespace/);
  });

  it('NUL anywhere', () => {
    expect(rejection('a\0.md')).toMatch(/control characters \(U\+0000 at index 1\)/);
    expect(rejection('\0')).toMatch(/control characters/);
    expect(rejection('notes.md\0.exe')).toMatch(/control characters/);
  });

  it('every C0 control, DEL and every C1 control', () => {
    const controls = [
      ...Array.from({ length: 0x20 }, (_, c) => c),
      0x7f,
      ...Array.from({ length: 0x20 }, (_, c) => 0x80 + c),
    ];
    for (const c of controls)
      expect(rejection(`a${String.fromCharCode(c)}b.md`)).toMatch(/must not contain control characters/);
  });

  it('tab, newline and carriage return, which could forge log lines', () => {
    for (const name of ['a\tb.md', 'a\nb.md', 'a.md\r\nGET /admin'])
      expect(rejection(name)).toMatch(/control/);
  });

  it('a "/" anywhere: absolute paths, relative paths, traversal', () => {
    for (const name of ['/etc/passwd', '../x', 'a/b.md', 'a.md/', '/', '//server/share', './a.md'])
      expect(rejection(name)).toMatch(/must be a bare name, not a path/);
  });

  it('a "\\" anywhere: Windows paths, traversal, UNC', () => {
    for (const name of ['..\\x', 'C:\\x', 'a\\b.md', '\\\\server\\share\\a.md', '\\'])
      expect(rejection(name)).toMatch(/must be a bare name, not a path/);
  });

  it('"." and ".."', () => {
    expect(rejection('.')).toMatch(/cannot be "\." or "\.\."/);
    expect(rejection('..')).toMatch(/cannot be "\." or "\.\."/);
  });

  it('a leading "..", which path.relative containment checks would take for the parent', () => {
    for (const name of ['..a', '..notes.md', '...md', '.. x'])
      expect(rejection(name)).toMatch(/must not start with "\.\."/);
  });

  it('a Windows drive-relative name (C:x) and an NTFS stream (a.txt:hidden)', () => {
    expect(rejection('C:x')).toMatch(/must not contain ":" \(a Windows drive/);
    expect(rejection('c:notes.md')).toMatch(/":"/);
    expect(rejection('a.txt:hidden')).toMatch(/":"/);
    expect(rejection('a.md::$DATA')).toMatch(/":"/);
  });

  it('the other characters Windows forbids: < > " | ? *', () => {
    for (const ch of ['<', '>', '"', '|', '?', '*'])
      expect(rejection(`a${ch}b.md`)).toMatch(/Windows forbids/);
  });

  it('bidirectional controls that disguise the extension', () => {
    // Shown right-to-left after U+202E, "invoice\u202Efdp.exe" reads as "invoiceexe.pdf".
    expect(rejection('invoice\u202efdp.exe')).toMatch(
      /bidirectional control characters \(U\+202E at index 7\)/,
    );
    for (const c of [0x202a, 0x202b, 0x202c, 0x202d, 0x2066, 0x2067, 0x2068, 0x2069])
      expect(rejection(`a${String.fromCharCode(c)}.md`)).toMatch(/bidirectional/);
  });

  it('names over 255 UTF-8 bytes, counting bytes and not characters', () => {
    expect(rejection(`${'a'.repeat(253)}.md`)).toMatch(/is 256 bytes in UTF-8, over the limit of 255/);
    // 128 characters, 256 bytes ("é" is 2 bytes in UTF-8).
    expect(rejection('é'.repeat(128))).toMatch(/is 256 bytes/);
    // 131 UTF-16 units, 259 bytes (an emoji is 4 bytes).
    expect(rejection(`${'😀'.repeat(64)}.md`)).toMatch(/is 259 bytes/);
  });

  it('Windows device names, any case, with or without an extension', () => {
    const devices = ['CON', 'PRN', 'AUX', 'NUL', 'CONIN$', 'CONOUT$'];
    for (let i = 0; i <= 9; i++) devices.push(`COM${i}`, `LPT${i}`);
    devices.push('COM¹', 'COM²', 'COM³', 'LPT¹', 'LPT²', 'LPT³');
    for (const d of devices) {
      for (const name of [d, d.toLowerCase(), `${d}.txt`, `${d.toLowerCase()}.tar.gz`])
        expect(rejection(name)).toMatch(/is the Windows device name/);
    }
  });

  it('Windows device names with trailing dots or spaces, before or without an extension', () => {
    for (const name of ['CON.', 'con ', 'NUL...', 'aux . .', 'CON .txt', 'lpt1  .md'])
      expect(rejection(name)).toMatch(/is the Windows device name|must not end with a dot or a space/);
    expect(rejection('CON .txt')).toMatch(/is the Windows device name CON/);
  });

  it('a trailing dot or space', () => {
    for (const name of ['a.md.', 'a.md ', 'notes..', '.a.', 'a. . '])
      expect(rejection(name)).toMatch(/must not end with a dot or a space/);
  });

  it('a leading "-", which a shell tool would read as an option', () => {
    for (const name of ['-rf', '-notes.md', '--help.txt'])
      expect(rejection(name)).toMatch(/must not start with "-"/);
  });

  it('lone surrogates (not valid Unicode), high or low, anywhere', () => {
    expect(rejection('\ud800.md')).toMatch(/valid Unicode \(a lone surrogate U\+D800 at index 0\)/);
    expect(rejection('a\udc00.md')).toMatch(/U\+DC00 at index 1/);
    expect(rejection('a.md\ud83d')).toMatch(/lone surrogate/);
    expect(rejection('\ude00\ud83d')).toMatch(/lone surrogate U\+DE00/); // a pair in the wrong order
  });

  it('with a message that quotes the name with controls escaped, cut when long', () => {
    expect(rejection('a\0b')).toContain('got "a\\u0000b"');
    const long = rejection('x'.repeat(300));
    expect(long).toContain(`got "${'x'.repeat(60)}…"`);
    expect(long.length).toBeLessThan(200);
  });

  it('with the name in the error details', () => {
    try {
      safeUploadName('../x');
    } catch (e) {
      expect(isQuiverError(e) && e.details).toEqual({ field: 'name', name: '../x' });
    }
    expect.assertions(1);
  });
});

describe('safeUploadName accepts', () => {
  it('plain names unchanged', () => {
    for (const name of [
      'notes.md',
      'README',
      'a',
      'report 2024 (final).pdf',
      'x.tar.gz',
      '日本語.txt',
      '😀.md',
    ])
      expect(safeUploadName(name)).toBe(name);
  });

  it('exactly 255 UTF-8 bytes', () => {
    const name = `${'a'.repeat(252)}.md`;
    expect(safeUploadName(name)).toBe(name);
    const multibyte = `${'é'.repeat(126)}.md`; // 252 + 3 bytes
    expect(safeUploadName(multibyte)).toBe(multibyte);
    const astral = `${'😀'.repeat(63)}.md`; // 252 + 3 bytes
    expect(safeUploadName(astral)).toBe(astral);
  });

  it('names that only contain a device name, or start with one before other characters', () => {
    for (const name of [
      'CONFIG.md',
      'console.txt',
      'COM10.md',
      'LPT',
      'nul-results.txt',
      'auxiliary',
      'a.CON',
    ])
      expect(safeUploadName(name)).toBe(name);
  });

  it('dot files, inner dots, and a leading space or inner dashes', () => {
    for (const name of ['.env', '.hidden.md', '.a..b', 'a..b', ' leading.md', 'a-b-c.md', 'a~1.md'])
      expect(safeUploadName(name)).toBe(name);
  });

  it('valid surrogate pairs (astral characters)', () => {
    expect(safeUploadName('\ud83d\ude00.md')).toBe('😀.md');
  });

  it('other look-alike slashes, which no file system treats as a separator', () => {
    for (const name of ['a\u2215b.md', 'a\uff0fb.md', 'a\u29f8b.md']) expect(safeUploadName(name)).toBe(name);
  });
});

describe('safeUploadName normalises to NFC', () => {
  it('composes a decomposed accent', () => {
    const nfd = 'Cafe\u0301.md';
    expect(safeUploadName(nfd)).toBe('Caf\u00e9.md');
    expect(safeUploadName(nfd)).not.toBe(nfd);
  });

  it('counts bytes after NFC: a decomposed name over 255 bytes whose NFC form fits is accepted', () => {
    // "e" + U+0301 is 3 bytes, "é" is 2: 85 × 3 = 255 + ".md" = 258 bytes before, 173 after.
    const nfd = `${'e\u0301'.repeat(85)}.md`;
    expect(Buffer.byteLength(nfd)).toBe(258);
    expect(safeUploadName(nfd)).toBe(`${'é'.repeat(85)}.md`);
  });

  it('keeps compatibility characters (NFC, not NFKC): the ligature "ﬁ" stays', () => {
    expect(safeUploadName('ﬁle.md')).toBe('ﬁle.md');
  });
});

/** Characters that break names, mixed with ordinary ones, as whole units (so "CON" and "..". appear). */
const nastyUnit = fc.oneof(
  fc.constantFrom(
    '/',
    '\\',
    '.',
    '..',
    ':',
    ' ',
    '-',
    '\0',
    '\t',
    '\u0085',
    '\u202e',
    '<',
    '?',
    'CON',
    'lpt1',
    'C:',
    'a',
    'md',
    'é',
    'e\u0301',
    '\ud800',
    '\udc00',
    '😀',
    '\u3000',
  ),
  fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
  fc.string({ unit: 'grapheme', maxLength: 1 }),
);

const anyName = fc.oneof(
  fc.string({ unit: nastyUnit, maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: fc.constantFrom('a', 'é', 'e\u0301', '😀', '.'), minLength: 60, maxLength: 260 }),
);

/** The outcome for one name: the returned name, or null when it threw BAD_INPUT (anything else is rethrown). */
function outcome(name: string): string | null {
  try {
    return safeUploadName(name);
  } catch (e) {
    if (isQuiverError(e, 'BAD_INPUT') && e.message.startsWith('quiver: ')) return null;
    throw e;
  }
}

describe('safeUploadName properties', () => {
  it('either throws BAD_INPUT or returns a name with no separator, NUL or control, not . or .., ≤ 255 bytes, in NFC', () => {
    fc.assert(
      fc.property(anyName, (name) => {
        const r = outcome(name);
        if (r === null) return;
        for (const ch of r) {
          const c = ch.codePointAt(0)!;
          expect(ch !== '/' && ch !== '\\' && c >= 0x20 && !(c >= 0x7f && c <= 0x9f)).toBe(true);
        }
        expect(r).not.toBe('.');
        expect(r).not.toBe('..');
        expect(Buffer.byteLength(r, 'utf8')).toBeLessThanOrEqual(MAX_UPLOAD_NAME_BYTES);
        expect(r).toBe(r.normalize('NFC'));
        expect(r).toBe(name.normalize('NFC')); // unchanged apart from NFC
        expect(r.trim()).not.toBe('');
        expect(safeUploadName(r)).toBe(r); // idempotent
      }),
      { numRuns: 5000 },
    );
  });

  it('joined to a folder, an accepted name never escapes it (POSIX and Windows paths)', () => {
    const cases = [
      { path: posix, dir: '/srv/quiver/uploads' },
      { path: win32, dir: 'C:\\quiver\\uploads' },
    ];
    fc.assert(
      fc.property(anyName, (name) => {
        const r = outcome(name);
        if (r === null) return;
        for (const { path, dir } of cases) {
          const joined = path.join(dir, r);
          const rel = path.relative(dir, joined);
          expect(rel.startsWith('..')).toBe(false);
          expect(path.isAbsolute(rel)).toBe(false);
          expect(rel).not.toBe('');
          expect(path.dirname(joined)).toBe(dir); // a direct child, not a deeper path
          expect(path.basename(joined)).toBe(r);
        }
      }),
      { numRuns: 5000 },
    );
  });

  it('accepts every plain name: letters, digits, _ and inner dots or dashes, not a device, ≤ 255 bytes', () => {
    const plain = fc
      .tuple(
        fc.string({ unit: fc.constantFrom('a', 'Z', '0', '_', 'é', '日'), minLength: 1, maxLength: 40 }),
        fc.string({ unit: fc.constantFrom('a', '0', '.', '-', '_', ' '), maxLength: 20 }),
        fc.constantFrom('.md', '.txt', '.pdf', ''),
      )
      .map(([head, middle, ext]) => `${head}${middle}${ext}x`);
    fc.assert(
      fc.property(plain, (name) => {
        expect(safeUploadName(name)).toBe(name);
      }),
    );
  });
});
