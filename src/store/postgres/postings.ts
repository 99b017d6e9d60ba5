import type pg from 'pg';
import { analyzeField } from '../../text/analyzer.js';
import { run } from './connection.js';

/**
 * The lexical index's postings (see schema.ts): for each live section, each analysed term of its
 * three fields (analyzer.ts) with its count per field and its positions, the section's token count,
 * and the corpus totals (live sections, tokens) that BM25's idf and average length need. Sections
 * enter when they become live and leave when they stop being live, always inside the caller's
 * write transaction, so a reader sees the index and the rows in step.
 */

/** Positions of field f start at f · 2^24, so a phrase can never run from one field into the next. */
export const FIELD_STRIDE = 2 ** 24;

/** One section's fields to index. */
export interface SectionFields {
  rid: number;
  body: string;
  title: string;
  heading: string;
  lang: string | null;
}

/** A section's postings: term → [body count, title count, heading count, positions]. */
export function sectionPostings(s: SectionFields): {
  tokens: number;
  postings: Map<string, [number, number, number, number[]]>;
} {
  const postings = new Map<string, [number, number, number, number[]]>();
  let tokens = 0;
  [s.body, s.title, s.heading].forEach((text, field) => {
    const terms = analyzeField(text, s.lang);
    tokens += terms.length;
    terms.forEach((t, i) => {
      let p = postings.get(t);
      if (p === undefined) postings.set(t, (p = [0, 0, 0, []]));
      p[field as 0 | 1 | 2]++;
      p[3].push(field * FIELD_STRIDE + i);
    });
  });
  return { tokens, postings };
}

/** Index sections that became live: their postings, token counts and the corpus totals. */
export async function indexSections(
  client: pg.PoolClient,
  sections: readonly SectionFields[],
): Promise<void> {
  if (sections.length === 0) return;
  const term: string[] = [];
  const rid: number[] = [];
  const body: number[] = [];
  const title: number[] = [];
  const heading: number[] = [];
  const len: number[] = [];
  const pos: string[] = [];
  const sectionRids: number[] = [];
  const sectionTokens: number[] = [];
  let total = 0;
  for (const s of sections) {
    const { tokens, postings } = sectionPostings(s);
    sectionRids.push(s.rid);
    sectionTokens.push(tokens);
    total += tokens;
    for (const [t, [b, ti, h, p]] of postings) {
      term.push(t);
      rid.push(s.rid);
      body.push(b);
      title.push(ti);
      heading.push(h);
      len.push(tokens);
      pos.push(`{${p.join(',')}}`);
    }
  }
  if (term.length > 0)
    await run(
      client,
      'indexing sections',
      `INSERT INTO postings(term, section_rid, body, title, heading, len, pos)
         SELECT t, r, b, ti, h, n, p::int[]
           FROM unnest($1::text[], $2::bigint[], $3::int[], $4::int[], $5::int[], $6::int[], $7::text[]) AS x(t, r, b, ti, h, n, p)`,
      [term, rid, body, title, heading, len, pos],
    );
  await run(
    client,
    'indexing sections',
    'UPDATE sections s SET tokens = x.n FROM unnest($1::bigint[], $2::int[]) AS x(r, n) WHERE s.rid = x.r',
    [sectionRids, sectionTokens],
  );
  await run(
    client,
    'indexing sections',
    'UPDATE lexical_totals SET sections = sections + $1, tokens = tokens + $2',
    [sections.length, total],
  );
}

/** Take the live sections of document versions `docRids` out of the index (before they stop being live). */
export async function unindexDocuments(client: pg.PoolClient, docRids: readonly number[]): Promise<void> {
  if (docRids.length === 0) return;
  await run(
    client,
    'unindexing sections',
    `WITH gone AS (SELECT rid, tokens FROM sections WHERE doc_rid = ANY($1::bigint[]) AND live),
          del AS (DELETE FROM postings p USING gone WHERE p.section_rid = gone.rid)
     UPDATE lexical_totals SET sections = sections - (SELECT count(*) FROM gone),
                               tokens = tokens - (SELECT coalesce(sum(tokens), 0) FROM gone)`,
    [[...docRids]],
  );
}
