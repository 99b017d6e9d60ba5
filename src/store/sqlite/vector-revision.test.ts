import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { migrate } from './schema.js';
import {
  appendRevisionLog,
  bumpVectorRevision,
  INITIAL_VECTOR_REV,
  isReconcilable,
  nextChunkIdFloor,
  nextRevision,
  parseRevision,
  raiseChunkHighWater,
  readVectorBreak,
  readVectorRevision,
  readVectorRevisionLog,
} from './vector-revision.js';

describe('parseRevision / nextRevision', () => {
  it('parses n.token and refuses malformed stamps', () => {
    expect(parseRevision('12.ab3f')).toEqual({ n: 12, token: 'ab3f' });
    expect(parseRevision(INITIAL_VECTOR_REV)).toEqual({ n: 0, token: 'initial' });
    for (const bad of ['', '12', '.ab', '12.', '-1.ab', '1.a.b', '1.AB', '99999999999999999999.a'])
      expect(parseRevision(bad)).toBeNull();
  });

  it('counts up from the current revision, or from 0 when none', () => {
    expect(nextRevision(null, 'x1')).toBe('1.x1');
    expect(nextRevision('41.abc', 'def')).toBe('42.def');
    expect(nextRevision('garbage', 'a')).toBe('1.a');
  });

  it('round-trips any n and token', () => {
    fc.assert(
      fc.property(fc.nat(), fc.stringMatching(/^[0-9a-z]{1,12}$/), (n, t) => {
        expect(parseRevision(`${n}.${t}`)).toEqual({ n, token: t });
      }),
    );
  });
});

describe('appendRevisionLog', () => {
  it('appends and keeps the newest cap entries', () => {
    expect(appendRevisionLog([], 'a', 3)).toEqual(['a']);
    expect(appendRevisionLog(['a', 'b', 'c'], 'd', 3)).toEqual(['b', 'c', 'd']);
    expect(appendRevisionLog(['a'], 'b', 0)).toEqual([]);
  });
});

describe('isReconcilable', () => {
  it('is true for the current revision and for an ancestor in the log', () => {
    expect(isReconcilable('3.c', '3.c', [], null)).toBe(true);
    expect(isReconcilable('1.a', '3.c', ['1.a', '2.b'], null)).toBe(true);
  });

  it('is false for a stamp from another history (same n, other token) or forgotten', () => {
    expect(isReconcilable('2.zz', '3.c', ['1.a', '2.b'], null)).toBe(false);
    expect(isReconcilable('0.initial', '3.c', ['1.a', '2.b'], null)).toBe(false);
  });

  it('is false when the stamp predates an in-place rewrite of the fingerprint', () => {
    expect(isReconcilable('1.a', '3.c', ['1.a', '2.b'], 2)).toBe(false);
    expect(isReconcilable('2.b', '3.c', ['1.a', '2.b'], 2)).toBe(true);
    expect(isReconcilable('3.c', '3.c', ['1.a', '2.b'], 4)).toBe(false);
  });

  it('is false for a malformed stamp', () => {
    expect(isReconcilable('nope', 'nope', ['nope'], null)).toBe(false);
  });
});

describe('revision and high-water mark in a database', () => {
  const fresh = (): Database.Database => {
    const db = new Database(':memory:');
    migrate(db);
    return db;
  };

  it('bumps the revision, logs the previous one and records breaks per fingerprint', () => {
    const db = fresh();
    expect(readVectorRevision(db)).toBe(INITIAL_VECTOR_REV);
    const r1 = bumpVectorRevision(db);
    const r2 = bumpVectorRevision(db, 'fp:a');
    expect(parseRevision(r1)?.n).toBe(1);
    expect(parseRevision(r2)?.n).toBe(2);
    expect(readVectorRevision(db)).toBe(r2);
    expect(readVectorRevisionLog(db)).toEqual([INITIAL_VECTOR_REV, r1]);
    expect(readVectorBreak(db, 'fp:a')).toBe(2);
    expect(readVectorBreak(db, 'fp:b')).toBeNull();
    expect(r1).not.toBe(bumpVectorRevision(fresh()));
  });

  it('numbers new chunks above the highest deleted id, and only when needed', () => {
    const db = fresh();
    expect(nextChunkIdFloor(db)).toBeNull();
    db.exec(`INSERT INTO documents(rid, id, source, title, kind, content_hash, added_at, updated_at, batch_id)
      VALUES (1, 'd', 's', 't', 'md', 'h', 'x', 'x', 'b')`);
    db.exec(
      `INSERT INTO chunks(id, doc_rid, doc_id, section_id, ord, text) VALUES (5, 1, 'd', 'd#0', 0, 'x')`,
    );
    raiseChunkHighWater(db, 9);
    raiseChunkHighWater(db, 7);
    expect(nextChunkIdFloor(db)).toBe(10);
    db.exec(
      `INSERT INTO chunks(id, doc_rid, doc_id, section_id, ord, text) VALUES (12, 1, 'd', 'd#0', 1, 'x')`,
    );
    expect(nextChunkIdFloor(db)).toBeNull();
  });
});
