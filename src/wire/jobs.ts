import type { JobRecord } from '../store/store.js';

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
    result: j.result,
    lastError: j.lastError,
    finishedAt: iso(j.finishedAt),
  };
}
