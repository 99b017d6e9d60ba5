import { QuiverError } from '../../errors.js';
import { keepUpload } from '../../jobs/enqueue.js';
import type { IngestPayload, UploadRef } from '../../jobs/job-kinds.js';
import { submitJob } from '../../jobs/queue.js';
import type { Vault } from '../../vault.js';
import { addJson, documentJson, outlineJson, readJson } from '../../wire/ingest.js';
import { jobJson } from '../../wire/jobs.js';
import { AddRequest, UndoRequest } from '../../wire/requests.js';
import { realRoots } from '../../ingest/path-under.js';
import { pathUnderRoots } from '../roots.js';
import { intQuery, multipartFiles, param, route, type Ctx, type Route } from '../route.js';
import { allows } from '../tokens.js';
import { UPLOAD_HEAD_BYTES, uploadKind } from '../upload-kind.js';
import { safeUploadName } from '../upload-name.js';

/** Documents: list, read, outline, add (text, upload, server folder), remove, batches and undo. */

/** 202 Accepted with the job and where to watch it. */
function accepted(c: Ctx, job: Awaited<ReturnType<typeof submitJob>>): Response {
  return c.json({ job: jobJson(job) }, 202, { Location: `/v1/jobs/${job.id}` });
}

async function ingestJob(c: Ctx, vault: Vault, payload: IngestPayload): Promise<Response> {
  return accepted(c, await submitJob(vault, 'ingest', payload));
}

export const DOCUMENT_ROUTES: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/documents',
    role: 'read',
    tag: 'documents',
    summary: 'The documents, newest first',
    query: { limit: 'at most this many (1–10000, default 100)', source: 'only sources starting with this' },
    handle: async (c, d) => {
      const limit = intQuery(c, 'limit', 100, 1, 10_000);
      const source = c.req.query('source');
      const docs = await d.reader.docs({
        limit,
        ...(source === undefined ? {} : { filter: { sourcePrefix: source } }),
      });
      return c.json({ documents: docs.map(documentJson) });
    },
  }),
  route({
    method: 'GET',
    path: '/v1/documents/:id',
    role: 'read',
    tag: 'documents',
    summary: 'One document (its record)',
    handle: async (c, d) => c.json(documentJson((await d.reader.outline(param(c, 'id'))).document)),
  }),
  route({
    method: 'GET',
    path: '/v1/documents/:id/outline',
    role: 'read',
    tag: 'documents',
    summary: "A document's sections (ids, levels, titles, pages), in order",
    handle: async (c, d) => c.json(outlineJson(await d.reader.outline(param(c, 'id')))),
  }),
  route({
    method: 'GET',
    path: '/v1/sections/:id',
    role: 'read',
    tag: 'documents',
    summary: 'A section with the text of its subtree',
    handle: async (c, d) => c.json(readJson(await d.reader.read(param(c, 'id')))),
  }),
  route({
    method: 'POST',
    path: '/v1/documents',
    role: 'write',
    tag: 'documents',
    summary:
      'Add documents: `text` or `texts` (written now, 201; with async: true as a job, 202), or server-side `paths` under the configured roots (admin; always a job, 202)',
    body: AddRequest,
    status: 201,
    handle: async (c, d, b) => {
      const texts = [
        ...(b.text === undefined
          ? []
          : [
              {
                text: b.text,
                ...(b.source === undefined ? {} : { source: b.source }),
                ...(b.title === undefined ? {} : { title: b.title }),
              },
            ]),
        ...(b.texts ?? []).map((t) => ({
          text: t.text,
          ...(t.source === undefined ? {} : { source: t.source }),
          ...(t.title === undefined ? {} : { title: t.title }),
        })),
      ];
      const paths = b.paths ?? [];
      if (texts.length + paths.length === 0)
        throw new QuiverError('BAD_INPUT', 'quiver: give "text", "texts" or (admin) "paths"');
      if (paths.length > 0 && !allows(c.get('token').role, 'admin'))
        throw new QuiverError('FORBIDDEN', 'quiver: ingesting server-side paths needs an admin token');
      const resolved = paths.map((p) => pathUnderRoots(p, d.roots ?? []));
      const filters = {
        ...(b.include === undefined ? {} : { include: b.include }),
        ...(b.exclude === undefined ? {} : { exclude: b.exclude }),
        ...(b.sync === undefined ? {} : { sync: b.sync }),
      };
      if (resolved.length > 0 || b.async === true)
        return ingestJob(c, d.writer, {
          ...(resolved.length === 0 ? {} : { paths: resolved, roots: realRoots(d.roots ?? []) }),
          ...(texts.length === 0 ? {} : { texts }),
          ...filters,
        });
      // Literal text only: nothing in this body reaches the file system.
      return c.json(addJson(await d.writer.add(texts, { signal: c.req.raw.signal })), 201);
    },
  }),
  route({
    method: 'POST',
    path: '/v1/uploads',
    role: 'write',
    tag: 'documents',
    summary:
      'Upload files (multipart/form-data, field `file`, one or more): each name and type is checked, the bytes are kept in the vault, and one ingest job (202) reads them',
    multipart: true,
    status: 202,
    handle: async (c, d) => {
      const help = 'quiver: an upload must be multipart/form-data with one or more "file" fields';
      const { files } = await multipartFiles(c, help);
      if (files.length === 0) throw new QuiverError('BAD_INPUT', help);
      // Check every file before keeping any, so a bad one changes nothing.
      const checked: { name: string; bytes: Uint8Array }[] = [];
      for (const f of files) {
        const name = safeUploadName(f.name);
        const bytes = new Uint8Array(await f.arrayBuffer());
        uploadKind(name, bytes.subarray(0, UPLOAD_HEAD_BYTES));
        checked.push({ name, bytes });
      }
      const uploads: UploadRef[] = [];
      for (const f of checked) uploads.push(await keepUpload(d.writer.store, f.name, f.bytes));
      return ingestJob(c, d.writer, { uploads });
    },
  }),
  route({
    method: 'DELETE',
    path: '/v1/documents/:id',
    role: 'write',
    tag: 'documents',
    summary: 'Remove a document (one undoable batch)',
    handle: async (c, d) => {
      const id = param(c, 'id');
      // One document per call: `rm` reads a ref ending in "/" as a source prefix (all under it).
      if (id.endsWith('/'))
        throw new QuiverError(
          'BAD_INPUT',
          `quiver: give one document's id or exact source, not a prefix, got ${JSON.stringify(id)}`,
        );
      const r = await d.writer.rm([id]);
      if (r.removed.length === 0) throw new QuiverError('NOT_FOUND', `quiver: no document ${id}`);
      return c.json({ batch: r.batch.id, removed: r.removed.map(documentJson) });
    },
  }),
  route({
    method: 'GET',
    path: '/v1/batches',
    role: 'read',
    tag: 'documents',
    summary: 'Ingest and removal batches, newest first',
    query: { limit: 'at most this many (1–1000, default 50)' },
    handle: async (c, d) => c.json({ batches: await d.reader.batches(intQuery(c, 'limit', 50, 1, 1000)) }),
  }),
  route({
    method: 'POST',
    path: '/v1/undo',
    role: 'admin',
    tag: 'documents',
    summary: 'Undo a batch exactly (the last one when none is named)',
    body: UndoRequest,
    handle: async (c, d, b) => c.json({ ...(await d.writer.undo(b.batch, { signal: c.req.raw.signal })) }),
  }),
];
