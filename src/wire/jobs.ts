import type { AddReport } from '../ingest/ingest.js';
import type { JobRecord } from '../store/store.js';
import { addJson } from './ingest.js';

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** A job as the CLI (`--json`), the HTTP API and MCP show it: times in ISO-8601 UTC. */
export function jobJson(j: JobRecord): Record<string, unknown> {
  return {
    id: j.id,
    kind: j.kind,
    state: j.state,
    attempts: j.attempts,
    maxAttempts: j.maxAttempts,
    createdAt: iso(j.createdAt),
    runAt: iso(j.runAt),
    leaseUntil: iso(j.leaseUntil),
    worker: j.worker === null ? null : { pid: j.worker.pid, host: j.worker.host },
    progress: j.progress,
    // An ingest's result is its add report: shown in the shape `quiver add --json` prints.
    result:
      j.kind === 'ingest' && j.result !== null && 'batch' in j.result
        ? addJson(j.result as unknown as AddReport)
        : j.result,
    lastError: j.lastError,
    finishedAt: iso(j.finishedAt),
  };
}
