import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parseJsonl, readJsonl } from './jsonl.js';

describe('parseJsonl', () => {
  it('reads id/_id, title, text and meta per line', () => {
    const { documents, errors } = parseJsonl(
      '{"id":"a","title":"A","text":"alpha","meta":{"k":1}}\n\n{"_id":7,"text":"seven","metadata":{"m":2}}\n',
    );
    expect(errors).toEqual([]);
    expect(
      documents.map((d) => [d.source, d.title, d.kind, d.meta, d.sections[0]?.segments[0]?.text]),
    ).toEqual([
      ['a', 'A', 'jsonl', { k: 1 }, 'alpha'],
      ['7', '7', 'jsonl', { m: 2 }, 'seven'],
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
    const { documents, errors } = parseJsonl(text);
    expect(documents.map((d) => d.source)).toEqual(['ok', 'last']);
    expect(errors.map((e) => e.line)).toEqual([2, 3, 4, 5, 6, 7]);
    expect(errors[0]?.message).toMatch(/invalid JSON/);
    expect(errors[2]?.message).toMatch(/missing "id"/);
    expect(documents[1]?.sections[0]?.segments[0]?.text).toBe('Only a title');
  });

  it('handles CRLF line endings and an empty input', () => {
    expect(parseJsonl('{"id":"a","text":"x"}\r\n{"id":"b","text":"y"}\r\n').documents).toHaveLength(2);
    expect(parseJsonl('')).toEqual({ documents: [], errors: [] });
  });

  const scifact = '/work/shared/data/scifact/corpus.jsonl';
  it.skipIf(!existsSync(scifact))(
    'parses the BEIR SciFact corpus: 5,183 docs in under a second',
    async () => {
      const bytes = await readFile(scifact);
      const t0 = performance.now();
      const { documents, errors } = await readJsonl({ source: 'corpus.jsonl', bytes });
      const ms = performance.now() - t0;
      expect(errors).toEqual([]);
      expect(documents).toHaveLength(5183);
      expect(documents[0]?.source).toBe('4983');
      expect(ms).toBeLessThan(1000);
    },
  );
});
