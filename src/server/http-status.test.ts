import { describe, expect, it } from 'vitest';
import { ERROR_CODES, QuiverError, type QuiverErrorCode } from '../errors.js';
import { errorReply, HTTP_STATUS } from './http-status.js';

describe('HTTP statuses', () => {
  it('every error code has a client or server error status', () => {
    for (const code of Object.keys(ERROR_CODES) as QuiverErrorCode[]) {
      const s = HTTP_STATUS[code];
      expect(s >= 400 && s < 600).toBe(true);
    }
    expect(Object.keys(HTTP_STATUS).sort()).toEqual(Object.keys(ERROR_CODES).sort());
  });

  it('what the sender can fix is 4xx, what failed on the server 5xx', () => {
    for (const c of ['BAD_INPUT', 'NOT_FOUND', 'FILE_TOO_LARGE', 'CONFLICT', 'BUDGET'] as const)
      expect(HTTP_STATUS[c]).toBeLessThan(500);
    for (const c of ['STORE', 'INTERNAL', 'REMOTE', 'TIMEOUT', 'NO_SPACE'] as const)
      expect(HTTP_STATUS[c]).toBeGreaterThanOrEqual(500);
  });
});

describe('errorReply', () => {
  it('keeps a QuiverError’s code and message', () => {
    expect(errorReply(new QuiverError('NOT_FOUND', 'quiver: no section x#1'))).toEqual({
      status: 404,
      body: { error: { code: 'NOT_FOUND', message: 'quiver: no section x#1' } },
    });
  });

  it('never passes on another exception’s text or stack', () => {
    const r = errorReply(new Error('SQLITE_IOERR at /home/me/secret/vault.db token=abc'));
    expect(r.status).toBe(500);
    expect(r.body.error.code).toBe('INTERNAL');
    expect(JSON.stringify(r)).not.toMatch(/secret|token=|SQLITE|at /);
    expect(errorReply('a string').status).toBe(500);
  });
});
