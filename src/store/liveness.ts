import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { WriterClaim, WriterHolder } from './store.js';

/**
 * Is a recorded process still running? Used to tell a batch or writer slot whose process crashed
 * (kill -9, power loss) from one that is at work.
 */

/** A holder on another host is taken for gone once its heartbeat is older than this (10 min). */
export const FOREIGN_HOLDER_STALE_MS = 10 * 60 * 1000;

/**
 * Whether a process with this pid runs on this machine: only ESRCH says it is gone (EPERM: it
 * runs, as another user). Pids are judged in this process's pid namespace.
 */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * A process's start time as the kernel counts it (Linux `/proc/<pid>/stat` field 22, clock ticks
 * since boot), so a pid reused by a later process is not mistaken for the original; null where
 * there is no /proc or the process is gone. The command name (field 2) may hold spaces and
 * parentheses, so fields are counted after its last `)`.
 */
export function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

/** This process as a writer-slot claimant doing `command`. */
export function selfClaim(command: string): WriterClaim {
  return { pid: process.pid, host: hostname(), procStart: processStart(process.pid), command };
}

/**
 * Whether a recorded holder still runs: on this host, its pid is alive and (where known) started
 * when it did; on another host (a shared file system), its heartbeat is younger than
 * {@link FOREIGN_HOLDER_STALE_MS} at `nowMs`.
 */
export function holderAlive(
  holder: WriterHolder | (WriterClaim & { heartbeatAt?: string }),
  nowMs = Date.now(),
): boolean {
  if (holder.host !== hostname()) {
    const beat =
      'heartbeatAt' in holder && holder.heartbeatAt !== undefined ? Date.parse(holder.heartbeatAt) : NaN;
    return Number.isFinite(beat) && nowMs - beat < FOREIGN_HOLDER_STALE_MS;
  }
  if (!pidAlive(holder.pid)) return false;
  if (holder.procStart === null) return true;
  const start = processStart(holder.pid);
  return start === null || start === holder.procStart;
}
