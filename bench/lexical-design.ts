// Why the lexical leg ranks sections with title weight 3: BM25 (FTS5, porter, stop-words dropped,
// terms OR-ed) over whole SciFact documents vs over 512-character chunks scored by their best
// chunk, and a sweep of the title column's weight. In-memory FTS5 tables, the same query terms and
// escaping as the vault.
import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { loadBeir } from '../src/evaluate/datasets/beir.js';
import { chunkText } from '../src/ingest/chunk.js';
import { queryTerms } from '../src/retrieve/query-terms.js';
import { compileFtsQuery } from '../src/store/sqlite/fts-query.js';
import { dataPath, mdTable, writeSection } from './lib.js';
import { score } from './retrieval-quality.js';

export async function benchLexicalDesign(): Promise<void> {
  const dir = dataPath('scifact');
  if (dir === null) {
    writeSection('lexical-design', '## Lexical leg design\n\nSkipped: SciFact not found.');
    return;
  }
  const set = loadBeir(dir, 'train');
  const db = new Database(':memory:');
  db.exec(
    `CREATE VIRTUAL TABLE d USING fts5(id UNINDEXED, title, body, tokenize='porter unicode61 remove_diacritics 2')`,
  );
  db.exec(
    `CREATE VIRTUAL TABLE c USING fts5(id UNINDEXED, title, body, tokenize='porter unicode61 remove_diacritics 2')`,
  );
  const insD = db.prepare('INSERT INTO d(id, title, body) VALUES (?, ?, ?)');
  const insC = db.prepare('INSERT INTO c(id, title, body) VALUES (?, ?, ?)');
  for (const line of readFileSync(set.corpusPath, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const o = JSON.parse(line) as { _id: string; title?: string; text?: string };
    insD.run(String(o._id), o.title ?? '', o.text ?? '');
    for (const piece of chunkText(o.text ?? '')) insC.run(String(o._id), o.title ?? '', piece);
  }
  const run = (table: 'd' | 'c', titleWeight: number): Map<string, string[]> => {
    const st = db.prepare(
      `SELECT id FROM ${table} WHERE ${table} MATCH ? ORDER BY bm25(${table}, 0, ?, 1) LIMIT ${table === 'd' ? 100 : 400}`,
    );
    const out = new Map<string, string[]>();
    for (const q of set.queries) {
      const m = compileFtsQuery(queryTerms(q.text, 'any'), 'any');
      const ids = m === null ? [] : (st.all(m, titleWeight) as { id: string }[]).map((r) => r.id);
      out.set(q.id, [...new Set(ids)].slice(0, 100));
    }
    return out;
  };
  const rows: (string | number)[][] = [];
  for (const [label, table] of [
    ['whole document (section)', 'd'],
    ['best 512-character chunk', 'c'],
  ] as const) {
    const s = score(set, run(table, 2));
    rows.push([label, 2, s.ndcg10, s.recall100, s.mrr10]);
  }
  for (const tw of [1, 3, 4, 6]) {
    const s = score(set, run('d', tw));
    rows.push(['whole document (section)', tw, s.ndcg10, s.recall100, s.mrr10]);
  }
  writeSection(
    'lexical-design',
    `## Lexical leg design (SciFact train, ${set.queries.length} queries)\n\nBM25 in FTS5 over whole documents vs over chunks (a document scored by its best chunk), and the title column's weight.\n\n` +
      mdTable(['unit', 'title weight', 'nDCG@10', 'recall@100', 'MRR@10'], rows) +
      '\n',
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await benchLexicalDesign();
