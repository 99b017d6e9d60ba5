import { describe, expect, it } from 'vitest';
import { frozen, RecordCache } from './record-cache.js';

describe('RecordCache', () => {
  it('keeps records for one version and forgets them all when the version moves', () => {
    const c = new RecordCache<'a' | 'b', { n: number }>();
    c.put(c.at(1, 'a'), 'x', { n: 1 });
    c.put(c.at(1, 'b'), 'y', null);
    expect(c.at(1, 'a').get('x')).toEqual({ n: 1 });
    expect(c.at(1, 'b').get('y')).toBeNull();
    expect(c.at(2, 'a').size).toBe(0);
    expect(c.at(2, 'b').size).toBe(0);
  });

  it('drops the oldest keys past its bound', () => {
    const c = new RecordCache<'a', number>(2);
    const m = c.at(1, 'a');
    c.put(m, 'x', 1);
    c.put(m, 'y', 2);
    c.put(m, 'x', 3); // re-put: now the newest
    c.put(m, 'z', 4);
    expect([...m.keys()]).toEqual(['x', 'z']);
  });
});

describe('frozen', () => {
  it('freezes a record and its object fields', () => {
    const r = frozen({ a: 1, meta: { k: 'v' }, list: [1] });
    expect(Object.isFrozen(r)).toBe(true);
    expect(Object.isFrozen(r.meta)).toBe(true);
    expect(Object.isFrozen(r.list)).toBe(true);
  });
});
