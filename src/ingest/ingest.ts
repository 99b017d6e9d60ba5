import { stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import type { Embedder } from '../embed/embedder.js';
import { isQuiverError, QuiverError } from '../errors.js';
import type { Store, WriteDocumentInput, WriteStatus } from '../store/store.js';
import type { BatchRecord } from '../types.js';
import { buildDocument } from './build.js';
import type { ParsedDocument } from './parsed.js';
import { readPath, readLiteral } from './read-source.js';
import { walkFiles } from './walk.js';

/** A thing to add: a file or folder path, or literal text (a note). */
export type AddInput = string | { text: string; title?: string; source?: string };

export interface AddProgress {
  done: number;
  total: number;
  source: string;
  status: WriteStatus | 'failed';
}

export interface AddOptions {
  include?: string[];
  exclude?: string[];
  label?: string;
  chunkChars?: number;
  maxFileBytes?: number;
  /** Folder that relative sources are computed from (the vault's project root). */
  root?: string;
  onProgress?: (p: AddProgress) => void;
  signal?: AbortSignal;
}

export interface AddItem {
  source: string;
  status: WriteStatus | 'failed';
  docId?: string;
  title?: string;
  chunks?: number;
  error?: { code: string; message: string };
}

export interface AddReport {
  batch: BatchRecord;
  items: AddItem[];
}

/** Documents (or chunks) written per transaction during ingest. */
export const WRITE_BATCH_DOCS = 64;
export const WRITE_BATCH_CHUNKS = 2048;

/** The text the embedder sees for a chunk: its breadcrumb, a blank line, its text. */
export function embeddingText(breadcrumb: string, text: string): string {
  return breadcrumb === '' ? text : `${breadcrumb}\n\n${text}`;
}

/** The project root of a vault file: the folder holding `.quiver/`, or the file's own folder. */
export function vaultRoot(vaultPath: string): string {
  const dir = dirname(resolve(vaultPath));
  return basename(dir) === '.quiver' ? dirname(dir) : dir;
}

/** A file's source identity: its path relative to the root (POSIX separators), or absolute outside it. */
export function sourceOf(path: string, root: string): string {
  const abs = resolve(path);
  const rel = relative(root, abs);
  const out = rel === '' || rel.startsWith('..') || isAbsolute(rel) ? abs : rel;
  return out.split(sep).join('/');
}

type Task =
  | { kind: 'file'; path: string }
  | { kind: 'text'; input: Exclude<AddInput, string> }
  | { kind: 'error'; path: string; error: unknown };

async function expand(inputs: readonly AddInput[], options: AddOptions): Promise<Task[]> {
  const tasks: Task[] = [];
  for (const input of inputs) {
    if (typeof input !== 'string') {
      tasks.push({ kind: 'text', input });
      continue;
    }
    let st;
    try {
      st = await stat(input);
    } catch (e) {
      tasks.push({
        kind: 'error',
        path: input,
        error: new QuiverError(
          'UNREADABLE',
          `quiver: cannot read ${input}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
          { cause: e },
        ),
      });
      continue;
    }
    if (st.isDirectory()) {
      for await (const entry of walkFiles(input, {
        ...(options.include === undefined ? {} : { include: options.include }),
        ...(options.exclude === undefined ? {} : { exclude: options.exclude }),
      })) {
        if ('error' in entry) tasks.push({ kind: 'error', path: entry.path, error: entry.error });
        else tasks.push({ kind: 'file', path: entry.path });
      }
    } else tasks.push({ kind: 'file', path: input });
  }
  return tasks;
}

function toItemError(e: unknown): { code: string; message: string } {
  if (isQuiverError(e)) return { code: e.code, message: e.message };
  return { code: 'INTERNAL', message: (e as Error).message ?? String(e) };
}

/**
 * Ingest sources into the store as one batch. Each document is written in its own transaction
 * (a crash never leaves half a document); unchanged documents (same content hash) are skipped
 * before embedding; bad files are reported with their path and reason and never stop the batch.
 */
export async function ingest(
  store: Store,
  embedder: Embedder,
  inputs: readonly AddInput[],
  options: AddOptions = {},
): Promise<AddReport> {
  const root = options.root ?? process.cwd();
  const tasks = await expand(inputs, options);
  const batch = await store.beginBatch(
    options.label ??
      inputs
        .map((i) => (typeof i === 'string' ? i : (i.source ?? 'text')))
        .join(' ')
        .slice(0, 200),
  );
  const items: AddItem[] = [];
  const report = (item: AddItem): void => {
    items.push(item);
    if (item.status === 'failed') {
      batch.failed++;
      batch.errors.push({
        source: item.source,
        code: item.error?.code ?? 'INTERNAL',
        message: item.error?.message ?? '',
      });
    } else batch[item.status]++;
    options.onProgress?.({
      done: items.length,
      total: Math.max(tasks.length, items.length),
      source: item.source,
      status: item.status,
    });
  };
  // Documents are written in groups, one transaction each: whole documents only, ever.
  let pending: WriteDocumentInput[] = [];
  let pendingChunks = 0;
  const flush = async (): Promise<void> => {
    if (pending.length === 0) return;
    const group = pending;
    pending = [];
    pendingChunks = 0;
    let statuses: WriteStatus[];
    try {
      statuses = await store.writeDocuments(group);
    } catch (e) {
      for (const w of group) report({ source: w.document.source, status: 'failed', error: toItemError(e) });
      return;
    }
    group.forEach((w, i) =>
      report({
        source: w.document.source,
        status: statuses[i]!,
        docId: w.document.id,
        title: w.document.title,
        chunks: w.document.chunks.length,
      }),
    );
  };
  try {
    for (const task of tasks) {
      if (options.signal?.aborted === true) throw new QuiverError('ABORTED', 'quiver: ingest aborted');
      if (task.kind === 'error') {
        report({ source: sourceOf(task.path, root), status: 'failed', error: toItemError(task.error) });
        continue;
      }
      const source = task.kind === 'file' ? sourceOf(task.path, root) : (task.input.source ?? '');
      let parsed: { docs: ParsedDocument[]; errors: { source: string; message: string }[] };
      try {
        parsed =
          task.kind === 'file'
            ? await readPath(task.path, source, {
                ...(options.maxFileBytes === undefined ? {} : { maxBytes: options.maxFileBytes }),
              })
            : readLiteral(task.input);
      } catch (e) {
        report({ source: source || 'text', status: 'failed', error: toItemError(e) });
        continue;
      }
      for (const err of parsed.errors)
        report({ source: err.source, status: 'failed', error: { code: 'BAD_INPUT', message: err.message } });
      for (const doc of parsed.docs) {
        try {
          const built = buildDocument(doc, {
            ...(options.chunkChars === undefined ? {} : { chunkTarget: options.chunkChars }),
          });
          if ((await store.contentHash(built.id)) === built.contentHash) {
            report({
              source: built.source,
              status: 'unchanged',
              docId: built.id,
              title: built.title,
              chunks: built.chunks.length,
            });
            continue;
          }
          const crumbs = new Map(built.sections.map((s) => [s.seq, s.breadcrumb] as const));
          const vectors = await embedder.embed(
            built.chunks.map((c) => embeddingText(crumbs.get(c.sectionSeq) ?? '', c.text)),
            { purpose: 'document', ...(options.signal === undefined ? {} : { signal: options.signal }) },
          );
          pending.push({ batchId: batch.id, document: built, vectors, fingerprint: embedder.id });
          pendingChunks += built.chunks.length;
          if (pending.length >= WRITE_BATCH_DOCS || pendingChunks >= WRITE_BATCH_CHUNKS) await flush();
        } catch (e) {
          if (isQuiverError(e, 'ABORTED')) throw e;
          report({ source: doc.source, status: 'failed', error: toItemError(e) });
        }
      }
    }
    await flush();
    batch.status = 'done';
  } catch (e) {
    batch.status = 'interrupted';
    batch.finishedAt = new Date().toISOString();
    await store.finishBatch(batch);
    throw e;
  }
  batch.finishedAt = new Date().toISOString();
  await store.finishBatch(batch);
  return { batch, items };
}
