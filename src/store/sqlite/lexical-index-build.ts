import type Database from 'better-sqlite3';
import { LexicalIndex } from './lexical-index.js';
import { ftsColumns } from './fts-columns.js';

/**
 * Building a {@link LexicalIndex} from FTS5 itself, so its tokens are FTS5's: the `instance`
 * vocabulary view yields one row per token occurrence (term, row, column), in term then row
 * order, which is posting-list order; row lengths come from FTS5's `_docsize` table (what `bm25()`
 * reads). Query words are tokenized by a one-column FTS5 table in the connection's temp schema
 * with the same tokenizer, so `running` finds `run` exactly as FTS5 would.
 */

/** The tokenizer of `sections_fts` (schema.ts); the temp tables here must use the same. */
export const SECTIONS_TOKENIZER = 'porter unicode61 remove_diacritics 2';

type Db = Database.Database;

/** Column sizes in an FTS5 `_docsize.sz` blob: SQLite varints, one per column. */
export function decodeColumnSizes(sz: Uint8Array): number[] {
  const out: number[] = [];
  let i = 0;
  while (i < sz.length) {
    let v = 0;
    for (let k = 0; k < 9 && i < sz.length; k++) {
      const b = sz[i++]!;
      if (k === 8) {
        v = v * 256 + b;
        break;
      }
      v = v * 128 + (b & 0x7f);
      if ((b & 0x80) === 0) break;
    }
    out.push(v);
  }
  return out;
}

/**
 * FTS5's row count and token total (all columns) from the averages record of `table` (its
 * `_data` row 1: varints nRow, then one total per column), which is what `bm25()` reads.
 */
export function readFtsTotals(db: Db, table: string): { rows: number; tokens: number } {
  const r = db.prepare(`SELECT block FROM ${table}_data WHERE id = 1`).raw().get() as
    [Uint8Array] | undefined;
  if (r === undefined) return { rows: 0, tokens: 0 };
  const [rows = 0, ...cols] = decodeColumnSizes(r[0]);
  return { rows, tokens: cols.reduce((a, b) => a + b, 0) };
}

/** Growable typed array (doubling), for postings whose count is not known up front. */
class Grow<T extends Uint32Array | Uint16Array> {
  length = 0;
  constructor(
    public data: T,
    private readonly make: (n: number) => T,
  ) {}
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = this.make(Math.max(1024, this.data.length * 2));
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
  done(): T {
    return this.data.slice(0, this.length) as T;
  }
}

const u32 = (n: number): Uint32Array => new Uint32Array(n);
const u16 = (n: number): Uint16Array => new Uint16Array(n);

/**
 * Read FTS5 table `schema.table` (columns body, title, heading) into an index. `onProgress` gets
 * (tokens read, total tokens). The caller holds a read transaction if it needs a consistent view.
 */
export function readFtsIndex(
  db: Db,
  schema: 'main' | 'temp',
  table: string,
  /** SQL giving (rid, section id) for the table's rows. */
  names: string,
  onProgress?: (done: number, total: number) => void,
): LexicalIndex {
  const rids: number[] = [];
  const tokens: number[] = [];
  let total = 0;
  for (const [id, sz] of db
    .prepare(`SELECT id, sz FROM ${schema}.${table}_docsize ORDER BY id`)
    .raw()
    .iterate() as IterableIterator<[number, Uint8Array]>) {
    const cols = decodeColumnSizes(sz);
    const n = cols.reduce((a, b) => a + b, 0);
    rids.push(id);
    tokens.push(n);
    total += n;
  }
  let nextReport = 0;
  const rowOf = new Map<number, number>();
  rids.forEach((rid, i) => rowOf.set(rid, i));
  const sectionIds: string[] = rids.map(() => '');
  for (const [rid, id] of db.prepare(names).raw().iterate() as IterableIterator<[number, string]>) {
    const row = rowOf.get(rid);
    if (row !== undefined) sectionIds[row] = id;
  }
  const vocab = `lexical_instance_${schema}_${table}`;
  db.exec(
    `CREATE VIRTUAL TABLE IF NOT EXISTS temp.${vocab} USING fts5vocab(${schema}, ${table}, 'instance')`,
  );
  const terms: string[] = [];
  const termStart = new Grow(u32(1024), u32);
  const postRow = new Grow(u32(1024), u32);
  const cols = [new Grow(u16(1024), u16), new Grow(u16(1024), u16), new Grow(u16(1024), u16)] as const;
  const counts = [0, 0, 0];
  let read = 0;
  // One row per term: its occurrences as "rid·4 + column" joined by commas, in rid order (the
  // vocabulary is term-, then row-ordered, so no sort). Aggregating in SQL is ~4× faster than
  // reading one row per occurrence through the driver.
  const stmt = db
    .prepare(
      `SELECT term, group_concat(doc * 4 + (CASE col WHEN 'body' THEN 0 WHEN 'title' THEN 1 ELSE 2 END))
       FROM temp.${vocab} GROUP BY term`,
    )
    .raw();
  for (const [term, list] of stmt.iterate() as IterableIterator<[string, string]>) {
    termStart.push(postRow.length);
    terms.push(term);
    let lastRid = -1;
    const flush = (): void => {
      const row = rowOf.get(lastRid);
      if (row !== undefined) {
        postRow.push(row);
        for (let c = 0; c < 3; c++) cols[c]!.push(Math.min(counts[c]!, 0xffff));
      }
      counts[0] = counts[1] = counts[2] = 0;
    };
    let v = 0;
    for (let i = 0; i <= list.length; i++) {
      const ch = i < list.length ? list.charCodeAt(i) : 44;
      if (ch !== 44) {
        v = v * 10 + (ch - 48);
        continue;
      }
      const col = v % 4;
      const rid = (v - col) / 4;
      if (rid !== lastRid) {
        if (lastRid >= 0) flush();
        lastRid = rid;
      }
      counts[col]!++;
      v = 0;
      read++;
    }
    if (lastRid >= 0) flush();
    if (onProgress !== undefined && read >= nextReport) {
      onProgress(read, total);
      nextReport = read + 65536;
    }
  }
  termStart.push(postRow.length);
  onProgress?.(total, total);
  return new LexicalIndex({
    terms,
    termStart: termStart.done(),
    postRow: postRow.done(),
    postBody: cols[0].done(),
    postTitle: cols[1].done(),
    postHeading: cols[2].done(),
    rids: Float64Array.from(rids),
    sectionIds,
    rowTokens: Uint32Array.from(tokens),
  });
}

/** A section row to index outside `sections_fts` (the rows added since a saved index was built). */
export interface SectionText {
  rid: number;
  sectionId: string;
  body: string;
  title: string;
  heading: string;
  /** The section's recorded language (null: written by an earlier release). */
  lang: string | null;
}

/**
 * Index rows the way `sections_fts` would: through a temp FTS5 table with the same tokenizer
 * (emptied first), then {@link readFtsIndex}.
 */
export function indexSectionTexts(db: Db, rows: readonly SectionText[]): LexicalIndex {
  db.exec(
    `CREATE VIRTUAL TABLE IF NOT EXISTS temp.lexical_delta USING fts5(body, title, heading, tokenize = '${SECTIONS_TOKENIZER}')`,
  );
  db.exec('CREATE TABLE IF NOT EXISTS temp.lexical_delta_names (rid INTEGER PRIMARY KEY, id TEXT NOT NULL)');
  db.exec('DELETE FROM temp.lexical_delta; DELETE FROM temp.lexical_delta_names');
  const ins = db.prepare('INSERT INTO temp.lexical_delta(rowid, body, title, heading) VALUES (?, ?, ?, ?)');
  const name = db.prepare('INSERT INTO temp.lexical_delta_names(rid, id) VALUES (?, ?)');
  db.transaction(() => {
    for (const r of rows) {
      ins.run(r.rid, ...ftsColumns(r.body, r.title, r.heading, r.lang));
      name.run(r.rid, r.sectionId);
    }
  })();
  return readFtsIndex(db, 'temp', 'lexical_delta', 'SELECT rid, id FROM temp.lexical_delta_names');
}

/** A query term FTS5 reads as a phrase of two or more tokens (such as `patient's`). */
export interface MultiTokenPhrase {
  phrase: string;
}

/**
 * FTS5's tokens of each query term, as `sections_fts` would tokenize the quoted term: one token →
 * that token; none (punctuation only) → null, a phrase that matches nothing; two or more → the
 * term as a {@link MultiTokenPhrase} (it needs positions, which the index does not keep, so the
 * caller asks FTS5 for that phrase's scores).
 */
export function tokenizeQueryTerms(db: Db, terms: readonly string[]): (string | null | MultiTokenPhrase)[] {
  const q = queryTokenizer(db);
  const out: (string | null | MultiTokenPhrase)[] = terms.map((t) => {
    const known = q.memo.get(t);
    return known === undefined ? null : known;
  });
  const todo = terms.flatMap((t, i) => (q.memo.has(t) ? [] : [i]));
  if (todo.length === 0) return out;
  const seen = new Uint8Array(terms.length);
  q.run(() => {
    q.clear.run();
    for (const i of todo) q.insert.run(i + 1, terms[i]!.replace(/\0/g, ' '));
    for (const [term, doc] of q.tokens.iterate() as IterableIterator<[string, number]>) {
      const i = doc - 1;
      out[i] = seen[i] === 1 ? { phrase: terms[i]! } : term;
      seen[i] = 1;
    }
    q.clear.run();
  });
  if (q.memo.size + todo.length > TOKEN_MEMO_MAX) q.memo.clear();
  for (const i of todo) q.memo.set(terms[i]!, out[i]!);
  return out;
}

/**
 * Terms tokenized per connection, remembered: a term's tokens depend only on the term and the
 * tokenizer, and a round trip through the temp table was a tenth of an indexed query's time.
 */
const TOKEN_MEMO_MAX = 50_000;

interface QueryTokenizer {
  memo: Map<string, string | null | MultiTokenPhrase>;
  insert: Database.Statement;
  clear: Database.Statement;
  tokens: Database.Statement;
  run: (fn: () => void) => void;
}

const tokenizers = new WeakMap<Db, QueryTokenizer>();

/** The temp tables and statements of {@link tokenizeQueryTerms}, made once per connection. */
function queryTokenizer(db: Db): QueryTokenizer {
  let q = tokenizers.get(db);
  if (q === undefined) {
    db.exec(
      `CREATE VIRTUAL TABLE IF NOT EXISTS temp.lexical_query USING fts5(x, tokenize = '${SECTIONS_TOKENIZER}');
       CREATE VIRTUAL TABLE IF NOT EXISTS temp.lexical_query_vocab USING fts5vocab(temp, lexical_query, 'instance');`,
    );
    q = {
      memo: new Map(),
      insert: db.prepare('INSERT INTO temp.lexical_query(rowid, x) VALUES (?, ?)'),
      clear: db.prepare('DELETE FROM temp.lexical_query'),
      tokens: db.prepare('SELECT term, doc FROM temp.lexical_query_vocab').raw(),
      run: db.transaction((fn: () => void) => fn()),
    };
    tokenizers.set(db, q);
  }
  return q;
}
