import { setTimeout as sleep } from 'node:timers/promises';
import { QuiverError } from '../errors.js';
import { holderAlive, selfClaim } from './liveness.js';
import type { Store, WriterClaim, WriterHolder } from './store.js';

/**
 * One writer at a time across processes: every command that writes batches, reindexes, undoes or
 * compacts first takes the store's writer slot (`Store.claimWriter`), and gives it back when done.
 * A slot whose holder's process is gone (kill -9, a crash) is taken over; a live holder makes the
 * claim wait up to `waitMs`, then fail with CONFLICT naming the holder's command, batch and process.
 */

/** How often a waiting claim looks again. */
export const WRITER_POLL_MS = 250;
/** How often the holder refreshes its heartbeat (read only for holders on another host). */
export const WRITER_HEARTBEAT_MS = 15_000;

export interface WriterLockOptions {
  /** How long to wait for a live holder before CONFLICT. Defaults to 0 (refuse at once). */
  waitMs?: number;
  signal?: AbortSignal;
  /** Told once when the claim starts waiting. */
  onWait?: (holder: WriterHolder) => void;
}

/** The slot, held: name the batch being written, then release. */
export interface WriterLease {
  readonly claim: WriterClaim;
  /** Record the batch this writer runs, so a waiting process can say which. */
  running(batchId: string | null): Promise<void>;
  release(): Promise<void>;
}

/** `process 1234 on host h is running \`add notes/\` (batch 3fa2…, since 20:41:07 UTC)`. */
export function describeHolder(h: WriterHolder): string {
  const since = h.startedAt.replace('T', ' ').slice(0, 19);
  return `process ${h.pid} on ${h.host} is running \`${h.command}\`${h.batchId === null ? '' : ` (batch ${h.batchId})`} since ${since} UTC`;
}

/** Take the writer slot for `command` (see the module comment). */
export async function acquireWriter(
  store: Store,
  command: string,
  options: WriterLockOptions = {},
): Promise<WriterLease> {
  const me = selfClaim(command);
  const deadline = Date.now() + Math.max(0, options.waitMs ?? 0);
  let told = false;
  for (;;) {
    const holder = await store.claimWriter(me, (h) => holderAlive(h));
    if (holder === null) break;
    if (Date.now() >= deadline) {
      throw new QuiverError(
        'CONFLICT',
        `quiver: the vault is busy: ${describeHolder(holder)}; wait for it to finish, or run again with --wait SECONDS`,
        { details: { holder } },
      );
    }
    if (!told) options.onWait?.(holder);
    told = true;
    try {
      await sleep(Math.min(WRITER_POLL_MS, Math.max(1, deadline - Date.now())), undefined, {
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
    } catch {
      throw new QuiverError(
        'ABORTED',
        `quiver: stopped while waiting for the vault (${describeHolder(holder)})`,
      );
    }
  }
  let batchId: string | null = null;
  const beat = setInterval(() => {
    store.touchWriter(me, batchId).catch(() => undefined);
  }, WRITER_HEARTBEAT_MS);
  beat.unref();
  let released = false;
  return {
    claim: me,
    async running(id) {
      batchId = id;
      await store.touchWriter(me, id);
    },
    async release() {
      if (released) return;
      released = true;
      clearInterval(beat);
      await store.releaseWriter(me);
    },
  };
}
