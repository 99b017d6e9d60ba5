import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitCommand } from './argv.js';
import { GLOBAL_OPTIONS } from './command.js';

describe('splitCommand', () => {
  it('moves global options written before the command after it, values included', () => {
    expect(splitCommand(['--vault', 'v.db', 'add', 'notes/'], GLOBAL_OPTIONS)).toMatchObject({
      name: 'add',
      rest: ['notes/', '--vault', 'v.db'],
    });
    expect(splitCommand(['--vault=v.db', '-q', '--json', 'search', 'x'], GLOBAL_OPTIONS).rest).toEqual([
      'x',
      '--vault=v.db',
      '-q',
      '--json',
    ]);
  });

  it('stops at the first token that is not a global option, which becomes the name', () => {
    expect(splitCommand(['--version'], GLOBAL_OPTIONS).name).toBe('--version');
    expect(splitCommand(['--bogus', 'add'], GLOBAL_OPTIONS)).toMatchObject({
      name: '--bogus',
      rest: ['add'],
    });
    expect(splitCommand([], GLOBAL_OPTIONS)).toEqual({ name: undefined, rest: [], leading: [] });
    expect(splitCommand(['--help'], GLOBAL_OPTIONS)).toMatchObject({ name: undefined, leading: ['--help'] });
  });

  it('keeps arguments after -- after it', () => {
    expect(splitCommand(['--json', 'add', '--', '--weird-file'], GLOBAL_OPTIONS).rest).toEqual([
      '--json',
      '--',
      '--weird-file',
    ]);
  });

  it('property: the same tokens come out, only reordered, whatever globals lead', () => {
    const global = fc.constantFrom(
      ['--json'],
      ['--quiet'],
      ['--vault', 'a.db'],
      ['--wait', '3'],
      ['--vault=b.db'],
    );
    fc.assert(
      fc.property(
        fc.array(global, { maxLength: 4 }),
        fc.array(fc.string({ maxLength: 6 }), { maxLength: 4 }),
        (gs, args) => {
          const leading = gs.flat();
          const out = splitCommand([...leading, 'search', ...args], GLOBAL_OPTIONS);
          expect(out.name).toBe('search');
          expect([...out.rest].sort()).toEqual([...args, ...leading].sort());
        },
      ),
    );
  });
});
