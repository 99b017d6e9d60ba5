// A stack overflow inside a reader is a per-file CORRUPT_FILE, not a crash of the whole ingest.
import { describe, expect, it, vi } from 'vitest';
import { isQuiverError } from '../errors.js';
import { readBytes } from './read-source.js';

vi.mock('./markdown.js', () => ({
  readMarkdown: () => {
    throw new RangeError('Maximum call stack size exceeded');
  },
}));

describe('readBytes at the reader boundary', () => {
  it('turns a RangeError thrown by a reader into CORRUPT_FILE naming the file', async () => {
    const err = await readBytes(new TextEncoder().encode('# fine looking\n'), 'notes/odd.md').catch(
      (e: unknown) => e,
    );
    expect(isQuiverError(err, 'CORRUPT_FILE')).toBe(true);
    expect((err as Error).message).toBe(
      'quiver: notes/odd.md cannot be parsed safely as md (Maximum call stack size exceeded); it is probably nested too deeply',
    );
    expect((err as Error).cause).toBeInstanceOf(RangeError);
  });
});
