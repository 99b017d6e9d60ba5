import fc from 'fast-check';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { QuiverError } from '../../errors.js';
import { formatLsn, parseLsn, ReadRouter, replayTarget, walBytesBetween } from './replica.js';

const hex32 = fc.integer({ min: 0, max: 0xffff_ffff });

describe('parseLsn / formatLsn', () => {
  it('reads PostgreSQL’s form: the high and low 32 bits in hex', () => {
    expect(parseLsn('16/B374D848')).toBe(0x16_b374_d848n);
    expect(parseLsn('0/0')).toBe(0n);
    expect(parseLsn('0/3000148')).toBe(0x300_0148n);
    expect(parseLsn('FFFFFFFF/FFFFFFFF')).toBe((1n << 64n) - 1n);
    expect(formatLsn(0x16_b374_d848n)).toBe('16/B374D848');
    expect(formatLsn(0n)).toBe('0/0');
  });

  it('rejects anything else', () => {
    for (const bad of ['', '16', '/1', '1/', '16/B374D848/0', '1/123456789', 'G/0', ' 1/0', '1/0 ', '-1/0'])
      expect(() => parseLsn(bad), bad).toThrow(TypeError);
    expect(() => formatLsn(-1n)).toThrow(RangeError);
    expect(() => formatLsn(1n << 64n)).toThrow(RangeError);
  });

  it('round-trips every position, whatever the case and leading zeros of the hex', () => {
    fc.assert(
      fc.property(hex32, hex32, fc.boolean(), fc.nat({ max: 7 }), (hi, lo, lower, pad) => {
        const text = `${hi.toString(16).padStart(pad, '0')}/${lo.toString(16)}`;
        const lsn = parseLsn(lower ? text.toLowerCase() : text.toUpperCase());
        expect(lsn).toBe(BigInt(hi) * 2n ** 32n + BigInt(lo));
        expect(parseLsn(formatLsn(lsn))).toBe(lsn);
        expect(formatLsn(lsn)).toBe(`${hi.toString(16)}/${lo.toString(16)}`.toUpperCase());
      }),
    );
  });

  it('orders positions as the naive reference does: by the high word, then the low word', () => {
    const naive = (a: [number, number], b: [number, number]): number =>
      a[0] !== b[0] ? Math.sign(a[0] - b[0]) : Math.sign(a[1] - b[1]);
    fc.assert(
      fc.property(fc.tuple(hex32, hex32), fc.tuple(hex32, hex32), (a, b) => {
        const x = parseLsn(`${a[0].toString(16)}/${a[1].toString(16)}`);
        const y = parseLsn(`${b[0].toString(16)}/${b[1].toString(16)}`);
        expect(x > y ? 1 : x < y ? -1 : 0).toBe(naive(a, b));
        // Bytes between: the difference when ahead, else 0 (exact below 2^53).
        const diff = (a[0] - b[0]) * 2 ** 32 + (a[1] - b[1]);
        if (Math.abs(diff) < Number.MAX_SAFE_INTEGER) expect(walBytesBetween(x, y)).toBe(Math.max(0, diff));
      }),
    );
  });
});

describe('replayTarget', () => {
  const BLOCK = 8192;
  const SEGMENT = 16 * 1024 * 1024;
  it('moves a position right after a page header back to the page boundary', () => {
    const page = 5n * 8192n;
    expect(replayTarget(page + 24n, BLOCK, SEGMENT)).toBe(page);
    const segment = 3n * 16n * 1024n * 1024n;
    expect(replayTarget(segment + 40n, BLOCK, SEGMENT)).toBe(segment);
    expect(replayTarget(17n * 8192n + 24n, 16 * 1024, SEGMENT)).toBe(17n * 8192n + 24n); // mid-page at 16 kB pages
  });
  it('leaves every other position alone (24 bytes into a segment’s first page is inside its long header)', () => {
    expect(replayTarget(3n * 16n * 1024n * 1024n + 24n, BLOCK, SEGMENT)).toBe(3n * 16n * 1024n * 1024n + 24n);
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 1n << 40n }), (lsn) => {
        const t = replayTarget(lsn, BLOCK, SEGMENT);
        expect(t <= lsn && lsn - t <= 40n).toBe(true);
        if (lsn % 8192n !== 24n && lsn % 8192n !== 40n) expect(t).toBe(lsn);
      }),
    );
  });
});

/** A pool that answers the router's two questions from variables, and counts what it was asked. */
class FakePool {
  lsn: string | null = '0/1000';
  down = false;
  queries: string[] = [];
  async query(sql: string): Promise<{ rows: Record<string, unknown>[]; rowCount: number }> {
    this.queries.push(sql);
    if (this.down)
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    if (sql.includes('pg_current_wal_insert_lsn'))
      return { rows: [{ lsn: this.lsn, block: 8192, segment: 16 * 1024 * 1024 }], rowCount: 1 };
    if (sql.includes('pg_last_wal_replay_lsn')) return { rows: [{ lsn: this.lsn, age: 2.5 }], rowCount: 1 };
    if (sql.includes('pg_current_wal_lsn')) return { rows: [{ lsn: this.lsn }], rowCount: 1 };
    return { rows: [], rowCount: 0 };
  }
  async end(): Promise<void> {}
}

function setup(options: { checkMs?: number; retryMs?: number } = {}) {
  const primary = new FakePool();
  const replica = new FakePool();
  const notices: string[] = [];
  let clock = 1_000;
  const router = new ReadRouter(primary as unknown as pg.Pool, replica as unknown as pg.Pool, {
    location: 'postgres://quiver:secret@replica/db',
    onNotice: (m) => notices.push(m),
    now: () => clock,
    ...options,
  });
  const where = (): Promise<string> =>
    router.read(async (db) => (db === (primary as unknown as pg.Pool) ? 'primary' : 'replica'));
  return { primary, replica, router, notices, where, tick: (ms: number) => (clock += ms) };
}

describe('ReadRouter', () => {
  it('reads from the replica while this store has written nothing, without asking either side', async () => {
    const { primary, replica, where } = setup();
    expect([await where(), await where()]).toEqual(['replica', 'replica']);
    expect([primary.queries, replica.queries]).toEqual([[], []]);
  });

  it('after a write, reads from the primary until the replica has replayed it, then from the replica again', async () => {
    const { primary, replica, router, where, tick } = setup({ checkMs: 100 });
    primary.lsn = '0/2000';
    replica.lsn = '0/1000';
    router.wrote();
    expect(await where()).toBe('primary');
    expect(primary.queries).toHaveLength(1); // its WAL position, once
    expect(await where()).toBe('primary'); // the replica's answer is trusted for checkMs
    expect(replica.queries).toHaveLength(1);
    replica.lsn = '0/2000';
    expect(await where()).toBe('primary'); // still within checkMs of the last answer
    tick(100);
    expect(await where()).toBe('replica');
    expect(await where()).toBe('replica'); // caught up: no more checks until the next write
    expect([primary.queries.length, replica.queries.length]).toEqual([1, 2]);
    expect(router.reads).toEqual({ primary: 3, replica: 2 });
  });

  it('waits for the position after the latest write, asking the primary once per run of writes', async () => {
    const { primary, replica, router, where, tick } = setup({ checkMs: 0 });
    primary.lsn = '0/2000';
    replica.lsn = '0/2000';
    router.wrote();
    router.wrote();
    expect(await where()).toBe('replica');
    primary.lsn = '1/0';
    router.wrote();
    expect(await where()).toBe('primary');
    tick(1);
    replica.lsn = '0/FFFFFFFF';
    expect(await where()).toBe('primary');
    replica.lsn = '1/10';
    expect(await where()).toBe('replica');
    expect(primary.queries).toHaveLength(2);
  });

  it('shares one check among concurrent reads', async () => {
    const { primary, replica, router, where } = setup();
    primary.lsn = '0/2000';
    replica.lsn = '0/2000';
    router.wrote();
    expect(await Promise.all([where(), where(), where()])).toEqual(['replica', 'replica', 'replica']);
    expect([primary.queries.length, replica.queries.length]).toEqual([1, 1]);
  });

  it('falls back to the primary when the replica does not answer, says so once, and tries again later', async () => {
    const { primary, replica, router, notices, where, tick } = setup({ retryMs: 1_000 });
    replica.down = true;
    router.wrote();
    primary.lsn = '0/2000';
    expect([await where(), await where()]).toEqual(['primary', 'primary']);
    expect(replica.queries).toHaveLength(1); // left alone after the failed check
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(
      /read replica postgres:\/\/quiver:\*\*\*@replica\/db is unavailable .*ECONNREFUSED/,
    );
    expect(notices[0]).not.toContain('secret');
    tick(1_000);
    expect(await where()).toBe('primary');
    expect(notices).toHaveLength(1); // the same outage
    replica.down = false;
    replica.lsn = '0/2000';
    tick(1_000);
    expect(await where()).toBe('replica');
    replica.down = true;
    router.wrote();
    tick(1_000);
    expect(await where()).toBe('primary');
    expect(notices).toHaveLength(2); // a new outage
  });

  it('runs a read the replica fails with STORE again on the primary; other errors pass through', async () => {
    const { primary, router, notices } = setup();
    const dropped = new QuiverError('STORE', 'quiver: reading failed: Connection terminated unexpectedly', {
      cause: new Error('Connection terminated unexpectedly'),
    });
    const out = await router.read(async (db) => {
      if (db !== (primary as unknown as pg.Pool)) throw dropped;
      return 'from the primary';
    });
    expect(out).toBe('from the primary');
    expect(notices).toHaveLength(1); // unreachable: left alone for a while
    const conflict = setup();
    const recovery = new QuiverError('STORE', 'quiver: canceling statement due to conflict with recovery', {
      cause: Object.assign(new Error('conflict with recovery'), { code: '40001' }),
    });
    let tries = 0;
    expect(
      await conflict.router.read(async (db) => {
        tries++;
        if (db !== (conflict.primary as unknown as pg.Pool)) throw recovery;
        return 'ok';
      }),
    ).toBe('ok');
    expect([tries, conflict.notices.length]).toEqual([2, 0]); // retried, but the replica is not written off
    const timeout = new QuiverError('TIMEOUT', 'quiver: statement timeout');
    await expect(conflict.router.read(() => Promise.reject(timeout))).rejects.toBe(timeout);
  });

  it('reports the lag in WAL bytes and seconds; an unreachable replica or a primary as error', async () => {
    const { primary, replica, router } = setup();
    primary.lsn = '0/3000';
    replica.lsn = '0/1000';
    expect(await router.lag()).toEqual({
      location: 'postgres://quiver:***@replica/db',
      bytes: 0x2000,
      seconds: 2.5,
      error: null,
    });
    replica.lsn = '0/3000';
    expect(await router.lag()).toMatchObject({ bytes: 0, seconds: 0, error: null });
    replica.lsn = null;
    expect(await router.lag()).toMatchObject({ bytes: null, seconds: null, error: /not a hot standby/ });
    replica.down = true;
    expect(await router.lag()).toMatchObject({ bytes: null, error: /ECONNREFUSED/ });
  });
});
