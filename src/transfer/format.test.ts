import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isQuiverError } from '../errors.js';
import { decodeRecord, decodeVectors, encodeRecord, encodeVectors, type ExportRecord } from './format.js';

/** Lines as node:readline splits them (\n, \r\n and a lone \r end a line). */
const readlineSplit = (text: string): string[] => text.split(/\r?\n|\r(?!\n)/).filter((l) => l !== '');

const json: fc.Arbitrary<unknown> = fc.jsonValue();
const text = fc.string({ unit: 'binary', maxLength: 200 });

const documentRecord = fc
  .record({
    id: fc.stringMatching(/^[0-9a-f]{16}$/),
    source: text,
    title: text,
    meta: fc.dictionary(text, json, { maxKeys: 5 }),
    sectionTexts: fc.array(text, { minLength: 1, maxLength: 4 }),
    lang: fc.option(fc.constantFrom('en', 'de', 'fr')),
    supersededBy: fc.option(fc.stringMatching(/^[0-9a-f]{12}$/)),
  })
  .map((d): ExportRecord => ({
    type: 'document',
    supersededBy: d.supersededBy,
    document: {
      id: d.id,
      source: d.source,
      title: d.title,
      kind: 'md',
      // As a store holds it: through JSON (so no -0, which JSON cannot write).
      meta: JSON.parse(JSON.stringify(d.meta)) as Record<string, unknown>,
      contentHash: 'h',
      pages: null,
      addedAt: '2024-01-01T00:00:00.000Z',
      updatedAt: '2024-01-02T00:00:00.000Z',
      batchId: 'b1',
      lang: d.lang,
    },
    sections: d.sectionTexts.map((t, seq) => ({
      id: `${d.id}#${seq}`,
      docId: d.id,
      parentId: seq === 0 ? null : `${d.id}#0`,
      seq,
      level: seq === 0 ? 0 : 1,
      title: t.slice(0, 10),
      breadcrumb: t.slice(0, 20),
      pageStart: null,
      pageEnd: null,
      text: t,
      lang: d.lang,
    })),
    chunks: d.sectionTexts.map((t, i) => ({
      id: i + 1,
      docId: d.id,
      sectionId: `${d.id}#${i}`,
      ord: 0,
      text: t,
      page: null,
    })),
    vectors: [],
  }));

describe('export lines', () => {
  it('any document text and meta survive encode → readline split → decode', () => {
    fc.assert(
      fc.property(documentRecord, (r) => {
        const line = encodeRecord(r);
        const lines = readlineSplit(line);
        expect(lines).toHaveLength(1);
        expect(decodeRecord(lines[0]!, 1)).toEqual(r);
      }),
      { numRuns: 300 },
    );
  });

  it('meta values, blobs and verdicts survive too', () => {
    fc.assert(
      fc.property(
        text,
        text,
        fc.uint8Array({ maxLength: 64 }),
        fc.boolean(),
        (key, value, bytes, verdict) => {
          const meta: ExportRecord = { type: 'meta', key, value };
          expect(decodeRecord(readlineSplit(encodeRecord(meta))[0]!, 1)).toEqual(meta);
          const blob = decodeRecord(
            encodeRecord({ type: 'blob', name: key, data: Buffer.from(bytes).toString('base64') }),
            1,
          );
          expect(blob.type === 'blob' && [...Buffer.from(blob.data, 'base64')]).toEqual([...bytes]);
          expect(decodeRecord(encodeRecord({ type: 'verdict', key, verdict }), 1)).toEqual({
            type: 'verdict',
            key,
            verdict,
          });
        },
      ),
    );
  });

  it('vectors come back bit for bit, half precision when exact, single otherwise (NaN payloads, -0 too)', () => {
    const bits = fc.array(fc.integer({ min: 0, max: 0xffffffff }), { minLength: 1, maxLength: 12 });
    fc.assert(
      fc.property(fc.array(bits, { minLength: 1, maxLength: 4 }), fc.boolean(), (rows, halves) => {
        const dims = rows[0]!.length;
        const vectors = rows.map((r, i) => {
          const u = new Uint32Array(dims);
          for (let j = 0; j < dims; j++) u[j] = halves ? ((r[j] ?? 0) & 0xffff0000) >>> 0 : (r[j] ?? 0);
          return { fingerprint: 'fp', chunkId: i + 10, vector: new Float32Array(u.buffer) };
        });
        const groups = encodeVectors(vectors);
        const back = decodeVectors(groups, 'test');
        expect(back.map((v) => v.chunkId)).toEqual(vectors.map((v) => v.chunkId));
        back.forEach((v, i) =>
          expect([...new Uint32Array(v.vector.buffer)]).toEqual([
            ...new Uint32Array(vectors[i]!.vector.buffer),
          ]),
        );
      }),
    );
  });

  it('a vector that is exactly half precision is written in 2 bytes a value', () => {
    const v = new Float32Array([0.5, -0, 1.5, 65504]);
    const [g] = encodeVectors([{ fingerprint: 'fp', chunkId: 1, vector: v }]);
    expect(g).toMatchObject({ encoding: 'f16', dims: 4, chunks: [1] });
    expect(Buffer.from(g!.data, 'base64')).toHaveLength(8);
    const [h] = encodeVectors([{ fingerprint: 'fp', chunkId: 1, vector: new Float32Array([0.1]) }]);
    expect(h!.encoding).toBe('f32');
  });

  it('rejects what is not a record with BAD_INPUT naming the line and the field', () => {
    const bad = (line: string, want: RegExp): void => {
      let err: unknown;
      try {
        decodeRecord(line, 7);
      } catch (e) {
        err = e;
      }
      expect(isQuiverError(err, 'BAD_INPUT')).toBe(true);
      expect((err as Error).message).toMatch(want);
    };
    bad('{"type":"meta","key":"k"', /line 7 is not JSON/);
    bad('{"type":"nope"}', /line 7 is not a quiver export record/);
    bad('{"type":"meta","key":"k","value":3}', /line 7 .* at value/);
    bad('{"type":"blob","name":"b","data":"***"}', /not base64/);
    const doc = JSON.parse(JSON.stringify(fc.sample(documentRecord, { numRuns: 1, seed: 1 })[0])) as {
      chunks: { sectionId: string }[];
    };
    doc.chunks[0]!.sectionId = 'elsewhere#0';
    bad(JSON.stringify(doc), /chunk 1 does not belong/);
  });
});
