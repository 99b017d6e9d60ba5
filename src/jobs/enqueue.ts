import type { JobRecord, Store } from '../store/store.js';
import {
  jobKey,
  type JobKind,
  type PayloadOf,
  sha256Hex,
  uploadBlobName,
  type UploadRef,
} from './job-kinds.js';

/**
 * Put a job on the queue, due now, keyed by its payload (`jobKey`): while an equal job is queued or
 * leased, enqueuing it again returns that job instead of a second one.
 */
export async function enqueue<K extends JobKind>(
  store: Store,
  kind: K,
  payload: PayloadOf[K],
  options: { maxAttempts: number; now?: number },
): Promise<JobRecord> {
  return store.enqueueJob({
    kind,
    payload: payload as Record<string, unknown>,
    key: jobKey(kind, payload),
    maxAttempts: options.maxAttempts,
    runAt: options.now ?? Date.now(),
  });
}

/**
 * Keep an uploaded file's bytes in the store (content-addressed by SHA-256, so a file uploaded
 * twice is kept once) until its ingest job has run; `name` must already be checked
 * (`server/upload-name.ts`).
 */
export async function keepUpload(store: Store, name: string, bytes: Uint8Array): Promise<UploadRef> {
  const sha256 = sha256Hex(bytes);
  const blob = uploadBlobName(sha256);
  await store.putBlob(blob, bytes);
  return { blob, name, sha256, bytes: bytes.length };
}
