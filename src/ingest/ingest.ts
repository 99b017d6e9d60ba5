import { stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { Embedder } from '../embed/embedder.js';
import { isQuiverError, QuiverError } from '../errors.js';
import type { BatchOwner, Store, WriteDocumentInput, WriteStatus } from '../store/store.js';
import type { BatchRecord } from '../types.js';
import { failpoint } from '../_failpoint.js';
import { buildDocument } from './build.js';
import { readBytes, readPath, readLiteral, type ReadResult } from './read-source.js';
import { unreadable } from './file-head.js';
import { walkFiles } from './walk.js';

/** A failure of the vault itself (locked, disk full) or a stop request: the batch ends, no file fails. */
function stopsBatch(e: unknown): boolean {
  return isQuiverError(e, 'CONFLICT') || isQuiverError(e, 'ABORTED') || isQuiverError(e, 'NO_SPACE');
}

/**
 * A thing to add: a file or folder path, literal text (a note), or the bytes of an uploaded file
 * (`source`, a name with an extension, picks the reader as a file's name would).
 */
export type AddInput =
  | string
  | { text: string; title?: string; source?: string }
  | { bytes: Uint8Array; source: string; title?: string };

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
  /**
   * Stop between documents: what is embedded so far is written (whole documents only), the batch
   * is marked 'interrupted', and ABORTED is thrown.
   */
  signal?: AbortSignal;
  /**
   * For each folder given: take out of the vault (in this batch, so `undo` restores them) the
   * documents whose files under it are gone; a gone file whose content reappears under a new
   * name is reported as renamed, and its noise mark follows it.
   */
  sync?: boolean;
  /** Files a folder walk never reads (the vault's own file; its -wal, -shm and index files too). */
  ownFiles?: readonly string[];
  /** Real folders a linked file in a folder walk must lead into (walk.ts `within`). */
  within?: readonly string[];
  /** The process running the batch, recorded with it. */
  owner?: BatchOwner;
  /** Told the batch id as soon as the batch exists. */
  onBatch?: (batchId: string) => Promise<void> | void;
}

/** A file a folder walk passed over, and why. */
export interface SkippedFile {
  source: string;
  reason: 'vault-file' | 'binary' | 'unknown-type' | 'outside-roots';
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
  /** Files folder walks skipped (`include` globs take unknown types in). */
  skipped: SkippedFile[];
  /** With `sync`: documents taken out because their files are gone (`renamedTo` when moved). */
  removed: { docId: string; source: string; renamedTo?: string }[];
}

/** Documents (or chunks) written per transaction during ingest. */
export const WRITE_BATCH_DOCS = 64;
export const WRITE_BATCH_CHUNKS = 2048;

/** The text the embedder sees for a chunk: its breadcrumb, a blank line, its text. */
export function embeddingText(breadcrumb: string, text: string): string {
  return breadcrumb === '' ? text : `${breadcrumb}\n\n${text}`;
}

export { vaultRoot } from './vault-root.js';

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
  | { kind: 'error'; path: string; error: unknown }
  | { kind: 'skipped'; path: string; reason: SkippedFile['reason'] };

/** The tasks of a run and the folders it walked (for `sync`); a named path that is missing throws NOT_FOUND. */
async function expand(
  inputs: readonly AddInput[],
  options: AddOptions,
): Promise<{ tasks: Task[]; folders: string[] }> {
  const tasks: Task[] = [];
  const folders: string[] = [];
  for (const input of inputs) {
    if (typeof input !== 'string') {
      tasks.push({ kind: 'text', input });
      continue;
    }
    let st;
    try {
      st = await stat(input);
    } catch (e) {
      // A path the caller named that is not there: nothing is ingested (as git add does), since a
      // typo would otherwise leave a batch of everything else behind.
      if ((e as NodeJS.ErrnoException).code === 'ENOENT')
        throw new QuiverError('NOT_FOUND', `quiver: ${input} does not exist; nothing was added`, {
          cause: e,
          details: { path: input },
        });
      tasks.push({ kind: 'error', path: input, error: unreadable(input, e) });
      continue;
    }
    if (st.isDirectory()) {
      folders.push(input);
      for await (const entry of walkFiles(input, {
        ...(options.include === undefined ? {} : { include: options.include }),
        ...(options.exclude === undefined ? {} : { exclude: options.exclude }),
        ...(options.ownFiles === undefined ? {} : { ownFiles: options.ownFiles }),
        ...(options.within === undefined ? {} : { within: options.within }),
      })) {
        if ('error' in entry) tasks.push({ kind: 'error', path: entry.path, error: entry.error });
        else if ('skipped' in entry) tasks.push({ kind: 'skipped', path: entry.path, reason: entry.skipped });
        else tasks.push({ kind: 'file', path: entry.path });
      }
    } else tasks.push({ kind: 'file', path: input });
  }
  return { tasks, folders };
}

/**
 * A per-file error: QuiverErrors keep their code; a stack overflow or an allocation failure inside
 * a reader (a pathologically nested file) is CORRUPT_FILE; anything else INTERNAL.
 */
function toItemError(e: unknown): { code: string; message: string } {
  if (isQuiverError(e)) return { code: e.code, message: e.message };
  if (e instanceof RangeError)
    return { code: 'CORRUPT_FILE', message: `quiver: the file cannot be parsed safely (${e.message})` };
  return { code: 'INTERNAL', message: (e as Error).message ?? String(e) };
}

/** Does a live document's source belong to a file the run read (the file itself, or a part or line of it)? */
function fromFile(docSource: string, fileSources: ReadonlySet<string>): boolean {
  if (fileSources.has(docSource)) return true;
  const hash = docSource.lastIndexOf('#');
  return hash > 0 && fileSources.has(docSource.slice(0, hash));
}

/** Sources under a walked folder: its relative prefix (`notes/`), or every relative file path for the root itself. */
function underFolder(docSource: string, folderSource: string): boolean {
  if (folderSource === '') return !/^[a-z][a-z0-9+.-]*:/i.test(docSource) && !docSource.startsWith('/');
  return docSource.startsWith(`${folderSource}/`);
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
  const { tasks, folders } = await expand(inputs, options);
  const batch = await store.beginBatch(
    options.label ??
      inputs
        .map((i) => (typeof i === 'string' ? i : (i.source ?? 'text')))
        .join(' ')
        .slice(0, 200),
    ...(options.owner === undefined ? [] : [options.owner]),
  );
  await options.onBatch?.(batch.id);
  const items: AddItem[] = [];
  const skipped: SkippedFile[] = [];
  const removed: AddReport['removed'] = [];
  /** Sources of the files this run read or tried to (a failed file is not "gone"). */
  const fileSources = new Set<string>();
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
      // The vault itself refused (locked, full, aborted): stop the batch rather than fail files one by one.
      if (stopsBatch(e)) throw e;
      for (const w of group) report({ source: w.document.source, status: 'failed', error: toItemError(e) });
      return;
    }
    failpoint('ingest.flush');
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
  const aborted = (): QuiverError =>
    new QuiverError(
      'ABORTED',
      `quiver: ingest stopped; batch ${batch.id} is interrupted (whole documents kept)`,
    );
  const stopped = (): boolean => options.signal?.aborted === true;
  try {
    for (const task of tasks) {
      if (stopped()) throw aborted();
      if (task.kind === 'skipped') {
        skipped.push({ source: sourceOf(task.path, root), reason: task.reason });
        continue;
      }
      if (task.kind === 'error') {
        fileSources.add(sourceOf(task.path, root));
        report({ source: sourceOf(task.path, root), status: 'failed', error: toItemError(task.error) });
        continue;
      }
      const source = task.kind === 'file' ? sourceOf(task.path, root) : (task.input.source ?? '');
      if (task.kind === 'file') fileSources.add(source);
      let parsed: ReadResult;
      try {
        parsed =
          task.kind === 'file'
            ? await readPath(task.path, source, {
                ...(options.maxFileBytes === undefined ? {} : { maxBytes: options.maxFileBytes }),
              })
            : 'bytes' in task.input
              ? await readBytes(task.input.bytes, task.input.source, {
                  ...(options.maxFileBytes === undefined ? {} : { maxBytes: options.maxFileBytes }),
                  ...(task.input.title === undefined ? {} : { title: task.input.title }),
                })
              : readLiteral(task.input);
      } catch (e) {
        report({ source: source || 'text', status: 'failed', error: toItemError(e) });
        continue;
      }
      for (const err of parsed.errors)
        report({ source: err.source, status: 'failed', error: { code: 'BAD_INPUT', message: err.message } });
      // Large text is read lazily: a read error while iterating fails this file, not the batch.
      try {
        for await (const doc of parsed.docs) {
          if (stopped()) throw aborted();
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
            if (stopsBatch(e)) throw e;
            report({ source: doc.source, status: 'failed', error: toItemError(e) });
          }
        }
      } catch (e) {
        if (stopsBatch(e)) throw e;
        report({ source, status: 'failed', error: toItemError(e) });
      }
    }
    await flush();
    if (options.sync === true && folders.length > 0) await syncFolders();
    batch.status = 'done';
  } catch (e) {
    // Keep what was embedded (whole documents), then record the batch as interrupted.
    if (!isQuiverError(e, 'CONFLICT') && !isQuiverError(e, 'NO_SPACE')) await flush().catch(() => undefined);
    batch.status = 'interrupted';
    batch.finishedAt = new Date().toISOString();
    await store.finishBatch(batch).catch(() => undefined);
    if (isQuiverError(e, 'ABORTED')) throw aborted();
    throw e;
  }
  batch.finishedAt = new Date().toISOString();
  await store.finishBatch(batch);
  return { batch, items, skipped, removed };

  /** `sync`: remove documents under the walked folders whose files were not seen; follow renames by hash. */
  async function syncFolders(): Promise<void> {
    const prefixes = folders.map((f) => {
      const s = sourceOf(f, root);
      return s.startsWith('/') && resolve(f) === resolve(root) ? '' : s;
    });
    const live = await store.listDocumentHashes();
    const gone = live.filter(
      (d) => prefixes.some((p) => underFolder(d.source, p)) && !fromFile(d.source, fileSources),
    );
    if (gone.length === 0) return;
    const addedByHash = new Map<string, string>();
    for (const i of items)
      if (i.status === 'added' && i.docId !== undefined) {
        const h = await store.contentHash(i.docId);
        if (h !== null) addedByHash.set(h, i.docId);
      }
    const marks = new Map((await store.listMarks()).map((m) => [m.docId, m] as const));
    batch.removed += await store.removeDocuments(
      batch.id,
      gone.map((d) => d.id),
    );
    for (const d of gone) {
      const to = addedByHash.get(d.contentHash);
      const mark = marks.get(d.id);
      if (to !== undefined && mark !== undefined) await store.setMark(to, mark.noisy, mark.reason);
      const toSource = to === undefined ? undefined : items.find((i) => i.docId === to)?.source;
      removed.push({
        docId: d.id,
        source: d.source,
        ...(toSource === undefined ? {} : { renamedTo: toSource }),
      });
    }
  }
}
