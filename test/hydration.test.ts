import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Vault } from '../src/index.js';
import { tempDir } from './helpers.js';

const { dir, cleanup } = tempDir('quiver-hydrate-');
afterAll(cleanup);

const para = (word: string): string =>
  Array.from(
    { length: 12 },
    (_, i) => `The ${word} notes record entry ${i} of the long survey of the valley.`,
  ).join(' ');

describe('snippets across vaults in one process', () => {
  it('are chosen from each vault’s own chunk text, though chunk ids repeat between vaults', async () => {
    const a = await Vault.open({ overrides: { vault: join(dir, 'a.db') } });
    await a.add([{ text: `${para('kestrel')}\n\n${para('heron')}`, source: 'a.md' }]);
    expect((await a.search('kestrel', { limit: 1 })).hits[0]?.snippets[0]).toContain('kestrel');
    await a.close();
    // Same shape, words swapped: chunk 1 here holds what chunk 2 held in the first vault.
    const b = await Vault.open({ overrides: { vault: join(dir, 'b.db') } });
    await b.add([{ text: `${para('heron')}\n\n${para('kestrel')}`, source: 'b.md' }]);
    const hit = (await b.search('kestrel', { limit: 1 })).hits[0]!;
    expect(hit.chunkIds.length).toBeGreaterThan(1);
    expect(hit.snippets[0]).toContain('kestrel');
    await b.close();
  });
});
