import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isQuiverError } from '../errors.js';
import {
  bomEncoding,
  declaredCharset,
  decodeBytes,
  decodeWindows1252,
  detectionSample,
  encodingForLabel,
  encodingMeta,
  hasDecodingDebris,
  readerText,
  utf8Chunks,
} from './encoding.js';
import { utf8Profile } from './utf8.js';

const ascii = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'latin1'));
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const concat = (...parts: Uint8Array[]): Uint8Array => new Uint8Array(parts.flatMap((p) => [...p]));

/**
 * An encoder for `encoding` built by inverting its decoder (single bytes, and for CJK lead/trail
 * pairs), so fixtures are real legacy bytes without an encoding library. Unmappable → throws.
 */
function encoderFor(encoding: string, multibyte = false): (text: string) => Uint8Array {
  const decode = decoderFor(encoding);
  const table = new Map<string, number[]>();
  for (let b = 0; b < 0x80; b++) table.set(String.fromCharCode(b), [b]);
  const tryBytes = (bytes: number[]): void => {
    try {
      const s = decode(new Uint8Array(bytes));
      if ([...s].length === 1 && !table.has(s)) table.set(s, bytes);
    } catch {
      // not a character of this encoding
    }
  };
  if (multibyte) for (let a = 0x81; a <= 0xfe; a++) for (let b = 0x40; b <= 0xfe; b++) tryBytes([a, b]);
  else for (let b = 0x80; b < 0x100; b++) tryBytes([b]);
  return (text) =>
    new Uint8Array(
      [...text].flatMap((c) => {
        const bytes = table.get(c);
        if (bytes === undefined) throw new Error(`${encoding} cannot encode ${c}`);
        return bytes;
      }),
    );
}

/** A strict decoder; windows-1252 by quiver's own table (Node's drops 0x80–0x9F, see encoding.ts). */
function decoderFor(encoding: string): (bytes: Uint8Array) => string {
  if (encoding === 'windows-1252') return decodeWindows1252;
  const decoder = new TextDecoder(encoding, { fatal: true });
  return (bytes) => decoder.decode(bytes);
}

/** The characters a single-byte encoding has beyond ASCII. */
function repertoire(encoding: string): string[] {
  const decode = decoderFor(encoding);
  const out: string[] = [];
  for (let b = 0x80; b < 0x100; b++) {
    let c: string;
    try {
      c = decode(new Uint8Array([b]));
    } catch {
      continue;
    }
    if (c !== '\ufffd' && !hasDecodingDebris(c)) out.push(c);
  }
  return out;
}

const html = (charset: string, body: Uint8Array): Uint8Array =>
  concat(
    ascii(`<!doctype html><html><head><meta charset="${charset}"><title>t</title></head><body><p>`),
    body,
    ascii('</p></body></html>'),
  );

describe('bomEncoding', () => {
  it('names UTF-8, UTF-16LE and UTF-16BE marks and their lengths, else undefined', () => {
    expect(bomEncoding(new Uint8Array([0xef, 0xbb, 0xbf, 0x41]))).toEqual({ encoding: 'utf-8', length: 3 });
    expect(bomEncoding(new Uint8Array([0xff, 0xfe]))).toEqual({ encoding: 'utf-16le', length: 2 });
    expect(bomEncoding(new Uint8Array([0xfe, 0xff, 0, 0x41]))).toEqual({ encoding: 'utf-16be', length: 2 });
    expect(bomEncoding(new Uint8Array([0xef, 0xbb]))).toBeUndefined();
    expect(bomEncoding(new Uint8Array())).toBeUndefined();
  });
});

describe('encodingForLabel', () => {
  it('maps labels to WHATWG names and unknown ones to undefined', () => {
    expect(encodingForLabel('ISO-8859-1')).toBe('windows-1252');
    expect(encodingForLabel(' latin1 ')).toBe('windows-1252');
    expect(encodingForLabel('cp1251')).toBe('windows-1251');
    expect(encodingForLabel('Shift_JIS')).toBe('shift_jis');
    expect(encodingForLabel('no-such-charset')).toBeUndefined();
  });
});

describe('declaredCharset', () => {
  it('reads <meta charset> and http-equiv Content-Type', () => {
    expect(declaredCharset(ascii('<meta charset="ISO-8859-1">'))).toBe('windows-1252');
    expect(declaredCharset(ascii("<META CHARSET='windows-1251'>"))).toBe('windows-1251');
    expect(declaredCharset(ascii('<meta charset=koi8-r>'))).toBe('koi8-r');
    expect(
      declaredCharset(ascii('<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS">')),
    ).toBe('shift_jis');
  });

  it('takes the first known label, skipping comments, unknown labels and anything after <body>', () => {
    expect(declaredCharset(ascii('<!-- <meta charset="koi8-r"> --><meta charset="gbk">'))).toBe('gbk');
    expect(declaredCharset(ascii('<meta charset="bogus"><meta charset="big5">'))).toBe('big5');
    expect(declaredCharset(ascii('<body><meta charset="windows-1251">'))).toBeUndefined();
    expect(declaredCharset(ascii('<p>no declaration</p>'))).toBeUndefined();
    expect(declaredCharset(new Uint8Array())).toBeUndefined();
  });

  it('reads a declared UTF-16 as UTF-8 and x-user-defined as windows-1252, as the spec does', () => {
    expect(declaredCharset(ascii('<meta charset="utf-16">'))).toBe('utf-8');
    expect(declaredCharset(ascii('<meta charset="x-user-defined">'))).toBe('windows-1252');
  });

  it('falls back to an XML declaration', () => {
    expect(declaredCharset(ascii('<?xml version="1.0" encoding="ISO-8859-2"?><html>'))).toBe('iso-8859-2');
  });
});

describe('decodeBytes', () => {
  it('follows a BOM and drops it', () => {
    expect(decodeBytes(concat(new Uint8Array([0xef, 0xbb, 0xbf]), utf8('héllo')))).toEqual({
      text: 'héllo',
      encoding: 'utf-8',
      source: 'bom',
      replaced: 0,
    });
    expect(decodeBytes(new Uint8Array(Buffer.from('\ufeffЖ', 'utf16le'))).text).toBe('Ж');
    expect(decodeBytes(new Uint8Array(Buffer.from('\ufeffЖ', 'utf16le').swap16())).text).toBe('Ж');
  });

  it('reads an HTML page in its declared encoding: ISO-8859-1, windows-1252, windows-1251', () => {
    const latin = 'Crème brûlée — “déjà vu” à 5 €';
    expect(decodeBytes(html('ISO-8859-1', encoderFor('windows-1252')(latin)), { html: true })).toMatchObject({
      encoding: 'windows-1252',
      source: 'declared',
    });
    expect(
      decodeBytes(html('windows-1252', encoderFor('windows-1252')(latin)), { html: true }).text,
    ).toContain(latin);
    const cyrillic = 'Съешь же ещё этих мягких французских булок, да выпей чаю.';
    const page = decodeBytes(html('windows-1251', encoderFor('windows-1251')(cyrillic)), { html: true });
    expect(page.text).toContain(cyrillic);
    expect(page.encoding).toBe('windows-1251');
  });

  it('reads UTF-8 mis-declared as latin-1 as UTF-8 (no mojibake)', () => {
    const page = decodeBytes(html('ISO-8859-1', utf8('Grüße aus Köln')), { html: true });
    expect(page.text).toContain('Grüße aus Köln');
    expect(page).toMatchObject({ encoding: 'utf-8', source: 'utf-8' });
  });

  it('keeps a declared UTF-8 page with a few bad bytes, each one a U+FFFD', () => {
    const bytes = html('utf-8', concat(utf8('naïve café '), new Uint8Array([0xe9]), utf8(' fin')));
    const page = decodeBytes(bytes, { html: true });
    expect(page.text).toContain('naïve café \ufffd fin');
    expect(page).toMatchObject({ encoding: 'utf-8', source: 'declared', replaced: 1 });
  });

  it('ignores a UTF-8 declaration over legacy bytes with nothing multi-byte', () => {
    const page = decodeBytes(html('utf-8', encoderFor('windows-1252')('Déjà vu, où êtes-vous?')), {
      html: true,
    });
    expect(page.text).toContain('Déjà vu, où êtes-vous?');
    expect(page.encoding).toBe('windows-1252');
  });

  it('detects undeclared legacy text: windows-1251, KOI8-R, Shift_JIS, GBK, EUC-KR, Big5', () => {
    const cases: [string, string, boolean][] = [
      ['windows-1251', 'Кофе - напиток, изготавливаемый из жареных зёрен кофейного дерева.', false],
      ['koi8-r', 'Кофе - напиток, изготавливаемый из жареных зёрен кофейного дерева.', false],
      [
        'shift_jis',
        'コーヒーは、コーヒー豆を焙煎し挽いた粉末から、湯または水で成分を抽出した飲料である。',
        true,
      ],
      ['gbk', '咖啡是用经过烘焙的咖啡豆制作出来的饮料，与茶、可可并称为世界三大饮料。', true],
      [
        'euc-kr',
        '커피는 커피나무의 열매를 볶아서 만든 음료이다. 세계에서 가장 많이 소비되는 음료 중 하나이다.',
        true,
      ],
      ['big5', '咖啡是用經過烘焙的咖啡豆製作出來的飲料，與茶、可可並稱為世界三大飲料。', true],
    ];
    for (const [encoding, text, multibyte] of cases) {
      const decoded = decodeBytes(encoderFor(encoding, multibyte)(text));
      expect(decoded.text, encoding).toBe(text);
      expect(decoded.source, encoding).toBe('detected');
    }
  });

  it('reads short Latin text as windows-1252 however the detector guesses', () => {
    const latin1 = encoderFor('windows-1252');
    for (const text of ['aéb', 'Straße', 'Ça va? Très bien.', 'Grüße aus Köln', 'El niño está aquí'])
      expect(decodeBytes(latin1(text)).text, text).toBe(text);
  });

  it('reads UTF-8 with a few bad bytes and no declaration as UTF-8', () => {
    const decoded = decodeBytes(concat(utf8('Zürich, Genève, '), new Uint8Array([0xff]), utf8(' Lugano')));
    expect(decoded).toMatchObject({ text: 'Zürich, Genève, \ufffd Lugano', encoding: 'utf-8', replaced: 1 });
  });

  it('throws INVALID_UTF8 with the first bad offset when no encoding fits', () => {
    let error: unknown;
    try {
      decodeBytes(new Uint8Array([0x68, 0x69, 0x81]), { source: 'x.txt' });
    } catch (e) {
      error = e;
    }
    expect(isQuiverError(error, 'INVALID_UTF8')).toBe(true);
    expect((error as { details: unknown }).details).toEqual({ source: 'x.txt', offset: 2 });
  });

  it('decodes empty input to empty text', () => {
    expect(decodeBytes(new Uint8Array()).text).toBe('');
  });

  it('round-trips any text through UTF-8, and through UTF-16LE/BE with a BOM (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (s) => {
        const le = Buffer.from('\ufeff' + s, 'utf16le');
        expect(decodeBytes(utf8(s)).text).toBe(s);
        expect(decodeBytes(new Uint8Array(le)).text).toBe(s);
        expect(decodeBytes(new Uint8Array(Buffer.from(le).swap16())).text).toBe(s);
      }),
    );
  });

  it('round-trips text of each declared single-byte encoding (property)', () => {
    for (const encoding of [
      'windows-1252',
      'windows-1251',
      'windows-1250',
      'iso-8859-2',
      'iso-8859-7',
      'koi8-r',
    ]) {
      const encode = encoderFor(encoding);
      const chars = [...repertoire(encoding), ...'abc XYZ 09.,'];
      fc.assert(
        fc.property(fc.array(fc.constantFrom(...chars), { minLength: 1, maxLength: 80 }), (cs) => {
          const text = cs.join('');
          const bytes = encode(text);
          // Legacy bytes that happen to be valid UTF-8 with a multi-byte character read as UTF-8 by
          // design (mojibake guard); real text almost never is, generated snippets can be.
          const profile = utf8Profile(bytes);
          fc.pre(profile.invalid > 0 || profile.multibyte === 0);
          const page = decodeBytes(html(encoding, bytes), { html: true });
          expect(page.text, encoding).toContain(`<p>${text}</p>`);
        }),
        { numRuns: 50 },
      );
    }
  });
});

describe('decodeWindows1252', () => {
  it('maps 0x80–0x9F by the WHATWG table and every other byte to its own code point', () => {
    expect(decodeWindows1252(Uint8Array.from([0x80, 0x85, 0x91, 0x92, 0x93, 0x94, 0x96, 0x97, 0x99]))).toBe(
      '€…‘’“”–—™',
    );
    expect(decodeWindows1252(Uint8Array.from([0x41, 0xa0, 0xe9, 0xff]))).toBe('A\u00a0éÿ');
    // The five bytes windows-1252 leaves undefined stay C1 controls (debris to the detector).
    expect(decodeWindows1252(Uint8Array.from([0x81, 0x8d, 0x8f, 0x90, 0x9d]))).toBe(
      '\u0081\u008d\u008f\u0090\u009d',
    );
    expect(decodeWindows1252(new Uint8Array())).toBe('');
  });
});

describe('readerText, encodingMeta, utf8Chunks', () => {
  it('normalises line endings after decoding', () => {
    expect(readerText(new Uint8Array(Buffer.from('\ufeffa\r\nb\rc', 'utf16le'))).text).toBe('a\nb\nc');
  });

  it('records only what is not clean UTF-8', () => {
    expect(encodingMeta({ encoding: 'utf-8', source: 'utf-8', replaced: 0 })).toEqual({});
    expect(encodingMeta({ encoding: 'utf-16le', source: 'bom', replaced: 0 })).toEqual({
      encoding: 'utf-16le',
    });
    expect(encodingMeta({ encoding: 'utf-8', source: 'declared', replaced: 2 })).toEqual({
      encoding: 'utf-8',
      invalid_sequences: 2,
    });
  });

  it('re-encodes a UTF-16 stream as UTF-8 whatever the chunk boundaries (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: 'binary', maxLength: 100 }),
        fc.integer({ min: 1, max: 7 }),
        async (s, size) => {
          const bytes = new Uint8Array(Buffer.from('\ufeff' + s, 'utf16le'));
          async function* chunks(): AsyncGenerator<Uint8Array> {
            for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
          }
          const out: Uint8Array[] = [];
          for await (const c of utf8Chunks(chunks(), 'utf-16le')) out.push(c);
          expect(new TextDecoder().decode(concat(...out))).toBe(s);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('re-encodes a legacy stream whatever the chunk boundaries, and strictly calls fail (property)', async () => {
    const cp1251 = encoderFor('windows-1251');
    const cp1252 = encoderFor('windows-1252');
    const collect = async (bytes: Uint8Array, size: number, encoding: string): Promise<string> => {
      async function* chunks(): AsyncGenerator<Uint8Array> {
        for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
      }
      const out: Uint8Array[] = [];
      const fail = (): Error => new Error('undefined byte');
      for await (const c of utf8Chunks(chunks(), encoding, { fail })) out.push(c);
      return new TextDecoder().decode(concat(...out));
    };
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...'Кофе ёж, “чай” — €5…\nabc'), { maxLength: 60 }).map((a) => a.join('')),
        fc.integer({ min: 1, max: 9 }),
        async (text, size) => {
          expect(await collect(cp1251(text), size, 'windows-1251')).toBe(text);
          const latin = text.replace(/[^ -~\n“”—€…]/g, 'e');
          expect(await collect(cp1252(latin), size, 'windows-1252')).toBe(latin);
        },
      ),
      { numRuns: 100 },
    );
    // 0x81 is undefined in windows-1252 (a C1 control if read leniently): strict decoding fails.
    await expect(collect(Uint8Array.from([0x61, 0x81, 0x62]), 2, 'windows-1252')).rejects.toThrow(
      'undefined byte',
    );
  });
});

describe('detectionSample', () => {
  it('starts at the word of the first byte that is not UTF-8, and ends on a break when cut', () => {
    const bytes = concat(
      ascii('x'.repeat(100_000) + '\nline '),
      encoderFor('windows-1251')('Кофе и чай. '.repeat(10_000)),
    );
    const at = utf8Profile(bytes).firstInvalid;
    const sample = detectionSample(bytes, at);
    expect(sample.subarray(0, 5)).toEqual(encoderFor('windows-1251')('Кофе '));
    expect(sample.length).toBeLessThanOrEqual(64 * 1024);
    expect(sample[sample.length - 1]).toBe(0x20);
    expect(detectionSample(ascii('short é'), 6)).toEqual(ascii('é')); // from the word, to the end
  });

  it('keeps only the text of an HTML page: scripts, styles, comments and tags out', () => {
    const page = ascii(
      '<p class="a">one <b>two</b></p><script>var x = "<p>";</script><!-- c --><style>p{}</style>three',
    );
    expect(
      Buffer.from(detectionSample(page, 0, true))
        .toString('latin1')
        .split(/\s+/)
        .filter(Boolean),
    ).toEqual(['one', 'two', 'three']);
  });

  it('finds windows-1251 behind 100 KB of ASCII script, in an undeclared page and in plain text', () => {
    const cyrillic = 'Москва — столица России, крупнейший по численности населения город страны.';
    const encode = encoderFor('windows-1251');
    const page = concat(
      ascii(`<html><head><script>${'var a = 1;\n'.repeat(10_000)}</script></head><body><p>`),
      encode(cyrillic),
      ascii('</p></body></html>'),
    );
    expect(decodeBytes(page, { html: true })).toMatchObject({ encoding: 'windows-1251', source: 'detected' });
    expect(decodeBytes(page, { html: true }).text).toContain(cyrillic);
    const text = concat(ascii('log line\n'.repeat(12_000)), encode(cyrillic));
    expect(decodeBytes(text).text.endsWith(cyrillic)).toBe(true);
  });
});
