import type { JobRecord } from '../store/store.js';
import type { Vault } from '../vault.js';

/**
 * The upload blobs an ingest job keeps: its files' bytes, content-addressed. Kept while the job is
 * live or dead (a dead job can be retried), removed when it is done or purged from the dead letter.
 */
export function uploadBlobs(job: JobRecord): string[] {
  if (job.kind !== 'ingest' || !Array.isArray(job.payload.uploads)) return [];
  return (job.payload.uploads as { blob?: unknown }[])
    .map((u) => u.blob)
    .filter((b): b is string => typeof b === 'string');
}

/**
 * Remove `blobs` except those a job other than `exceptJobId` still needs: a live (queued or leased)
 * or dead ingest job (the same file uploaded again under another name is one blob).
 */
export async function releaseBlobs(
  vault: Vault,
  blobs: readonly string[],
  exceptJobId?: string,
): Promise<void> {
  if (blobs.length === 0) return;
  const holders = [];
  for (const state of ['queued', 'leased', 'dead'] as const)
    holders.push(...(await vault.store.listJobs({ state, kind: 'ingest', limit: 100_000 })));
  const needed = new Set(holders.filter((j) => j.id !== exceptJobId).flatMap(uploadBlobs));
  for (const blob of new Set(blobs)) if (!needed.has(blob)) await vault.store.deleteBlob(blob);
}
