import type Database from 'better-sqlite3';
import type { LexicalHit, LexicalQuery } from '../store.js';
import type { StatementCache } from './connection.js';
import { docFilterSql } from './doc-filter.js';
import { compileFtsQuery, quoteFtsTerm } from './fts-query.js';
import { tokenizeQueryTerms } from './lexical-index-build.js';
import type { LexicalSearcher, RankedSection, ScoredRid } from './lexical-index.js';
import { docIdOfSection, type Row } from './rows.js';

/**
 * BM25 over `sections_fts`, best first (ties by rowid). The top `limit` rows are ranked inside FTS5
 * before the join to `sections`, so only those rows are looked up: joining first made every match
 * (most of a large vault for a common word) pay a row lookup, ~5× slower at 100k chunks. With a
 * filter, the top `limit × 4 + 32` matches are ranked and filtered; only when fewer than `limit`
 * survive does the exact join-then-rank query run. `hasNoisyMarks`: see {@link docFilterSql}.
 *
 * With a `searcher` (a large vault, `lexical-index-leg.ts`), `any` and `all` queries are ranked by
 * it instead of by FTS5 ({@link indexedSearch}): the same scores and order, from typed arrays
 * (see `lexical-index.ts`); `phrase` queries still go to FTS5.
 */
export function lexicalSearch(
  statements: StatementCache,
  query: LexicalQuery,
  hasNoisyMarks: boolean,
  searcher: LexicalSearcher | null = null,
): LexicalHit[] {
  const match = compileFtsQuery(query.terms, query.mode);
  if (match === null || query.limit <= 0) return [];
  const { db } = statements;
  const f = docFilterSql(query.filter, hasNoisyMarks);
  if (searcher !== null && query.mode !== 'phrase')
    return indexedSearch(statements, searcher, query, match, f);
  const w = query.weights;
  const ranked = (fetch: number, where: string, params: unknown[]): Row[] => {
    const sql = `SELECT s.id, s.doc_id, f.score FROM (
          SELECT rowid AS rid, bm25(sections_fts, ?, ?, ?) AS score FROM sections_fts
          WHERE sections_fts MATCH ? ORDER BY score, rowid LIMIT ?) f
        JOIN sections s ON s.rid = f.rid ${where} ORDER BY f.score, f.rid`;
    // Filters vary in their number of parameters: prepare those afresh rather than cache each.
    const st = where === '' ? statements.get(sql) : db.prepare(sql);
    return st.all(w.body, w.title, w.heading, match, fetch, ...params) as Row[];
  };
  if (!f.sql) return toHits(ranked(query.limit, '', []));
  const docs = `JOIN documents d ON d.id = s.doc_id WHERE d.superseded_by IS NULL AND ${f.sql}`;
  const fast = ranked(query.limit * 4 + 32, docs, f.params);
  if (fast.length >= query.limit) return toHits(fast.slice(0, query.limit));
  return exactFiltered(statements, match, query, f);
}

/**
 * {@link lexicalSearch} through the lexical index: one-token terms score from its postings, longer
 * phrases (such as `patient's`, two tokens) from FTS5's bm25() for that phrase alone, which is
 * exactly the phrase's share of a whole-query score. Filtered queries over-fetch as above.
 */
function indexedSearch(
  statements: StatementCache,
  searcher: LexicalSearcher,
  query: LexicalQuery,
  match: string,
  f: { sql: string; params: unknown[] },
): LexicalHit[] {
  const w = query.weights;
  const phraseScores = statements.get(
    'SELECT rowid, bm25(sections_fts, ?, ?, ?) FROM sections_fts WHERE sections_fts MATCH ?',
  );
  const phrases = tokenizeQueryTerms(
    statements.db,
    query.terms.filter((t) => typeof t === 'string' && t.length > 0),
  ).map((p) =>
    p === null || typeof p === 'string'
      ? p
      : (
          phraseScores.raw().all(w.body, w.title, w.heading, quoteFtsTerm(p.phrase)) as [number, number][]
        ).map(([rid, s]) => ({ rid, score: -s })),
  );
  const rank = (fetch: number): RankedSection[] =>
    searcher.search(phrases, w, fetch, query.mode as 'any' | 'all');
  if (!f.sql) {
    return rank(query.limit).map((x) => ({
      sectionId: x.sectionId,
      docId: docIdOfSection(x.sectionId),
      score: x.score,
    }));
  }
  const where = `AND d.superseded_by IS NULL AND ${f.sql}`;
  const fast = sectionsOf(statements, rank(query.limit * 4 + 32), where, f.params);
  if (fast.length >= query.limit) return fast.slice(0, query.limit);
  return exactFiltered(statements, match, query, f);
}

/** The filtered query FTS5 answers exactly: every match joined and filtered, then ranked. */
function exactFiltered(
  statements: StatementCache,
  match: string,
  query: LexicalQuery,
  f: { sql: string; params: unknown[] },
): LexicalHit[] {
  const w = query.weights;
  const sql = `SELECT s.id, s.doc_id, bm25(sections_fts, ?, ?, ?) AS score
      FROM sections_fts JOIN sections s ON s.rid = sections_fts.rowid
      WHERE sections_fts MATCH ? AND s.doc_id IN (SELECT d.id FROM documents d WHERE d.superseded_by IS NULL AND ${f.sql})
      ORDER BY score, s.rid LIMIT ?`;
  const rows = statements.db
    .prepare(sql)
    .all(w.body, w.title, w.heading, match, ...f.params, query.limit) as Row[];
  return toHits(rows);
}

/** Rows of (id, doc_id, bm25 score) as hits; FTS5's bm25() is negative, lower is better. */
function toHits(rows: Row[]): LexicalHit[] {
  return rows.map((r) => ({
    sectionId: r.id as string,
    docId: r.doc_id as string,
    score: -(r.score as number),
  }));
}

/**
 * The sections of ranked rids that pass the filter `where` (SQL over `s`, the section, and `d`,
 * its document), in rank order.
 */
function sectionsOf(
  statements: StatementCache,
  ranked: ScoredRid[],
  where: string,
  params: unknown[],
): LexicalHit[] {
  if (ranked.length === 0) return [];
  // CROSS JOIN fixes the plan: the ranked rids drive primary-key lookups (the planner would
  // otherwise scan a table for an IN over json_each).
  const sql = `SELECT s.rid, s.id, s.doc_id FROM json_each(?) j CROSS JOIN sections s ON s.rid = j.value
      CROSS JOIN documents d ON d.rid = s.doc_rid WHERE 1 ${where}`;
  const st = statements.db.prepare(sql);
  const found = new Map<number, Row>();
  for (const r of st.all(JSON.stringify(ranked.map((x) => x.rid)), ...params) as Row[])
    found.set(r.rid as number, r);
  const out: LexicalHit[] = [];
  for (const x of ranked) {
    const r = found.get(x.rid);
    if (r !== undefined) out.push({ sectionId: r.id as string, docId: r.doc_id as string, score: x.score });
  }
  return out;
}

/**
 * Create FTS5's vocabulary view of `sections_fts` (an `fts5vocab` table in the connection's temp
 * schema, so read-only vaults work and no migration is needed). Idempotent; once per connection.
 */
export function createSectionsVocab(db: Database.Database): void {
  db.exec(
    `CREATE VIRTUAL TABLE IF NOT EXISTS temp.sections_vocab USING fts5vocab(main, sections_fts, 'row')`,
  );
}

/** Live sections: the `N` of the lexical leg's IDF. */
export function countLiveSections(statements: StatementCache): number {
  return (statements.get('SELECT count(*) AS n FROM sections WHERE live = 1').get() as Row).n as number;
}

/** Document frequencies remembered between calls; cleared when it would outgrow this. */
export const DF_CACHE_MAX = 200_000;

/**
 * Live sections containing each distinct stem, from the vocabulary view (call
 * {@link createSectionsVocab} first); stems in no section are absent from the map. Each lookup
 * walks the term's whole doclist (a common word costs as much as scoring it), hence `cache`: the
 * caller keeps one per data version, and a stem the index lacks is remembered as 0.
 */
export function documentFrequencies(
  statements: StatementCache,
  stems: readonly string[],
  cache: Map<string, number>,
): Map<string, number> {
  const lookup = statements.get('SELECT doc FROM temp.sections_vocab WHERE term = ?');
  const df = new Map<string, number>();
  for (const s of new Set(stems)) {
    let n = cache.get(s);
    if (n === undefined) {
      n = ((lookup.get(s) as Row | undefined)?.doc as number | undefined) ?? 0;
      if (cache.size >= DF_CACHE_MAX) cache.clear();
      cache.set(s, n);
    }
    if (n > 0) df.set(s, n);
  }
  return df;
}
