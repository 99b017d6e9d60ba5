import { createHash } from 'node:crypto';
import { QuiverError } from '../errors.js';
import type { EvalPayload } from './eval-job.js';

/**
 * The kinds of background work and their payloads. A payload is JSON kept in the store; a handler
 * (`run-job.ts`) checks it again before acting, since the row may have been written by another
 * release or by hand.
 */
export const JOB_KINDS = ['ingest', 'reindex', 'refit', 'index', 'noise-fit', 'eval'] as const;
export type JobKind = (typeof JOB_KINDS)[number];

/** An uploaded file kept as a store blob until its ingest job is done. */
export interface UploadRef {
  /** Blob name (`upload:<sha256>`). */
  blob: string;
  /** The safe file name it was uploaded as (its extension picks the reader). */
  name: string;
  sha256: string;
  bytes: number;
}

export interface IngestPayload {
  /** Server-side files and folders (already checked against the configured roots). */
  paths?: string[];
  /**
   * The real folders `paths` were checked against (a served admin ingest): the job checks them
   * again when it runs (a folder may have been swapped for a link meanwhile), and a linked file
   * inside must lead under them too.
   */
  roots?: string[];
  texts?: { text: string; source?: string; title?: string }[];
  uploads?: UploadRef[];
  include?: string[];
  exclude?: string[];
  sync?: boolean;
}

export interface PayloadOf {
  ingest: IngestPayload;
  reindex: Record<string, never>;
  refit: Record<string, never>;
  index: Record<string, never>;
  'noise-fit': Record<string, never>;
  eval: EvalPayload;
}

export function isJobKind(v: unknown): v is JobKind {
  return typeof v === 'string' && (JOB_KINDS as readonly string[]).includes(v);
}

/** The blob name of an upload's bytes: content-addressed, so the same file is kept once. */
export function uploadBlobName(sha256: string): string {
  return `upload:${sha256}`;
}

export function sha256Hex(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * The idempotence key of a job: `kind:` + SHA-256 of its payload's canonical JSON (keys sorted at
 * every depth), so the same request enqueued twice while the first is pending is one job. For an
 * ingest of uploads or texts the payload holds content hashes or the texts themselves, so the key
 * is a content hash; a folder ingest is keyed by its paths (its files are read when it runs, and
 * unchanged files are then skipped by their content hash).
 */
export function jobKey(kind: JobKind, payload: object): string {
  return `${kind}:${sha256Hex(canonicalJson(payload))}`;
}

/** JSON with object keys sorted at every depth; arrays keep their order. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonicalJson(x)}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

function strings(v: unknown, field: string): string[] | undefined {
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string'))
    throw new QuiverError('BAD_INPUT', `quiver: ingest job: "${field}" must be a list of strings`);
  return v as string[];
}

/** An ingest payload read back from the store, checked field by field. */
export function ingestPayload(raw: Record<string, unknown>): IngestPayload {
  const out: IngestPayload = {};
  const paths = strings(raw.paths, 'paths');
  if (paths !== undefined) out.paths = paths;
  const roots = strings(raw.roots, 'roots');
  if (roots !== undefined) out.roots = roots;
  const include = strings(raw.include, 'include');
  if (include !== undefined) out.include = include;
  const exclude = strings(raw.exclude, 'exclude');
  if (exclude !== undefined) out.exclude = exclude;
  if (raw.sync !== undefined) out.sync = raw.sync === true;
  if (raw.texts !== undefined) {
    if (!Array.isArray(raw.texts))
      throw new QuiverError('BAD_INPUT', 'quiver: ingest job: "texts" must be a list');
    out.texts = raw.texts.map((t: unknown) => {
      const r = t as Record<string, unknown>;
      if (typeof r?.text !== 'string')
        throw new QuiverError('BAD_INPUT', 'quiver: ingest job: a text has no "text"');
      return {
        text: r.text,
        ...(typeof r.source === 'string' ? { source: r.source } : {}),
        ...(typeof r.title === 'string' ? { title: r.title } : {}),
      };
    });
  }
  if (raw.uploads !== undefined) {
    if (!Array.isArray(raw.uploads))
      throw new QuiverError('BAD_INPUT', 'quiver: ingest job: "uploads" must be a list');
    out.uploads = raw.uploads.map((u: unknown) => {
      const r = u as Record<string, unknown>;
      if (typeof r?.blob !== 'string' || typeof r.name !== 'string' || typeof r.sha256 !== 'string')
        throw new QuiverError('BAD_INPUT', 'quiver: ingest job: an upload needs blob, name and sha256');
      return { blob: r.blob, name: r.name, sha256: r.sha256, bytes: Number(r.bytes) || 0 };
    });
  }
  if ((out.paths?.length ?? 0) + (out.texts?.length ?? 0) + (out.uploads?.length ?? 0) === 0)
    throw new QuiverError('BAD_INPUT', 'quiver: an ingest job needs paths, texts or uploads');
  return out;
}
