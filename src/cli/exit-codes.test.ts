import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, type QuiverErrorCode } from '../errors.js';
import { EXIT, EXIT_TABLE, exitCodeFor } from './exit-codes.js';

describe('exit codes', () => {
  it('every library error code is in exactly one row of the table', () => {
    const listed = EXIT_TABLE.flatMap((r) => r.codes);
    expect([...listed].sort()).toEqual(Object.keys(ERROR_CODES).sort());
    expect(new Set(listed).size).toBe(listed.length);
  });

  it('maps codes through the table; exit numbers are distinct', () => {
    expect(exitCodeFor('NOT_FOUND')).toBe(EXIT.NOT_FOUND);
    expect(exitCodeFor('NO_SPACE')).toBe(9);
    expect(exitCodeFor('SCHEMA')).toBe(EXIT.INCOMPATIBLE);
    for (const code of Object.keys(ERROR_CODES) as QuiverErrorCode[])
      expect(EXIT_TABLE.find((r) => r.codes.includes(code))?.exit).toBe(exitCodeFor(code));
    expect(new Set(EXIT_TABLE.map((r) => r.exit)).size).toBe(EXIT_TABLE.length);
  });

  it("README's exit-code table lists every row with its codes", () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    for (const row of EXIT_TABLE) {
      const line = readme.split('\n').find((l) => new RegExp(`^\\|\\s*${row.exit}\\s*\\|`).test(l));
      expect(line, `README row for exit ${row.exit}`).toBeDefined();
      for (const c of row.codes) expect(line).toContain(`\`${c}\``);
    }
  });
});
