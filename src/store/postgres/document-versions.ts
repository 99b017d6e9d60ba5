import type pg from 'pg';
import { QuiverError } from '../../errors.js';
import type { RollbackResult, WriteDocumentInput, WriteStatus } from '../store.js';
import { headingOf } from '../section-fields.js';
import { rows, run } from './connection.js';
import { indexSections, unindexDocuments, type SectionFields } from './postings.js';
import { putVectorRows } from './vectors.js';

/**
 * Versioned document rows in PostgreSQL, with the SQLite store's meaning (sqlite/document-versions.ts):
 * a new version supersedes the live one; undoing a batch deletes the versions it wrote and revives
 * those it superseded; only live sections are in the lexical index. Every function runs inside the
 * caller's transaction (`client`).
 */

const now = (): string => new Date().toISOString();

/**
 * Write one document: 'unchanged' when the live version has the same content hash, else supersede
 * the live version (if any) and insert the new one with its sections (indexed), chunks and vectors.
 * The live row is locked first, so two writers of one document serialise.
 */
export async function writeDocumentVersion(
  client: pg.PoolClient,
  input: WriteDocumentInput,
): Promise<WriteStatus> {
  const { document: doc, vectors, fingerprint, batchId } = input;
  const [existing] = await rows<{ rid: number; content_hash: string; added_at: string }>(
    client,
    'writing a document',
    'SELECT rid, content_hash, added_at FROM documents WHERE id = $1 AND superseded_by IS NULL FOR UPDATE',
    [doc.id],
  );
  if (existing !== undefined && existing.content_hash === doc.contentHash) return 'unchanged';
  if (existing !== undefined) await supersede(client, [existing.rid], batchId);
  const t = now();
  const [{ rid } = { rid: 0 }] = await rows<{ rid: number }>(
    client,
    'writing a document',
    `INSERT INTO documents(id, source, title, kind, meta, content_hash, pages, added_at, updated_at, batch_id, lang)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING rid`,
    [
      doc.id,
      doc.source,
      doc.title,
      doc.kind,
      JSON.stringify(doc.meta),
      doc.contentHash,
      doc.pages,
      existing?.added_at ?? t,
      t,
      batchId,
      doc.lang ?? null,
    ],
  );
  const sections = doc.sections;
  const inserted = await rows<{ rid: number; seq: number }>(
    client,
    'writing sections',
    `INSERT INTO sections(id, doc_rid, doc_id, parent_id, seq, level, title, breadcrumb, page_start, page_end, text, lang)
       SELECT $1 || '#' || seq, $2, $1, CASE WHEN parent IS NULL THEN NULL ELSE $1 || '#' || parent END,
              seq, level, title, breadcrumb, ps, pe, text, lang
         FROM unnest($3::int[], $4::int[], $5::int[], $6::text[], $7::text[], $8::int[], $9::int[], $10::text[], $11::text[])
           AS x(seq, parent, level, title, breadcrumb, ps, pe, text, lang)
     RETURNING rid, seq`,
    [
      doc.id,
      rid,
      sections.map((s) => s.seq),
      sections.map((s) => s.parentSeq),
      sections.map((s) => s.level),
      sections.map((s) => s.title),
      sections.map((s) => s.breadcrumb),
      sections.map((s) => s.pageStart),
      sections.map((s) => s.pageEnd),
      sections.map((s) => s.text),
      sections.map((s) => s.lang ?? null),
    ],
  );
  const ridOfSeq = new Map(inserted.map((r) => [r.seq, r.rid]));
  await indexSections(
    client,
    sections.map((s) => ({
      rid: ridOfSeq.get(s.seq)!,
      body: s.text,
      title: doc.title,
      heading: headingOf(s.breadcrumb),
      lang: s.lang ?? null,
    })),
  );
  if (doc.chunks.length > 0) {
    const ids = await rows<{ id: number; section_id: string; ord: number }>(
      client,
      'writing chunks',
      `INSERT INTO chunks(doc_rid, doc_id, section_id, ord, text, page)
         SELECT $1, $2, $2 || '#' || sseq, ord, text, page
           FROM unnest($3::int[], $4::int[], $5::text[], $6::int[]) WITH ORDINALITY AS x(sseq, ord, text, page, i)
          ORDER BY i
       RETURNING id, section_id, ord`,
      [
        rid,
        doc.id,
        doc.chunks.map((c) => c.sectionSeq),
        doc.chunks.map((c) => c.ord),
        doc.chunks.map((c) => c.text),
        doc.chunks.map((c) => c.page),
      ],
    );
    const idOf = new Map(ids.map((r) => [`${r.section_id}\n${r.ord}`, r.id]));
    await putVectorRows(
      client,
      fingerprint,
      doc.chunks.map((c, i) => ({
        chunkId: idOf.get(`${doc.id}#${c.sectionSeq}\n${c.ord}`)!,
        vector: vectors[i]!,
      })),
    );
  }
  return existing === undefined ? 'added' : 'updated';
}

/** Mark live versions superseded by `batchId`: unindexed, their sections and chunks not live. */
async function supersede(client: pg.PoolClient, docRids: readonly number[], batchId: string): Promise<void> {
  await unindexDocuments(client, docRids);
  const r = [...docRids];
  await run(client, 'superseding', 'UPDATE documents SET superseded_by = $2 WHERE rid = ANY($1::bigint[])', [
    r,
    batchId,
  ]);
  await run(client, 'superseding', 'UPDATE sections SET live = false WHERE doc_rid = ANY($1::bigint[])', [r]);
  await run(client, 'superseding', 'UPDATE chunks SET live = false WHERE doc_rid = ANY($1::bigint[])', [r]);
}

/** Make superseded versions live again and index their sections. */
async function revive(client: pg.PoolClient, docRids: readonly number[]): Promise<void> {
  if (docRids.length === 0) return;
  const r = [...docRids];
  await run(client, 'reviving', 'UPDATE documents SET superseded_by = NULL WHERE rid = ANY($1::bigint[])', [
    r,
  ]);
  await run(client, 'reviving', 'UPDATE sections SET live = true WHERE doc_rid = ANY($1::bigint[])', [r]);
  await run(client, 'reviving', 'UPDATE chunks SET live = true WHERE doc_rid = ANY($1::bigint[])', [r]);
  const fields = await rows<{
    rid: number;
    text: string;
    title: string;
    breadcrumb: string;
    lang: string | null;
  }>(
    client,
    'reviving',
    `SELECT s.rid, s.text, d.title, s.breadcrumb, s.lang FROM sections s JOIN documents d ON d.rid = s.doc_rid
      WHERE s.doc_rid = ANY($1::bigint[])`,
    [r],
  );
  await indexSections(
    client,
    fields.map((f): SectionFields => ({
      rid: f.rid,
      body: f.text,
      title: f.title,
      heading: headingOf(f.breadcrumb),
      lang: f.lang,
    })),
  );
}

/**
 * Take live documents out as part of batch `batchId` (undoing the batch revives them); ids that are
 * not live are ignored. Returns how many were taken.
 */
export async function removeDocumentVersions(
  client: pg.PoolClient,
  batchId: string,
  docIds: readonly string[],
): Promise<number> {
  const live = await rows<{ rid: number }>(
    client,
    'removing documents',
    'SELECT rid FROM documents WHERE id = ANY($1::text[]) AND superseded_by IS NULL FOR UPDATE',
    [[...new Set(docIds)]],
  );
  await supersede(
    client,
    live.map((l) => l.rid),
    batchId,
  );
  return live.length;
}

/**
 * Undo batch `id` with the SQLite store's checks, made inside the transaction with the batch row
 * locked (two concurrent undos of one batch cannot both succeed): NOT_FOUND, CONFLICT when already
 * rolled back, still running, or not the newest batch that changed documents.
 */
export async function revertBatch(client: pg.PoolClient, id: string): Promise<RollbackResult> {
  const [batch] = await rows<{ status: string; finished_at: string | null; seq: number }>(
    client,
    'undo',
    'SELECT status, finished_at, seq FROM batches WHERE id = $1 FOR UPDATE',
    [id],
  );
  if (batch === undefined) throw new QuiverError('NOT_FOUND', `quiver: no batch ${id}`);
  if (batch.status === 'rolled_back')
    throw new QuiverError(
      'CONFLICT',
      `quiver: batch ${id} is already rolled back (at ${batch.finished_at ?? 'an unknown time'}); nothing was changed`,
      { details: { batch: id, status: 'rolled_back' } },
    );
  if (batch.status === 'running')
    throw new QuiverError(
      'CONFLICT',
      `quiver: batch ${id} is still running; wait for it to finish (or stop it), then undo`,
      {
        details: { batch: id, status: 'running' },
      },
    );
  const [newer] = await rows<{ id: string }>(
    client,
    'undo',
    `SELECT b.id FROM batches b WHERE b.seq > $1 AND b.status != 'rolled_back'
       AND (EXISTS (SELECT 1 FROM documents WHERE batch_id = b.id) OR EXISTS (SELECT 1 FROM documents WHERE superseded_by = b.id))
     ORDER BY b.seq LIMIT 1`,
    [batch.seq],
  );
  if (newer !== undefined)
    throw new QuiverError('CONFLICT', `quiver: batch ${id} is not the newest; roll back ${newer.id} first`);
  const written = await rows<{ rid: number }>(
    client,
    'undo',
    'SELECT rid FROM documents WHERE batch_id = $1',
    [id],
  );
  await unindexDocuments(
    client,
    written.map((w) => w.rid),
  );
  await run(client, 'undo', 'DELETE FROM documents WHERE batch_id = $1', [id]);
  const revived = await rows<{ rid: number }>(
    client,
    'undo',
    'SELECT rid FROM documents WHERE superseded_by = $1',
    [id],
  );
  await revive(
    client,
    revived.map((r) => r.rid),
  );
  await run(client, 'undo', `UPDATE batches SET status = 'rolled_back', finished_at = $2 WHERE id = $1`, [
    id,
    now(),
  ]);
  return { batchId: id, removed: written.length, restored: revived.length };
}
