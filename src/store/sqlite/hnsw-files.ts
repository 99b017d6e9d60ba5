/**
 * The on-disk pair of an HNSW index (`hnsw-index.ts`): `<db>.<8 hex of sha256(fingerprint)>.hnsw`
 * (hnswlib's own format) and a JSON sidecar `….hnsw.json` holding {@link HnswSidecar}: format
 * version, embedder fingerprint, dims, the store's opaque `stamp`, parameters, tombstoned labels,
 * and the index file's byte length and SHA-256, so a truncated, garbled or half-written file is
 * detected before hnswlib reads it. Both files are written to a temporary name, synced and renamed,
 * so a crash never leaves a pair that looks valid.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { lazyZod, type Zod } from '../../_zod.js';
import { QuiverError } from '../../errors.js';

/** Version of the file pair written by {@link writeHnswFiles}; other versions are refused. */
export const HNSW_FORMAT_VERSION = 1;
/** The largest label (chunk id) hnswlib-node accepts: labels are unsigned 32-bit. */
export const MAX_HNSW_LABEL = 2 ** 32 - 1;
/** hnswlib's header: 6 size_t, int, uint32, 3 size_t, double, size_t (little-endian, 64-bit). */
const HEADER_BYTES = 96;

/** Why a persisted index cannot be used as is. */
export type HnswLoadFailure = 'missing' | 'stale' | 'corrupt' | 'version';

/** The sidecar's schema, built on first use (zod loads lazily). */
function sidecarSchemaOf({ z }: Zod) {
  const paramsSchema = z.object({
    space: z.enum(['ip', 'cosine']),
    m: z.number().int().min(2).max(100),
    efConstruction: z.number().int().min(1),
    efSearch: z.number().int().min(1),
    seed: z.number().int().min(0),
  });

  return z.object({
    formatVersion: z.literal(HNSW_FORMAT_VERSION),
    fingerprint: z.string(),
    dims: z.number().int().min(1),
    /** Live (searchable) labels. */
    count: z.number().int().min(0),
    stamp: z.string(),
    params: paramsSchema,
    /** Tombstoned labels (hnswlib keeps them in the graph, marked deleted). */
    deleted: z.array(z.number().int().min(0).max(MAX_HNSW_LABEL)),
    /** Byte length and SHA-256 (hex) of the index file. */
    bytes: z.number().int().min(HEADER_BYTES),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
  });
}

let sidecar: ReturnType<typeof sidecarSchemaOf> | undefined;
const sidecarSchema = (): ReturnType<typeof sidecarSchemaOf> => (sidecar ??= sidecarSchemaOf(lazyZod()));

/** The JSON sidecar beside an index file. */
export type HnswSidecar = import('zod').infer<ReturnType<typeof sidecarSchemaOf>>;

/** `<dbPath>.<first 8 hex of sha256(fingerprint)>.hnsw`: one index per embedder beside the vault. */
export function hnswIndexPath(dbPath: string, fingerprint: string): string {
  return `${dbPath}.${createHash('sha256').update(fingerprint).digest('hex').slice(0, 8)}.hnsw`;
}

/** The sidecar of an index file: `<index path>.json`. */
export function hnswSidecarPath(indexPath: string): string {
  return `${indexPath}.json`;
}

/**
 * Write an index file (by `writeIndex(tmpPath)`, hnswlib's writer) and its sidecar atomically:
 * temporary files, fsync, rename, index first, so a crash in between leaves a sidecar whose
 * checksum no longer matches → 'corrupt' → rebuild. The sidecar gets the format version and the
 * written file's size and checksum. Throws STORE (temporary files removed) on any failure.
 */
export async function writeHnswFiles(
  path: string,
  writeIndex: (tmpPath: string) => Promise<unknown>,
  sidecar: Omit<HnswSidecar, 'formatVersion' | 'bytes' | 'sha256'>,
): Promise<void> {
  const sidecarPath = hnswSidecarPath(path);
  const tag = `.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  const tmp = path + tag;
  const sidecarTmp = sidecarPath + tag;
  try {
    await writeIndex(tmp);
    await syncFile(tmp);
    const { bytes, sha256 } = await hashFile(tmp);
    const full: HnswSidecar = { formatVersion: HNSW_FORMAT_VERSION, ...sidecar, bytes, sha256 };
    await writeFile(sidecarTmp, JSON.stringify(full));
    await syncFile(sidecarTmp);
    await rename(tmp, path);
    await rename(sidecarTmp, sidecarPath);
  } catch (e) {
    await rm(tmp, { force: true });
    await rm(sidecarTmp, { force: true });
    throw new QuiverError('STORE', `quiver: cannot write hnsw index ${path}: ${(e as Error).message}`, {
      cause: e,
    });
  }
}

/**
 * The sidecar of the index file at `path`, or why there is none to use: 'missing' (no index file),
 * 'corrupt' (no, unreadable or malformed sidecar), 'version' (a formatVersion this code does not
 * know). Does not look inside the index file; see {@link checkHnswFile}.
 */
export async function readHnswSidecar(
  path: string,
): Promise<
  { sidecar: HnswSidecar } | { sidecar: null; reason: Exclude<HnswLoadFailure, 'stale'>; message: string }
> {
  const sidecarPath = hnswSidecarPath(path);
  if (!existsSync(path)) return { sidecar: null, reason: 'missing', message: `no index file ${path}` };
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(sidecarPath, 'utf8'));
  } catch (e) {
    return {
      sidecar: null,
      reason: 'corrupt',
      message: `sidecar ${sidecarPath} is missing or unreadable: ${(e as Error).message}`,
    };
  }
  const version =
    typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>).formatVersion : undefined;
  if (typeof version === 'number' && version !== HNSW_FORMAT_VERSION) {
    return {
      sidecar: null,
      reason: 'version',
      message: `formatVersion ${version} is not supported (this build reads ${HNSW_FORMAT_VERSION})`,
    };
  }
  const parsed = sidecarSchema().safeParse(raw);
  if (!parsed.success) {
    return {
      sidecar: null,
      reason: 'corrupt',
      message: `sidecar ${sidecarPath} is malformed: ${parsed.error.message}`,
    };
  }
  return { sidecar: parsed.data };
}

/**
 * Size, hnswlib header and checksum of the index file against its sidecar; a message when they
 * disagree, else null. Cheapest first; the checksum reads the whole file once.
 */
export async function checkHnswFile(path: string, side: HnswSidecar): Promise<string | null> {
  const size = (await stat(path)).size;
  if (size !== side.bytes)
    return `index file is ${size} bytes, sidecar says ${side.bytes} (truncated or overwritten)`;
  const fh = await open(path, 'r');
  const head = Buffer.alloc(HEADER_BYTES);
  try {
    await fh.read(head, 0, HEADER_BYTES, 0);
  } finally {
    await fh.close();
  }
  const u64 = (at: number): number => Number(head.readBigUInt64LE(at));
  const elements = u64(16);
  const perElement = u64(24);
  const labelOffset = u64(32);
  const offsetData = u64(40);
  const m = u64(72);
  const want = side.count + side.deleted.length;
  if (
    elements !== want ||
    labelOffset - offsetData !== side.dims * 4 ||
    perElement !== labelOffset + 8 ||
    m !== side.params.m
  ) {
    return `index header (elements ${elements}, vector bytes ${labelOffset - offsetData}, M ${m}) does not match the sidecar (elements ${want}, dims ${side.dims}, M ${side.params.m})`;
  }
  if (size < HEADER_BYTES + elements * perElement + elements * 4)
    return `index file is too short for ${elements} elements`;
  const { sha256 } = await hashFile(path);
  if (sha256 !== side.sha256)
    return `index checksum ${sha256.slice(0, 12)}… does not match the sidecar's ${side.sha256.slice(0, 12)}…`;
  return null;
}

async function syncFile(path: string): Promise<void> {
  const fh = await open(path, 'r+');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

async function hashFile(path: string): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 22 })) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).byteLength;
  }
  return { bytes, sha256: hash.digest('hex') };
}
