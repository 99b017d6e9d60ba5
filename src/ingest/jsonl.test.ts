import { readFile } from 'node:fs/promises';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dataSet, needsDataSet } from '../_data-set.js';
import { encodeJsonlId, jsonlSource, parseJsonlSource } from './jsonl-id.js';
import { parseJsonl, readJsonl } from './jsonl.js';

describe('parseJsonl', () => {
  it('reads id/_id, title, text and meta per line', () => {
    const { documents, errors } = parseJsonl(
      '{"id":"a","title":"A","text":"alpha","meta":{"k":1}}\n\n{"_id":7,"text":"seven","metadata":{"m":2}}\n',
      'c.jsonl',
    );
    expect(errors).toEqual([]);
    expect(
      documents.map((d) => [d.source, d.title, d.kind, d.meta, d.sections[0]?.segments[0]?.text]),
    ).toEqual([
      ['c.jsonl#a', 'A', 'jsonl', { k: 1, id: 'a' }, 'alpha'],
      ['c.jsonl#n:7', '7', 'jsonl', { m: 2, id: 7 }, 'seven'],
    ]);
  });

  it('reports bad lines with their 1-based number and keeps the good ones', () => {
    const text = [
      '{"id":"ok","text":"fine"}',
      '{not json',
      '[1,2]',
      '{"text":"no id"}',
      '{"id":"x","text":5}',
      '{"id":"y"}',
      '{"id":"z","text":"t","meta":[1]}',
      '{"id":"last","title":"Only a title"}',
    ].join('\n');
    const { documents, errors } = parseJsonl(text, 'f.jsonl');
    expect(documents.map((d) => d.source)).toEqual(['f.jsonl#ok', 'f.jsonl#last']);
    expect(errors.map((e) => e.line)).toEqual([2, 3, 4, 5, 6, 7]);
    expect(errors[0]?.message).toMatch(/invalid JSON/);
    expect(errors[2]?.message).toMatch(/missing "id"/);
    expect(documents[1]?.sections[0]?.segments[0]?.text).toBe('Only a title');
  });

  it('handles CRLF line endings and an empty input', () => {
    expect(parseJsonl('{"id":"a","text":"x"}\r\n{"id":"b","text":"y"}\r\n', 'f').documents).toHaveLength(2);
    expect(parseJsonl('', 'f')).toEqual({ documents: [], errors: [] });
  });

  it('scopes ids by file, so two files never replace each other’s records', () => {
    const line = '{"id":"d2","text":"two"}';
    const a = parseJsonl(line, 'a.jsonl').documents[0];
    const b = parseJsonl(line, 'b.jsonl').documents[0];
    expect([a?.source, b?.source]).toEqual(['a.jsonl#d2', 'b.jsonl#d2']);
    expect(a?.meta).toEqual({ id: 'd2' });
  });

  it('keeps the number 1 and the string "1" apart, and the raw id with its type in meta', () => {
    const { documents, errors } = parseJsonl(
      '{"id":1,"text":"number"}\n{"id":"1","text":"string"}',
      'x.jsonl',
    );
    expect(errors).toEqual([]);
    expect(documents.map((d) => [d.source, d.meta['id'], d.title])).toEqual([
      ['x.jsonl#n:1', 1, '1'],
      ['x.jsonl#1', '1', '1'],
    ]);
  });

  it('keeps the last line of a repeated id and reports each earlier line', () => {
    const text = [
      '{"id":"d1","text":"first d1"}',
      '{"id":"d2","text":"only d2"}',
      '{"id":"d1","text":"second d1"}',
      '{"id":"d1","text":"third d1"}',
    ].join('\n');
    const { documents, errors } = parseJsonl(text, 'dup.jsonl');
    expect(documents.map((d) => [d.source, d.sections[0]?.segments[0]?.text])).toEqual([
      ['dup.jsonl#d2', 'only d2'],
      ['dup.jsonl#d1', 'third d1'],
    ]);
    expect(errors).toEqual([
      { line: 1, message: 'duplicate id "d1" at line 1, line 3 wins' },
      { line: 3, message: 'duplicate id "d1" at line 3, line 4 wins' },
    ]);
  });

  // The public data sets live beside the project (`../shared/data`, or $QUIVER_DATA).
  const scifact = dataSet('scifact/corpus.jsonl');
  it('parses the BEIR SciFact corpus: 5,183 docs, ids scoped by file', async (ctx) => {
    needsDataSet(ctx, scifact);
    const bytes = await readFile(scifact.path);
    const { documents, errors } = await readJsonl({ source: 'corpus.jsonl', bytes });
    expect(errors).toEqual([]);
    expect(documents).toHaveLength(5183);
    expect(documents[0]?.source).toBe('corpus.jsonl#4983');
    expect(documents[0]?.meta['id']).toBe('4983');
  });
});

describe('jsonlSource / parseJsonlSource', () => {
  it('writes strings as they are and numbers as n:<number>, escaping what would be ambiguous', () => {
    expect(jsonlSource('corpus.jsonl', 'd2')).toBe('corpus.jsonl#d2');
    expect(jsonlSource('corpus.jsonl', 2)).toBe('corpus.jsonl#n:2');
    expect(jsonlSource('c', 1.5)).toBe('c#n:1.5');
    expect(encodeJsonlId('a#b%c')).toBe('a%23b%25c');
    expect(encodeJsonlId('n:2')).toBe('n%3A2');
    expect(encodeJsonlId(-0)).toBe('n:0');
  });

  it('reads back what it wrote and nothing it could not have written', () => {
    expect(parseJsonlSource('dir/my#notes.jsonl#d%232')).toEqual({
      fileSource: 'dir/my#notes.jsonl',
      id: 'd#2',
    });
    expect(parseJsonlSource('notes.md')).toBeNull();
    expect(parseJsonlSource('c#n:')).toBeNull();
    expect(parseJsonlSource('c#n:07')).toBeNull(); // not the shortest form of 7
    expect(parseJsonlSource('c#50%')).toBeNull();
    expect(parseJsonlSource('c#')).toBeNull();
  });

  it('round-trips every id and keeps every two distinct ids distinct (property)', () => {
    const id = fc.oneof(
      fc.string({ minLength: 1 }).filter((s) => s.trim() !== ''),
      fc.constantFrom('n:1', '%23', '#', '%', 'n%3A'),
      fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n)),
      fc.integer(),
    );
    fc.assert(
      fc.property(fc.string(), id, id, (file, a, b) => {
        const sa = jsonlSource(file, a);
        expect(parseJsonlSource(sa)).toEqual({ fileSource: file, id: a });
        if (!Object.is(a, b) && a !== b) expect(jsonlSource(file, b)).not.toBe(sa);
      }),
      { numRuns: 2000 },
    );
  });
});
