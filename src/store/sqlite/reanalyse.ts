import type Database from 'better-sqlite3';
import { documentLanguages } from '../../text/language.js';
import { SPACELESS } from '../../text/segment.js';
import { headingOf } from './document-versions.js';
import { ftsColumns } from './fts-columns.js';
import { countRevert } from './vector-revision.js';

type Db = Database.Database;

/** Live sections written before languages were recorded (`lang IS NULL`). */
export function countUnanalysed(db: Db): number {
  return (
    db.prepare('SELECT COUNT(*) FROM sections WHERE live = 1 AND lang IS NULL').raw().get() as [number]
  )[0];
}

/**
 * Analyse the live sections that an earlier release wrote (no recorded language) as a new `add`
 * would: detect each document's and section's language (`documentLanguages`, as `buildDocument` does), record
 * it, and re-index in FTS5 every section whose indexed text changes: one in a language with its
 * own stemmer, or with Chinese, Japanese or Thai text (segmented now). English sections keep their
 * FTS5 rows. One immediate transaction; when any row was re-indexed the saved lexical index is
 * made stale (its rows changed in place, as after a rollback). Returns how many sections were
 * re-indexed.
 */
export function reanalyse(db: Db, onProgress?: (done: number, total: number) => void): number {
  return db
    .transaction(() => {
      const docs = db
        .prepare(
          `SELECT DISTINCT d.rid, d.title FROM documents d JOIN sections s ON s.doc_rid = d.rid
           WHERE d.superseded_by IS NULL AND s.live = 1 AND s.lang IS NULL`,
        )
        .raw()
        .all() as [number, string][];
      const sectionsOf = db.prepare(
        'SELECT rid, text, breadcrumb FROM sections WHERE doc_rid = ? ORDER BY seq',
      );
      const setDoc = db.prepare('UPDATE documents SET lang = ? WHERE rid = ?');
      const setSection = db.prepare('UPDATE sections SET lang = ? WHERE rid = ?');
      const del = db.prepare('DELETE FROM sections_fts WHERE rowid = ?');
      const ins = db.prepare('INSERT INTO sections_fts(rowid, body, title, heading) VALUES (?, ?, ?, ?)');
      let reindexed = 0;
      docs.forEach(([rid, title], i) => {
        const rows = sectionsOf.all(rid) as { rid: number; text: string; breadcrumb: string }[];
        const langs = documentLanguages(
          title,
          rows.map((r) => r.text),
        );
        setDoc.run(langs.document, rid);
        rows.forEach((r, j) => {
          const own = langs.sections[j]!;
          setSection.run(own, r.rid);
          const heading = headingOf(r.breadcrumb);
          const changes = (own !== 'en' && own !== 'und') || SPACELESS.test(`${r.text}${title}${heading}`);
          if (!changes) return;
          del.run(r.rid);
          ins.run(r.rid, ...ftsColumns(r.text, title, heading, own));
          reindexed++;
        });
        onProgress?.(i + 1, docs.length);
      });
      if (reindexed > 0) countRevert(db);
      return reindexed;
    })
    .immediate();
}
