import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { FOREIGN_HOLDER_STALE_MS, holderAlive, pidAlive, processStart, selfClaim } from './liveness.js';

/** A pid that certainly ran and ended: a child that exited. */
const deadPid = (): number =>
  Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString());

describe('process liveness', () => {
  it('pidAlive: this process yes; an exited child, 0, negatives and non-integers no', () => {
    expect(pidAlive(process.pid)).toBe(true);
    expect(pidAlive(deadPid())).toBe(false);
    for (const p of [0, -1, 1.5, Number.NaN]) expect(pidAlive(p)).toBe(false);
  });

  it('processStart: a stable token for a live process (Linux), null for a gone one', () => {
    const a = processStart(process.pid);
    if (process.platform === 'linux') expect(a).toMatch(/^\d+$/);
    expect(processStart(process.pid)).toBe(a);
    expect(processStart(deadPid())).toBeNull();
  });

  it('holderAlive on this host: alive; gone pid; same pid with another start (a reused pid) is gone', () => {
    const me = selfClaim('t');
    expect(holderAlive(me)).toBe(true);
    expect(holderAlive({ ...me, pid: deadPid() })).toBe(false);
    if (me.procStart !== null) expect(holderAlive({ ...me, procStart: `${me.procStart}9` })).toBe(false);
    expect(holderAlive({ ...me, procStart: null })).toBe(true); // start unknown: the pid decides
  });

  it('holderAlive on another host: judged by heartbeat age; no heartbeat is gone', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    const other = { pid: 1, host: `${hostname()}-other`, procStart: null, command: 'add' };
    const at = (ms: number) => new Date(now - ms).toISOString();
    expect(holderAlive({ ...other, heartbeatAt: at(1000) }, now)).toBe(true);
    expect(holderAlive({ ...other, heartbeatAt: at(FOREIGN_HOLDER_STALE_MS + 1) }, now)).toBe(false);
    expect(holderAlive({ ...other, heartbeatAt: 'garbage' }, now)).toBe(false);
    expect(holderAlive(other, now)).toBe(false);
  });
});
