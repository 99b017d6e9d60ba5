import { describe, expect, it } from 'vitest';
import { answerRecall, gradeOf, relevanceKey, retrievalRow } from './runner.js';

const hit = (source: string, seq = 0, text = `${source} ${seq}`) => ({
  sectionId: `${source}-id#${seq}`,
  docId: `${source}-id`,
  source,
  text,
});

describe('relevanceKey', () => {
  it('prefers the section id, then the document id, then the source', () => {
    const h = hit('a.md', 2);
    expect(relevanceKey(h, { 'a.md': 1, 'a.md-id': 2, 'a.md-id#2': 3 })).toBe('a.md-id#2');
    expect(relevanceKey(h, { 'a.md': 1, 'a.md-id': 2 })).toBe('a.md-id');
    expect(relevanceKey(h, { 'a.md': 1 })).toBe('a.md');
    expect(relevanceKey(h, { 'b.md': 1 })).toBeNull();
    expect(gradeOf(h, { 'a.md': 3 })).toBe(3);
    expect(gradeOf(h, { 'b.md': 3 })).toBe(0);
    expect(gradeOf(h, { 'a.md': -1 })).toBe(0);
  });

  it('matches a relative path key that ends the source on a folder boundary, after every exact key', () => {
    const h = hit('/srv/vault/demo/corpus/coffee/espresso.md');
    expect(relevanceKey(h, { 'demo/corpus/coffee/espresso.md': 1 })).toBe('demo/corpus/coffee/espresso.md');
    expect(relevanceKey(h, { 'espresso.md': 1 })).toBe('espresso.md');
    expect(relevanceKey(h, { 'presso.md': 1 })).toBeNull();
    expect(relevanceKey(h, { '/coffee/espresso.md': 1 })).toBeNull();
    expect(relevanceKey(h, { '': 1 })).toBeNull();
    // An exact key wins over a suffix.
    expect(relevanceKey(h, { 'espresso.md': 1, '/srv/vault/demo/corpus/coffee/espresso.md-id': 2 })).toBe(
      '/srv/vault/demo/corpus/coffee/espresso.md-id',
    );
  });

  it('does not match inherited object keys', () => {
    expect(relevanceKey({ sectionId: 'toString', docId: 'constructor', source: '__proto__' }, {})).toBeNull();
  });
});

describe('retrievalRow', () => {
  it('counts a section hit for its document source key, once per document', () => {
    // ranks: b (not relevant), a#0 (relevant, grade 2), a#1 (same document: earns nothing), c (grade 1)
    const row = retrievalRow(
      [hit('b.md'), hit('a.md', 0), hit('a.md', 1), hit('c.md')],
      { 'a.md': 2, 'c.md': 1, 'z.md': 1 },
      { limit: 10 },
    );
    const dcg = 2 / Math.log2(3) + 1 / Math.log2(5);
    const idcg = 2 + 1 / Math.log2(3) + 1 / Math.log2(4);
    expect(row['ndcg@10']!.value).toBeCloseTo(dcg / idcg, 12);
    expect(row['recall@10']).toEqual({ num: 2, den: 3, value: 2 / 3 });
    expect(row['mrr@10']!.value).toBe(0.5);
    expect(row['precision@10']).toEqual({ num: 2, den: 10, value: 0.2 });
    expect(row['unique@10']).toEqual({ num: 4, den: 4, value: 1 });
    expect(row['recall@100']).toBeUndefined();
  });

  it('reports recall@100 only when the config retrieves at least 100', () => {
    const hits = Array.from({ length: 30 }, (_, i) => hit(`d${i}.md`));
    const row = retrievalRow(hits, { 'd25.md': 1, 'x.md': 1 }, { limit: 100 });
    expect(row['recall@10']!.value).toBe(0);
    expect(row['recall@100']).toEqual({ num: 1, den: 2, value: 0.5 });
  });

  it('is Undefined without labels (but unique@k still counts), and with nothing retrieved', () => {
    const row = retrievalRow([hit('a.md'), hit('a.md', 1, 'A.MD   0')], { 'a.md': 0 }, { limit: 10 });
    for (const m of ['ndcg@10', 'recall@10', 'mrr@10', 'precision@10']) {
      expect(row[m]).toEqual({ num: 0, den: 0, value: null, undefinedReason: 'no relevance labels' });
    }
    expect(row['unique@10']).toEqual({ num: 1, den: 2, value: 0.5 });
    const empty = retrievalRow([], { 'a.md': 1 }, { limit: 10 });
    expect(empty['ndcg@10']!.value).toBe(0);
    expect(empty['recall@10']!.value).toBe(0);
    expect(empty['unique@10']).toEqual({ num: 0, den: 0, value: null, undefinedReason: 'nothing retrieved' });
  });

  it('uses snippets when a hit has no text, and honours k', () => {
    const hits = [
      { sectionId: 's1', docId: 'd1', source: 'a', snippets: ['same words'] },
      { sectionId: 's2', docId: 'd2', source: 'b', snippets: ['Same, words!'] },
      { sectionId: 's3', docId: 'd3', source: 'c', snippets: ['other'] },
    ];
    const row = retrievalRow(hits, { b: 1 }, { limit: 10, k: 2 });
    expect(row['unique@2']).toEqual({ num: 1, den: 2, value: 0.5 });
    expect(row['mrr@2']!.value).toBe(0.5);
    expect(row['precision@2']).toEqual({ num: 1, den: 2, value: 0.5 });
  });
});

describe('answerRecall', () => {
  it('finds the reference in the answer, case-insensitively and across whitespace', () => {
    expect(answerRecall('It opens at 10:00 on  Tuesdays [1].', 'opens at 10:00 ON tuesdays')).toEqual({
      num: 1,
      den: 1,
      value: 1,
    });
    expect(answerRecall('It opens at ten.', '10:00')).toEqual({ num: 0, den: 1, value: 0 });
    expect(answerRecall('', '10:00').value).toBe(0);
  });

  it('is Undefined without a reference', () => {
    expect(answerRecall('The tower stands on the north campus.', 'no').value).toBe(0);
    expect(answerRecall('No, it does not.', 'no').value).toBe(1);
    expect(answerRecall('anything', undefined)).toEqual({
      num: 0,
      den: 0,
      value: null,
      undefinedReason: 'no reference answer',
    });
    expect(answerRecall('anything', '  ').value).toBeNull();
  });
});
