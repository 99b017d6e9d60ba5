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
 * Write documents, each as `writeDocuments` defines it: 'unchanged' when the live version has the
 * same content hash, else supersede the live version (if any) and insert the new one with its
 * sections (indexed), chunks and vectors; `addedAt` carries over. Set-based: one statement per
 * table for the whole group (about ten round trips, not ten per document), which is what makes
 * ingest over a network affordable. The live rows are locked first, so two writers of one document
 * serialise. A group naming one document twice is written one document at a time, in order, so
 * the second write sees the first.
 */
export async function writeDocumentVersions(
  client: pg.PoolClient,
  inputs: readonly WriteDocumentInput[],
): Promise<WriteStatus[]> {
  const ids = inputs.map((i) => i.document.id);
  if (new Set(ids).size < ids.length) {
    const out: WriteStatus[] = [];
    for (const i of inputs) out.push(...(await writeDocumentVersions(client, [i])));
    return out;
  }
  const existing = new Map(
    (
      await rows<{ id: string; rid: number; content_hash: string; added_at: string }>(
        client,
        'writing documents',
        'SELECT id, rid, content_hash, added_at FROM documents WHERE id = ANY($1::text[]) AND superseded_by IS NULL FOR UPDATE',
        [ids],
      )
    ).map((r) => [r.id, r]),
  );
  const statuses: WriteStatus[] = inputs.map((i) => {
    const e = existing.get(i.document.id);
    return e === undefined ? 'added' : e.content_hash === i.document.contentHash ? 'unchanged' : 'updated';
  });
  const todo = inputs.filter((_, k) => statuses[k] !== 'unchanged');
  if (todo.length === 0) return statuses;
  // Superseded versions, grouped by the batch that supersedes them.
  const byBatch = new Map<string, number[]>();
  for (const i of todo) {
    const e = existing.get(i.document.id);
    if (e === undefined) continue;
    let list = byBatch.get(i.batchId);
    if (list === undefined) byBatch.set(i.batchId, (list = []));
    list.push(e.rid);
  }
  for (const [batchId, rids] of byBatch) await supersede(client, rids, batchId);
  const t = now();
  const docs = todo.map((i) => i.document);
  const docRows = await rows<{ rid: number; id: string }>(
    client,
    'writing documents',
    `INSERT INTO documents(id, source, title, kind, meta, content_hash, pages, added_at, updated_at, batch_id, lang)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[],
                            $8::text[], $9::text[], $10::text[], $11::text[])
     RETURNING rid, id`,
    [
      docs.map((d) => d.id),
      docs.map((d) => d.source),
      docs.map((d) => d.title),
      docs.map((d) => d.kind),
      docs.map((d) => JSON.stringify(d.meta)),
      docs.map((d) => d.contentHash),
      docs.map((d) => d.pages),
      docs.map((d) => existing.get(d.id)?.added_at ?? t),
      docs.map(() => t),
      todo.map((i) => i.batchId),
      docs.map((d) => d.lang ?? null),
    ],
  );
  const ridOf = new Map(docRows.map((r) => [r.id, r.rid]));
  const sections = docs.flatMap((d) => d.sections.map((s) => ({ d, s })));
  const inserted = await rows<{ rid: number; id: string }>(
    client,
    'writing sections',
    `INSERT INTO sections(id, doc_rid, doc_id, parent_id, seq, level, title, breadcrumb, page_start, page_end, text, lang)
       SELECT doc || '#' || seq, drid, doc, CASE WHEN parent IS NULL THEN NULL ELSE doc || '#' || parent END,
              seq, level, title, breadcrumb, ps, pe, text, lang
         FROM unnest($1::text[], $2::bigint[], $3::int[], $4::int[], $5::int[], $6::text[], $7::text[], $8::int[],
                     $9::int[], $10::text[], $11::text[])
           AS x(doc, drid, seq, parent, level, title, breadcrumb, ps, pe, text, lang)
     RETURNING rid, id`,
    [
      sections.map(({ d }) => d.id),
      sections.map(({ d }) => ridOf.get(d.id)!),
      sections.map(({ s }) => s.seq),
      sections.map(({ s }) => s.parentSeq),
      sections.map(({ s }) => s.level),
      sections.map(({ s }) => s.title),
      sections.map(({ s }) => s.breadcrumb),
      sections.map(({ s }) => s.pageStart),
      sections.map(({ s }) => s.pageEnd),
      sections.map(({ s }) => s.text),
      sections.map(({ s }) => s.lang ?? null),
    ],
  );
  const sectionRid = new Map(inserted.map((r) => [r.id, r.rid]));
  await indexSections(
    client,
    sections.map(({ d, s }) => ({
      rid: sectionRid.get(`${d.id}#${s.seq}`)!,
      body: s.text,
      title: d.title,
      heading: headingOf(s.breadcrumb),
      lang: s.lang ?? null,
    })),
  );
  const chunks = todo.flatMap((i) => i.document.chunks.map((c, k) => ({ i, c, v: i.vectors[k]! })));
  if (chunks.length === 0) return statuses;
  const chunkRows = await rows<{ id: number; section_id: string; ord: number }>(
    client,
    'writing chunks',
    `INSERT INTO chunks(doc_rid, doc_id, section_id, ord, text, page)
       SELECT drid, doc, doc || '#' || sseq, ord, text, page
         FROM unnest($1::bigint[], $2::text[], $3::int[], $4::int[], $5::text[], $6::int[]) WITH ORDINALITY
           AS x(drid, doc, sseq, ord, text, page, n)
        ORDER BY n
     RETURNING id, section_id, ord`,
    [
      chunks.map(({ i }) => ridOf.get(i.document.id)!),
      chunks.map(({ i }) => i.document.id),
      chunks.map(({ c }) => c.sectionSeq),
      chunks.map(({ c }) => c.ord),
      chunks.map(({ c }) => c.text),
      chunks.map(({ c }) => c.page),
    ],
  );
  const chunkId = new Map(chunkRows.map((r) => [`${r.section_id}\n${r.ord}`, r.id]));
  const byFingerprint = new Map<string, { chunkId: number; vector: Float32Array }[]>();
  for (const { i, c, v } of chunks) {
    let list = byFingerprint.get(i.fingerprint);
    if (list === undefined) byFingerprint.set(i.fingerprint, (list = []));
    list.push({ chunkId: chunkId.get(`${i.document.id}#${c.sectionSeq}\n${c.ord}`)!, vector: v });
  }
  for (const [fp, list] of byFingerprint) await putVectorRows(client, fp, list);
  return statuses;
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
