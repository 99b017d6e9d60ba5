/**
 * Crash points for the fault tests and `bench/faults.ts`: `QUIVER_FAILPOINT=<name>[:<n>]` makes
 * the process kill itself with SIGKILL the n-th time (default 1st) it passes `failpoint(name)`,
 * exactly as a power cut or `kill -9` would at that point. Unset (always, outside those runs), a
 * failpoint is one string comparison. Names: `ingest.flush` (after a group of documents is written),
 * `refit.fitted` (IDF fitted, before re-embedding), `reindex.batch` (after a re-embedded batch),
 * `rollback.before` (undo about to commit), `writer.claimed` (slot taken, nothing done).
 */
const spec = process.env.QUIVER_FAILPOINT ?? '';
const [target, nth] = spec.split(':');
let remaining = Number(nth ?? 1) || 1;

export function failpoint(name: string): void {
  if (spec === '' || name !== target) return;
  remaining -= 1;
  if (remaining <= 0) process.kill(process.pid, 'SIGKILL');
}
