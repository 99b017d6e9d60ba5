import type pg from 'pg';
import { QuiverError } from '../../errors.js';
import type { DocumentVersion, ScannedDocumentVersion } from '../store.js';
import { toChunk, toDocument, toSection } from '../records.js';
import { headingOf } from '../section-fields.js';
import { type PgRow, type Queryable, rows } from './connection.js';
import { indexSections } from './postings.js';
import { parseVector, putVectorRows } from './vectors.js';

/**
 * The document side of moving a vault between backends (`Store.scanDocumentVersions`,
 * `importDocumentVersions`; the format is src/transfer/), with the SQLite store's meaning: reads
 * page by `documents.rid` (write order), in three statements per page; an import runs in the
 * caller's transaction, so a failed call writes nothing.
 */

/** Document versions (live and superseded) with `rid > after`, in rid order, with all they hold. */
export async function scanDocumentVersions(
  db: Queryable,
  after: number,
  limit: number,
): Promise<ScannedDocumentVersion[]> {
  const docs = await rows(db, 'export', 'SELECT * FROM documents WHERE rid > $1 ORDER BY rid LIMIT $2', [
    after,
    limit,
  ]);
  if (docs.length === 0) return [];
  const rids = docs.map((d) => d.rid as number);
  const sections = await rows(
    db,
    'export',
    'SELECT * FROM sections WHERE doc_rid = ANY($1::bigint[]) ORDER BY doc_rid, seq',
    [rids],
  );
  const chunks = await rows(
    db,
    'export',
    'SELECT * FROM chunks WHERE doc_rid = ANY($1::bigint[]) ORDER BY id',
    [rids],
  );
  const vectors = await rows<{ fingerprint: string; chunk_id: number; v: string; doc_rid: number }>(
    db,
    'export',
    `SELECT v.fingerprint, v.chunk_id, v.vector::text AS v, c.doc_rid FROM vectors v JOIN chunks c ON c.id = v.chunk_id
      WHERE c.doc_rid = ANY($1::bigint[]) ORDER BY v.fingerprint COLLATE "C", v.chunk_id`,
    [rids],
  );
  const group = <T>(list: PgRow[], key: string, map: (r: PgRow) => T): Map<number, T[]> => {
    const out = new Map<number, T[]>();
    for (const r of list) {
      const k = r[key] as number;
      let g = out.get(k);
      if (g === undefined) out.set(k, (g = []));
      g.push(map(r));
    }
    return out;
  };
  const sectionsOf = group(sections, 'doc_rid', toSection);
  const chunksOf = group(chunks, 'doc_rid', toChunk);
  const vectorsOf = group(vectors, 'doc_rid', (r) => ({
    fingerprint: r.fingerprint as string,
    chunkId: r.chunk_id as number,
    vector: parseVector(r.v as string),
  }));
  return docs.map((d) => ({
    position: d.rid as number,
    supersededBy: (d.superseded_by as string | null) ?? null,
    document: toDocument(d),
    sections: sectionsOf.get(d.rid as number) ?? [],
    chunks: chunksOf.get(d.rid as number) ?? [],
    vectors: vectorsOf.get(d.rid as number) ?? [],
  }));
}

/**
 * Write document versions as given (their batch, times and superseding batch kept; live sections
 * indexed; chunks under new ids; vectors under their fingerprints), in the caller's transaction.
 * CONFLICT when a live version's document is already live; BAD_INPUT when a vector names a chunk
 * the version does not have. Returns given chunk id → new chunk id.
 */
export async function importDocumentVersions(
  client: pg.PoolClient,
  versions: readonly DocumentVersion[],
): Promise<Map<number, number>> {
  const ids = new Map<number, number>();
  for (const v of versions) {
    const d = v.document;
    const live = v.supersededBy === null;
    if (live) {
      const there = await rows(
        client,
        'import',
        'SELECT 1 FROM documents WHERE id = $1 AND superseded_by IS NULL',
        [d.id],
      );
      if (there.length > 0)
        throw new QuiverError(
          'CONFLICT',
          `quiver: document ${d.id} (${d.source}) is already in the vault; nothing of this call was written`,
        );
    }
    const [doc] = await rows<{ rid: number }>(
      client,
      'import',
      `INSERT INTO documents(id, source, title, kind, meta, content_hash, pages, added_at, updated_at, batch_id, superseded_by, lang)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING rid`,
      [
        d.id,
        d.source,
        d.title,
        d.kind,
        JSON.stringify(d.meta),
        d.contentHash,
        d.pages,
        d.addedAt,
        d.updatedAt,
        d.batchId,
        v.supersededBy,
        d.lang,
      ],
    );
    const rid = doc!.rid;
    const s = v.sections;
    const inserted = await rows<{ rid: number; id: string }>(
      client,
      'import',
      `INSERT INTO sections(id, doc_rid, doc_id, parent_id, seq, level, title, breadcrumb, page_start, page_end, text, live, lang)
         SELECT id, $1, $2, parent, seq, level, title, breadcrumb, ps, pe, text, $3, lang
           FROM unnest($4::text[], $5::text[], $6::int[], $7::int[], $8::text[], $9::text[], $10::int[], $11::int[], $12::text[], $13::text[])
             AS x(id, parent, seq, level, title, breadcrumb, ps, pe, text, lang)
       RETURNING rid, id`,
      [
        rid,
        d.id,
        live,
        s.map((x) => x.id),
        s.map((x) => x.parentId),
        s.map((x) => x.seq),
        s.map((x) => x.level),
        s.map((x) => x.title),
        s.map((x) => x.breadcrumb),
        s.map((x) => x.pageStart),
        s.map((x) => x.pageEnd),
        s.map((x) => x.text),
        s.map((x) => x.lang),
      ],
    );
    if (live) {
      const ridOf = new Map(inserted.map((r) => [r.id, r.rid]));
      await indexSections(
        client,
        s.map((x) => ({
          rid: ridOf.get(x.id)!,
          body: x.text,
          title: d.title,
          heading: headingOf(x.breadcrumb),
          lang: x.lang,
        })),
      );
    }
    const c = v.chunks;
    const newIds = await rows<{ id: number; section_id: string; ord: number }>(
      client,
      'import',
      `INSERT INTO chunks(doc_rid, doc_id, section_id, ord, text, page, live)
         SELECT $1, $2, section_id, ord, text, page, $3
           FROM unnest($4::text[], $5::int[], $6::text[], $7::int[]) WITH ORDINALITY AS x(section_id, ord, text, page, i)
          ORDER BY i
       RETURNING id, section_id, ord`,
      [
        rid,
        d.id,
        live,
        c.map((x) => x.sectionId),
        c.map((x) => x.ord),
        c.map((x) => x.text),
        c.map((x) => x.page),
      ],
    );
    const byKey = new Map(newIds.map((r) => [`${r.section_id}\n${r.ord}`, r.id]));
    for (const x of c) ids.set(x.id, byKey.get(`${x.sectionId}\n${x.ord}`)!);
    const own = new Set(c.map((x) => x.id));
    const byFingerprint = new Map<string, { chunkId: number; vector: Float32Array }[]>();
    for (const r of v.vectors) {
      const id = ids.get(r.chunkId);
      if (id === undefined || !own.has(r.chunkId))
        throw new QuiverError(
          'BAD_INPUT',
          `quiver: a vector of document ${d.id} names chunk ${r.chunkId}, which the document does not have`,
        );
      let list = byFingerprint.get(r.fingerprint);
      if (list === undefined) byFingerprint.set(r.fingerprint, (list = []));
      list.push({ chunkId: id, vector: r.vector });
    }
    for (const [fp, list] of byFingerprint) await putVectorRows(client, fp, list);
  }
  return ids;
}
