import { describe, expect, it } from 'vitest';
import { firstLineTitle, parseText, readText } from './text.js';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('readText', () => {
  it('takes the first non-empty line as the title and keeps paragraphs in one root section', async () => {
    const doc = await readText({
      source: 'a/notes.txt',
      bytes: enc('\n\n# Shopping list\r\n\r\nEggs\r\nMilk\r\n\r\nBread\n'),
    });
    expect(doc.title).toBe('Shopping list');
    expect(doc.kind).toBe('txt');
    expect(doc.sections).toEqual([
      {
        level: 0,
        title: 'Shopping list',
        segments: [{ page: null, text: '# Shopping list\n\nEggs\nMilk\n\nBread' }],
      },
    ]);
  });

  it('clips long first lines to 80 code points at a word boundary', () => {
    const title = firstLineTitle('word '.repeat(40));
    expect([...title].length).toBeLessThanOrEqual(80);
    expect(title.endsWith('word…')).toBe(true);
  });

  it('falls back to the file name, and an explicit title wins', () => {
    expect(parseText('   \n  ', 'dir/empty-ish.txt').title).toBe('empty-ish');
    expect(parseText('line', 'a.txt', 'Given').title).toBe('Given');
  });
});
