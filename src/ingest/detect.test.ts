import { describe, expect, it } from 'vitest';
import { isQuiverError, type QuiverErrorCode } from '../errors.js';
import { DEFAULT_MAX_FILE_BYTES, detectKind, validateBytes } from './detect.js';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

function codeOf(f: () => void): QuiverErrorCode | undefined {
  try {
    f();
  } catch (e) {
    if (isQuiverError(e)) return e.code;
    throw e;
  }
  return undefined;
}

describe('detectKind', () => {
  it('maps extensions case-insensitively', () => {
    const cases: [string, string][] = [
      ['a.md', 'md'],
      ['a.MARKDOWN', 'md'],
      ['a.mdx', 'md'],
      ['a.html', 'html'],
      ['a.HTM', 'html'],
      ['a.pdf', 'pdf'],
      ['a.txt', 'txt'],
      ['a.rst', 'txt'],
      ['a.log', 'txt'],
      ['a.text', 'txt'],
      ['a.jsonl', 'jsonl'],
      ['dir.d/a.ndjson', 'jsonl'],
      ['README', 'txt'],
      ['.bashrc', 'txt'],
      ['notes.org', 'txt'],
    ];
    for (const [path, kind] of cases) expect(detectKind(path, enc('x')), path).toBe(kind);
  });

  it('detects PDFs by magic bytes when the extension is unknown', () => {
    expect(detectKind('download', enc('%PDF-1.7\n...'))).toBe('pdf');
    expect(detectKind('download.bin', enc('no magic'))).toBe('txt');
  });
});

describe('validateBytes', () => {
  it('accepts ordinary UTF-8 text', () => {
    expect(codeOf(() => validateBytes(enc('héllo 😀\n'), 'txt'))).toBeUndefined();
  });

  it('rejects empty and whitespace-only files with EMPTY_FILE', () => {
    expect(codeOf(() => validateBytes(new Uint8Array(), 'txt'))).toBe('EMPTY_FILE');
    expect(codeOf(() => validateBytes(enc(' \n\t\r\n'), 'md'))).toBe('EMPTY_FILE');
    expect(codeOf(() => validateBytes(new Uint8Array(), 'pdf'))).toBe('EMPTY_FILE');
  });

  it('rejects NUL bytes and control-heavy bytes with BINARY_FILE', () => {
    expect(
      codeOf(() => validateBytes(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]), 'txt')),
    ).toBe('BINARY_FILE');
    const controls = new Uint8Array(100).fill(0x41);
    for (let i = 0; i < 20; i++) controls[i * 5] = 0x01;
    expect(codeOf(() => validateBytes(controls, 'txt'))).toBe('BINARY_FILE');
    // UTF-16 without a BOM has NUL bytes: still binary.
    expect(codeOf(() => validateBytes(new Uint8Array([0x68, 0x00, 0x69, 0x00]), 'txt'))).toBe('BINARY_FILE');
    // With a BOM its characters are judged: a NUL character is binary.
    expect(codeOf(() => validateBytes(new Uint8Array([0xff, 0xfe, 0x68, 0x00, 0x00, 0x00]), 'txt'))).toBe(
      'BINARY_FILE',
    );
  });

  it('reads UTF-16 text with a byte-order mark (issue 16)', () => {
    expect(validateBytes(new Uint8Array([0xff, 0xfe, 0x68, 0x00, 0x69, 0x00]), 'txt')).toMatchObject({
      text: 'hi',
      encoding: 'utf-16le',
      source: 'bom',
    });
    expect(validateBytes(new Uint8Array([0xfe, 0xff, 0x00, 0x68, 0x00, 0x69]), 'md')?.text).toBe('hi');
    expect(codeOf(() => validateBytes(new Uint8Array([0xff, 0xfe, 0x20, 0x00, 0x0a, 0x00]), 'txt'))).toBe(
      'EMPTY_FILE',
    );
  });

  it('reads Latin-1 text as windows-1252 instead of rejecting it (issue 16)', () => {
    expect(validateBytes(new Uint8Array([0x61, 0xe9, 0x62]), 'md')).toMatchObject({
      text: 'aéb',
      encoding: 'windows-1252',
    });
    // A broken UTF-8 sequence with nothing multi-byte around it reads as windows-1252 too.
    expect(validateBytes(new Uint8Array([0x68, 0x69, 0xc3, 0x28]), 'txt')?.text).toBe('hiÃ(');
  });

  it('rejects bytes no encoding reads as text with INVALID_UTF8', () => {
    // 0x81 is neither UTF-8 nor a windows-1252 character, and no detector guess fits.
    expect(codeOf(() => validateBytes(new Uint8Array([0x68, 0x69, 0x81]), 'txt'))).toBe('INVALID_UTF8');
  });

  it('rejects files over the limit with FILE_TOO_LARGE', () => {
    expect(DEFAULT_MAX_FILE_BYTES).toBe(50 * 1024 * 1024);
    expect(codeOf(() => validateBytes(enc('12345'), 'txt', { maxBytes: 4 }))).toBe('FILE_TOO_LARGE');
    expect(codeOf(() => validateBytes(enc('1234'), 'txt', { maxBytes: 4 }))).toBeUndefined();
  });

  it('leaves PDF bytes to the PDF reader', () => {
    expect(
      codeOf(() => validateBytes(new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x2d, 0, 0xff]), 'pdf')),
    ).toBeUndefined();
  });
});
