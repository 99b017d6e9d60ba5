import { BM25_B, BM25_K1, BM25_MIN_IDF } from '../../math/bm25.js';
import { analyzeQuery } from '../../text/analyzer.js';
import type { LexicalHit, LexicalQuery, TermStats } from '../store.js';
import { type Queryable, rows } from './connection.js';
import { docFilterSql } from './doc-filter.js';
import { FIELD_STRIDE } from './postings.js';

/**
 * The lexical leg in SQL: BM25 exactly as store.ts defines it (FTS5's formula, src/math/bm25.ts)
 * over the postings of live sections (postings.ts).
 *
 * A query is a list of phrases: each query term analysed (analyzer.ts) into one term (a phrase of
 * one) or several (a phrase, such as `patient's` → `patient s`); `phrase` mode makes one phrase of
 * all of them. A term with no tokens is dropped under `any` and matches nothing under `all` or
 * `phrase`. Per section and phrase, f = Σ over the phrase's occurrences of its field's weight;
 * per phrase, n = sections containing it and idf = max(ln((N − n + 0.5)/(n + 0.5)), 1e-6) over the
 * N live sections; a section's score is Σ idf · f(k1 + 1)/(f + k1(1 − b + b·D/avgdl)) with D its
 * tokens over all fields. `any` keeps sections with at least one phrase, `all` those with every one.
 * Repeated phrases count once each, as FTS5 counts them. Ties go to the older section.
 */
export function queryPhrases(terms: readonly string[], mode: LexicalQuery['mode']): string[][] | null {
  const analysed = terms.map(analyzeQuery);
  if (mode === 'phrase') {
    const all = analysed.flat();
    return all.length === 0 || analysed.some((a) => a.length === 0) ? null : [all];
  }
  if (mode === 'all' && analysed.some((a) => a.length === 0)) return null;
  const kept = analysed.filter((a) => a.length > 0);
  return kept.length === 0 ? null : kept;
}

/**
 * SQL for the sections holding one phrase: (section_rid, ph, body, title, heading, len), the
 * phrase's occurrences per field and the section's length. Every branch of the query's UNION ALL
 * lists these columns in this order.
 */
function phraseHits(phrase: readonly string[], index: number, param: (v: unknown) => string): string {
  if (phrase.length === 1)
    return `SELECT section_rid, ${index} AS ph, body, title, heading, len FROM postings WHERE term = ${param(phrase[0])}`;
  const joins = phrase
    .slice(1)
    .map(
      (t, i) =>
        `JOIN postings p${i + 1} ON p${i + 1}.section_rid = p0.section_rid AND p${i + 1}.term = ${param(t)}`,
    )
    .join(' ');
  const follows = phrase
    .slice(1)
    .map((_, i) => `(x + ${i + 1}) = ANY (p${i + 1}.pos)`)
    .join(' AND ');
  return `SELECT p0.section_rid, ${index} AS ph,
      count(*) FILTER (WHERE x < ${FIELD_STRIDE}) AS body,
      count(*) FILTER (WHERE x >= ${FIELD_STRIDE} AND x < ${2 * FIELD_STRIDE}) AS title,
      count(*) FILTER (WHERE x >= ${2 * FIELD_STRIDE}) AS heading,
      min(p0.len) AS len
    FROM postings p0 ${joins} CROSS JOIN LATERAL unnest(p0.pos) AS x
    WHERE p0.term = ${param(phrase[0])} AND ${follows}
    GROUP BY p0.section_rid`;
}

/** Sections ranked by BM25, best first (see above). */
export async function lexicalSearch(
  db: Queryable,
  query: LexicalQuery,
  hasNoisyMarks: boolean,
): Promise<LexicalHit[]> {
  if (query.limit <= 0) return [];
  const phrases = queryPhrases(query.terms, query.mode);
  if (phrases === null) return [];
  const params: unknown[] = [];
  const param = (v: unknown): string => {
    params.push(v);
    return `$${params.length}`;
  };
  const hits = phrases.map((p, i) => phraseHits(p, i, param)).join('\nUNION ALL\n');
  const w = [param(query.weights.body), param(query.weights.title), param(query.weights.heading)];
  const k1 = param(BM25_K1);
  const b = param(BM25_B);
  const minIdf = param(BM25_MIN_IDF);
  const need = query.mode === 'any' ? '' : param(phrases.length);
  const limit = param(query.limit);
  const f = docFilterSql(query.filter, hasNoisyMarks, params.length + 1);
  params.push(...f.params);
  // Postings are of live sections only and carry each section's length, so an unfiltered query
  // scores from postings alone and reads sections for the `limit` best rows; a filtered one joins
  // the documents before the limit.
  const filtered = f.sql !== '';
  const scored = `SELECT h.section_rid, count(*) AS phrases,
        sum(greatest(ln((tot.n - df.n + 0.5) / (df.n + 0.5)), ${minIdf}::float8)
            * (ff.f * (${k1}::float8 + 1)) / (ff.f + ${k1}::float8 * (1 - ${b}::float8 + ${b}::float8 * h.len / tot.avgdl))) AS score
      FROM hits h JOIN df USING (ph) CROSS JOIN tot
      CROSS JOIN LATERAL (SELECT (${w[0]}::float8 * h.body + ${w[1]}::float8 * h.title + ${w[2]}::float8 * h.heading) AS f) ff
      GROUP BY h.section_rid ${need ? `HAVING count(*) = ${need}` : ''}`;
  const ranked = filtered
    ? `SELECT s.id, s.doc_id, sc.score FROM scored sc
         JOIN sections s ON s.rid = sc.section_rid JOIN documents d ON d.rid = s.doc_rid
        WHERE ${f.sql}
        ORDER BY sc.score DESC, sc.section_rid LIMIT ${limit}`
    : `SELECT s.id, s.doc_id, top.score
         FROM (SELECT * FROM scored ORDER BY score DESC, section_rid LIMIT ${limit}) top
         JOIN sections s ON s.rid = top.section_rid
        ORDER BY top.score DESC, top.section_rid`;
  const sql = `WITH hits AS (${hits}),
    df AS (SELECT ph, count(*)::float8 AS n FROM hits GROUP BY ph),
    tot AS (SELECT sections::float8 AS n, CASE WHEN tokens > 0 THEN tokens::float8 / sections ELSE 1 END AS avgdl FROM lexical_totals WHERE one = 1),
    scored AS (${scored})
    ${ranked}`;
  const found = await rows<{ id: string; doc_id: string; score: number }>(db, 'lexical search', sql, params);
  return found.map((r) => ({ sectionId: r.id, docId: r.doc_id, score: r.score }));
}

/** Live sections and, for each stem, how many live sections contain it (absent when none). */
export async function termStats(db: Queryable, stems: readonly string[]): Promise<TermStats> {
  const unique = [...new Set(stems)];
  const [tot] = await rows<{ n: number }>(db, 'term statistics', 'SELECT sections AS n FROM lexical_totals');
  const df = new Map<string, number>();
  if (unique.length > 0)
    for (const r of await rows<{ term: string; n: number }>(
      db,
      'term statistics',
      'SELECT term, count(*)::int AS n FROM postings WHERE term = ANY($1::text[]) GROUP BY term',
      [unique],
    ))
      df.set(r.term, r.n);
  return { docs: tot?.n ?? 0, df };
}
