import Database from 'better-sqlite3';
import fc from 'fast-check';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ftsColumns } from '../store/sqlite/fts-columns.js';
import { analyzeField, analyzeQuery, foldChar, porter, tokenize } from './analyzer.js';

/** FTS5 itself, tokenizing as the SQLite store's `sections_fts` does: the reference. */
const db = new Database(':memory:');
db.exec(`
  CREATE VIRTUAL TABLE t USING fts5(x, tokenize = 'porter unicode61 remove_diacritics 2');
  CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance');
`);
const insert = db.prepare('INSERT INTO t(rowid, x) VALUES (1, ?)');
const read = db.prepare('SELECT term FROM v ORDER BY "offset"').pluck();
function fts5Terms(text: string): string[] {
  db.exec('DELETE FROM t');
  insert.run(text);
  return read.all() as string[];
}
afterAll(() => db.close());

describe('analyzer', () => {
  it.each([
    ["patient's café naïve", ['patient', 's', 'cafe', 'naiv']],
    ['Йогурт їжак ґанок ÉCOLE', ['йогурт', 'їжак', 'ґанок', 'ecol']],
    ['ﬁle ２０２４ x²', ['ﬁle', '２０２４', 'x²']],
    ['abc123s 123s caresses', ['abc123', '123', 'caress']],
    ['Ⅻ ǅ ß straße', ['ⅻ', 'ǆ', 'ß', 'straß']],
    ['e-mail U.S.A. don’t', ['e', 'mail', 'u', 's', 'a', 'don', 't']],
    ['héllo wörld ørsted łódź', ['hello', 'world', 'ørsted', 'łodz']],
    ['_under_score a̐b', ['under', 'score', 'a', 'b']],
    ['İstanbul ΣΑΣ ΐ', ['istanbul', 'σασ', 'ΐ']],
    ['ς ϐ ſ µ ı ẞ K Å ǰ 𐐀 Ａ ⓐ', ['σ', 'β', 's', 'μ', 'ı', 'ß', 'k', 'a', 'j', '𐐨', 'ａ']],
    ['a\u0301a a\u0310a', ['aa', 'a', 'a']],
  ])('reads %j as FTS5 does', (text, want) => {
    expect(analyzeQuery(text)).toEqual(want);
    expect(fts5Terms(text)).toEqual(want);
  });

  it('leaves tokens under 3 or over 64 bytes unstemmed, as FTS5 does', () => {
    expect(porter('as')).toBe('as');
    expect(porter('yes')).toBe('ye');
    const long = `${'a'.repeat(64)}s`;
    expect(porter(long)).toBe(long);
    // 3 bytes: stemmed over its bytes (the Cyrillic letter's two bytes are consonants to porter).
    expect(fts5Terms('ёs')).toEqual([porter('ёs')]);
    expect(fts5Terms('straßes')).toEqual([porter('straßes')]);
  });

  it('folds one character at a time', () => {
    expect(foldChar('É')).toBe('e');
    expect(foldChar('İ')).toBe('i');
    expect(foldChar('й')).toBe('й');
    expect(foldChar('Ø')).toBe('ø');
    expect(tokenize('')).toEqual([]);
    expect(tokenize('—!?')).toEqual([]);
  });

  it('gives the terms FTS5 indexes for every seed and demo document, field by field', () => {
    const texts: string[] = [];
    for (const dir of ['demo/corpus', '../shared/seeds']) {
      let names: string[];
      try {
        names = readdirSync(dir);
      } catch {
        continue;
      }
      for (const n of names)
        if (/\.(md|txt|html)$/.test(n)) texts.push(readFileSync(join(dir, n), 'utf8').slice(0, 200_000));
    }
    expect(texts.length).toBeGreaterThanOrEqual(3);
    for (const text of texts)
      for (const lang of [null, 'en', 'uk', 'de', 'zh'])
        expect(analyzeField(text, lang)).toEqual(fts5Terms(ftsColumns(text, '', '', lang)[0]));
  });

  it('agrees with FTS5 on any text (property)', () => {
    const alphabet = fc.constantFrom(
      ...'abcdefghijklmnopqrstuvwxyzAEIOUY0123456789 \'’-_.,;:!?"()\n\t'.split(''),
      ...'éèêëàâäçñöüßøłœæÉÀÇŁĳǅİı'.split(''),
      ...'абвгдеёжзийклмнопрстуфхцчшщъыьэюяіїєґЙЇ'.split(''),
      ...'αβγδΣςΐϐϑſµ日本語中文咖啡ไทย'.split(''),
      '\u0301',
      '\u00b2',
      '\ufb01',
    );
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 60 }), (chars) => {
        const text = chars.join('');
        expect(analyzeQuery(text)).toEqual(fts5Terms(text));
      }),
      { numRuns: 3000 },
    );
  });
});
