// Issue 15: notes in Chinese and Japanese are searchable by the words inside their sentences, and
// notes in Ukrainian, Russian and German by other inflected forms of their words, in a vault that
// also holds the English demo corpus (a real SQLite vault, the default configuration).
import { join } from 'node:path';
import Database from 'better-sqlite3';
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

/** Notes in inflected languages, and forms of their words that the notes do not contain. */
const INFLECTED = [
  {
    source: 'note:uk-bees',
    lang: 'uk',
    title: 'Бджоли і липа',
    text: 'Бджоли збирають нектар з квітів липи. Пасічник оглядає вулики щотижня і восени дає бджолам цукровий сироп. Липовий мед світлий і ароматний.',
    forms: ['бджолами', 'вулик', 'пасічники', 'нектаром', 'сиропом', 'квітами'],
  },
  {
    source: 'note:uk-bread',
    lang: 'uk',
    title: 'Житній хліб',
    text: 'Закваска для житнього хліба дозріває за дванадцять годин. Тісто треба добре вимішати руками, а потім випікати в гарячій духовці.',
    forms: ['закваски', 'хлібом', 'тістом', 'годину'],
  },
  {
    source: 'note:ru-coffee',
    lang: 'ru',
    title: 'Обжарка кофе',
    text: 'Кофейные зёрна обжаривают при высокой температуре. Свежая обжарка даёт яркий вкус, а старые зёрна теряют аромат.',
    forms: ['зерном', 'температуры', 'вкусом', 'ароматы'],
  },
  {
    source: 'note:de-garden',
    lang: 'de',
    title: 'Tomaten im Garten',
    text: 'Die Tomaten brauchen viel Sonne und regelmäßiges Gießen. Gelbe Blätter zeigen oft einen Mangel an Nährstoffen im Boden.',
    forms: ['Tomate', 'Blatt', 'Nährstoff', 'Böden'],
  },
];

beforeAll(async () => {
  vault = await Vault.open({ overrides: { vault: join(tmp.dir, 'v.db') }, env: {} });
  await vault.add([
    'demo/corpus',
    ...[...NOTES, ...INFLECTED].map((n) => ({ text: n.text, title: n.title, source: n.source })),
  ]);
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

  it('English search over the same vault is unchanged by the other notes', async () => {
    const { hits } = await vault.search('how long should espresso extract', { limit: 3 });
    expect(hits[0]?.source).toMatch(/espresso/);
  });
});

describe('inflected languages', () => {
  for (const note of INFLECTED)
    it(`${note.source} is analysed as ${note.lang}, and every other form of its words finds it in the top 3`, async () => {
      const [doc] = (await vault.docs()).filter((d) => d.source === note.source);
      expect(doc?.lang).toBe(note.lang);
      for (const form of note.forms) {
        expect(note.text.toLowerCase().split(/[^\p{L}]+/u)).not.toContain(form.toLowerCase());
        const { hits } = await vault.search(form, { limit: 3 });
        expect(
          hits.map((h) => h.source),
          form,
        ).toContain(note.source);
      }
    });

  it('the demo corpus is analysed as English', async () => {
    const docs = (await vault.docs()).filter((d) => !d.source.startsWith('note:'));
    expect(docs.length).toBeGreaterThan(5);
    expect(new Set(docs.map((d) => d.lang))).toEqual(new Set(['en']));
  });
});

describe('a vault indexed before languages were recorded', () => {
  it('is reported by doctor, and doctor --fix re-indexes its sections so other word forms find them', async () => {
    const legacy = join(tmp.dir, 'legacy.db');
    const v = await Vault.open({ overrides: { vault: legacy }, env: {} });
    const note = INFLECTED[0]!;
    await v.add(['demo/corpus', { text: note.text, title: note.title, source: note.source }]);
    await v.close();
    // What an earlier release left: no languages, and each section's words indexed as written.
    const db = new Database(legacy);
    db.exec('UPDATE documents SET lang = NULL; UPDATE sections SET lang = NULL');
    const rows = db
      .prepare(
        `SELECT s.rid, s.text, d.title FROM sections s JOIN documents d ON d.rid = s.doc_rid
         WHERE d.source = ? AND s.live = 1`,
      )
      .all(note.source) as { rid: number; text: string; title: string }[];
    for (const r of rows) {
      db.prepare('DELETE FROM sections_fts WHERE rowid = ?').run(r.rid);
      db.prepare('INSERT INTO sections_fts(rowid, body, title, heading) VALUES (?, ?, ?, ?)').run(
        r.rid,
        r.text,
        r.title,
        '',
      );
    }
    db.close();

    const before = await Vault.open({ overrides: { vault: legacy }, env: {} });
    expect(
      (await before.search('бджолами', { limit: 3, legs: 'lexical' })).hits.map((h) => h.source),
    ).not.toContain(note.source);
    const health = await before.health();
    expect(health.unanalysedSections).toBeGreaterThan(0);
    expect(health.problems.map((p) => p.repair)).toContain('quiver doctor --fix');
    await before.repair();
    expect((await before.health()).unanalysedSections).toBe(0);
    expect(
      (await before.search('бджолами', { limit: 3, legs: 'lexical' })).hits.map((h) => h.source),
    ).toContain(note.source);
    expect((await before.docs()).find((d) => d.source === note.source)?.lang).toBe('uk');
    await before.close();
  });
});
