// Issue 15: notes in Chinese and Japanese are searchable by the words inside their sentences, in a
// vault that also holds the English demo corpus (a real SQLite vault, the default configuration).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Vault } from '../src/vault.js';
import { tempDir } from './helpers.js';

const tmp = tempDir('quiver-lang-');
let vault: Vault;

const NOTES = [
  {
    source: 'note:zh-coffee',
    title: '咖啡笔记',
    text: '意式浓缩咖啡的萃取时间通常为二十五到三十秒。研磨度太细会导致萃取过度，味道发苦。',
    words: ['咖啡', '萃取', '时间', '研磨', '味道'],
  },
  {
    source: 'note:zh-garden',
    title: '花园',
    text: '番茄需要充足的阳光和稳定的浇水。叶子发黄通常说明缺少养分。',
    words: ['番茄', '阳光', '浇水', '叶子', '养分'],
  },
  {
    source: 'note:ja-bread',
    title: 'パンの覚え書き',
    text: 'サワードウの発酵は室温で八時間ほどかかります。生地が二倍に膨らんだら成形します。',
    words: ['発酵', '室温', '生地', '成形'],
  },
  {
    source: 'note:ja-tea',
    title: 'お茶',
    text: '抹茶は低い温度のお湯で点てると苦味が少なくなります。',
    words: ['抹茶', '温度', '苦味'],
  },
];

beforeAll(async () => {
  vault = await Vault.open({ overrides: { vault: join(tmp.dir, 'v.db') }, env: {} });
  await vault.add(['demo/corpus', ...NOTES.map((n) => ({ text: n.text, title: n.title, source: n.source }))]);
}, 120_000);
afterAll(async () => {
  await vault.close();
  tmp.cleanup();
});

describe('space-less scripts', () => {
  for (const note of NOTES)
    it(`every word of ${note.source} inside its sentence finds the note in the top 3`, async () => {
      for (const w of note.words) {
        const { hits } = await vault.search(w, { limit: 3 });
        expect(
          hits.map((h) => h.source),
          w,
        ).toContain(note.source);
      }
    });

  it('a query of several words, written without spaces, finds its note first', async () => {
    expect((await vault.search('萃取时间', { limit: 3 })).hits[0]?.source).toBe('note:zh-coffee');
    expect((await vault.search('発酵時間', { limit: 3 })).hits[0]?.source).toBe('note:ja-bread');
  });

  it('English search over the same vault is unchanged by the CJK notes', async () => {
    const { hits } = await vault.search('how long should espresso extract', { limit: 3 });
    expect(hits[0]?.source).toMatch(/espresso/);
  });
});
