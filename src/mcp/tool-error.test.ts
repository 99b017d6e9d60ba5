import { describe, expect, it } from 'vitest';
import { ERROR_CODES, QuiverError, type QuiverErrorCode } from '../errors.js';
import { NEXT_STEP, toolError } from './tool-error.js';

describe('toolError', () => {
  it('has a next step for every error code', () => {
    expect(Object.keys(NEXT_STEP).sort()).toEqual(Object.keys(ERROR_CODES).sort());
  });

  it('keeps a QuiverError’s code and message, with the next step', () => {
    const r = toolError(new QuiverError('NOT_FOUND', 'quiver: no section a#1'));
    expect(r.isError).toBe(true);
    expect(JSON.parse(r.content[0]!.text)).toEqual({
      error: { code: 'NOT_FOUND', message: 'quiver: no section a#1', next: NEXT_STEP.NOT_FOUND },
    });
  });

  it('turns anything else into INTERNAL without its text, and logs it', () => {
    const lines: string[] = [];
    const r = toolError(new Error('secret path /home/x'), (l) => lines.push(l));
    const e = (JSON.parse(r.content[0]!.text) as { error: { code: QuiverErrorCode; message: string } }).error;
    expect(e.code).toBe('INTERNAL');
    expect(e.message).not.toContain('secret');
    expect(lines.join('\n')).toContain('secret path');
  });
});
