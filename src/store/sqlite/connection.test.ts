import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { isQuiverError } from '../../errors.js';
import { busyAsConflict, openVaultDatabase } from './connection.js';

const dir = mkdtempSync(join(tmpdir(), 'quiver-conn-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('openVaultDatabase and write errors', () => {
  it('a vault another program holds locked is CONFLICT (exit 8), not "not a quiver vault"', () => {
    const file = join(dir, 'locked.db');
    openVaultDatabase(file, false, 5000).close();
    const other = new Database(file);
    other.pragma('locking_mode = EXCLUSIVE');
    other.exec('BEGIN EXCLUSIVE');
    try {
      for (const readonly of [true, false]) {
        let err: unknown;
        try {
          openVaultDatabase(file, readonly, 50).close();
        } catch (e) {
          err = e;
        }
        expect(isQuiverError(err, 'CONFLICT'), String(err)).toBe(true);
        expect((err as Error).message).toMatch(/locked by another program/);
      }
    } finally {
      other.exec('COMMIT');
      other.close();
    }
    openVaultDatabase(file, true, 50).close();
  });

  it('a full disk (SQLITE_FULL, ENOSPC) becomes NO_SPACE; a busy lock CONFLICT; anything else passes', () => {
    const failWith = (code: string) => () =>
      busyAsConflict(() => {
        throw Object.assign(new Error(code), { code });
      });
    for (const code of ['SQLITE_FULL', 'ENOSPC', 'EDQUOT'])
      expect(failWith(code)).toThrow(expect.objectContaining({ code: 'NO_SPACE' }));
    for (const code of ['SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_LOCKED'])
      expect(failWith(code)).toThrow(expect.objectContaining({ code: 'CONFLICT' }));
    expect(failWith('SQLITE_CORRUPT')).toThrow(expect.objectContaining({ code: 'SQLITE_CORRUPT' }));
    expect(busyAsConflict(() => 7)).toBe(7);
  });
});
