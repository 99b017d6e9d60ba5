import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { allowedDocIds, docFilterSql } from './doc-filter.js';

/** A minimal `documents` + `marks` pair: a (md, notes/, Jan), b (pdf, papers/, Mar), c (md, notes/, May, superseded). */
function fixture(): Database.Database {
  const db = new Database(':memory:');
  db.exec(`
    CREATE TABLE documents (id TEXT, kind TEXT, source TEXT, added_at TEXT, superseded_by TEXT);
    CREATE TABLE marks (doc_id TEXT, noisy INTEGER);
    INSERT INTO documents VALUES ('a', 'md', 'notes/a.md', '2024-01-01', NULL);
    INSERT INTO documents VALUES ('b', 'pdf', 'papers/b.pdf', '2024-03-01', NULL);
    INSERT INTO documents VALUES ('c', 'md', 'notes/c.md', '2024-05-01', 'batch2');
    INSERT INTO marks VALUES ('b', 1);
  `);
  return db;
}

describe('docFilterSql', () => {
  it('is empty without a filter or noisy marks', () => {
    expect(docFilterSql(undefined, false)).toEqual({ sql: '', params: [] });
    expect(docFilterSql({}, false)).toEqual({ sql: '', params: [] });
  });

  it('ignores an empty kinds list', () => {
    expect(docFilterSql({ kinds: [] }, false)).toEqual({ sql: '', params: [] });
  });

  it('matches nothing for an empty docIds list', () => {
    expect(docFilterSql({ docIds: [] }, false)).toEqual({ sql: 'd.id IN (NULL)', params: [] });
  });

  it('joins every clause with AND, parameters in clause order', () => {
    const f = docFilterSql(
      {
        kinds: ['md', 'pdf'],
        docIds: ['a'],
        sourcePrefix: 'notes/',
        addedAfter: '2024-01-01',
        addedBefore: '2024-12-31',
      },
      false,
    );
    expect(f.sql).toBe(
      'd.kind IN (?,?) AND d.id IN (?) AND substr(d.source, 1, ?) = ? AND d.added_at >= ? AND d.added_at <= ?',
    );
    expect(f.params).toEqual(['md', 'pdf', 'a', 6, 'notes/', '2024-01-01', '2024-12-31']);
  });

  it('excludes noisy documents only when some are marked and includeNoisy is not set', () => {
    const noisy = 'd.id NOT IN (SELECT doc_id FROM marks WHERE noisy = 1)';
    expect(docFilterSql(undefined, true).sql).toBe(noisy);
    expect(docFilterSql({ includeNoisy: true }, true).sql).toBe('');
    expect(docFilterSql({ includeNoisy: false }, false).sql).toBe('');
  });
});

describe('allowedDocIds', () => {
  it('is undefined when nothing restricts', () => {
    expect(allowedDocIds(fixture(), undefined, false)).toBeUndefined();
  });

  it('selects live documents by prefix, kind and date (superseded ones never)', () => {
    const db = fixture();
    expect(allowedDocIds(db, { sourcePrefix: 'notes/' }, false)).toEqual(new Set(['a']));
    expect(allowedDocIds(db, { kinds: ['pdf'] }, false)).toEqual(new Set(['b']));
    expect(allowedDocIds(db, { addedAfter: '2024-02-01' }, false)).toEqual(new Set(['b']));
    expect(allowedDocIds(db, { docIds: [] }, false)).toEqual(new Set());
  });

  it('drops noisy documents unless includeNoisy', () => {
    const db = fixture();
    expect(allowedDocIds(db, undefined, true)).toEqual(new Set(['a']));
    expect(allowedDocIds(db, { includeNoisy: true, addedAfter: '2000-01-01' }, true)).toEqual(
      new Set(['a', 'b']),
    );
  });

  it('treats % and _ in a source prefix literally (substr, not LIKE)', () => {
    expect(allowedDocIds(fixture(), { sourcePrefix: 'note%' }, false)).toEqual(new Set());
  });
});
