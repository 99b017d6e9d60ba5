import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, describePostgres, type TestDatabase } from './_test-database.js';
import { createPool, redactUrl, withOption } from './connection.js';

describe('connection URLs', () => {
  it('adds a startup setting, keeping the options a URL had', () => {
    expect(new URL(withOption('postgres://h/db', 'jit=off')).searchParams.get('options')).toBe('-c jit=off');
    const both = withOption('postgres://h/db?options=-c%20search_path%3Ds1', 'jit=off');
    expect(new URL(both).searchParams.get('options')).toBe('-c search_path=s1 -c jit=off');
  });

  it('never shows a password (property)', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9._~!$&'()*+,;=-]{1,20}$/), (password) => {
        const shown = redactUrl(`postgres://quiver:${encodeURIComponent(password)}@db.internal:5432/notes`);
        expect(shown).toBe('postgres://quiver:***@db.internal:5432/notes');
      }),
    );
    expect(redactUrl('postgres://db/notes')).toBe('postgres://db/notes');
  });
});

describePostgres('createPool', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => db?.drop());

  it('opens connections with JIT off and bigint as numbers, keeping the URL’s own options', async () => {
    const pool = createPool(withOption(db.url, 'search_path=public'));
    try {
      const r = await pool.query<{ jit: string; path: string; n: unknown }>(
        `SELECT current_setting('jit') AS jit, current_setting('search_path') AS path, 9007199254740991::bigint AS n`,
      );
      expect(r.rows[0]).toEqual({ jit: 'off', path: 'public', n: 9007199254740991 });
    } finally {
      await pool.end();
    }
  });
});
