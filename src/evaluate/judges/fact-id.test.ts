import { describe, expect, it } from 'vitest';
import { createFactIdJudge, factsCover } from './fact-id.js';

describe('fact-id judge', () => {
  const judge = createFactIdJudge();
  const d1 = { id: 'D1', text: '', factIds: ['day', 'time'] };
  const d2 = { id: 'D2', text: '', factIds: ['fee'] };

  it('is named and not a proxy', () => {
    expect(judge.id).toBe('fact-id');
    expect(judge.proxy).toBe(false);
  });

  it('supports when every claim fact id is listed by the source', async () => {
    expect(await judge.supports(d1, { text: '', factIds: ['day'] })).toBe(true);
    expect(await judge.supports(d1, { text: '', factIds: ['day', 'time'] })).toBe(true);
    expect(await judge.supports(d1, { text: '', factIds: ['day', 'fee'] })).toBe(false);
    expect(await judge.supports(d2, { text: '', factIds: ['free'] })).toBe(false);
  });

  it('a claim without fact ids, or a source without any, is never supported', async () => {
    expect(await judge.supports(d1, { text: 'x' })).toBe(false);
    expect(await judge.supports(d1, { text: 'x', factIds: [] })).toBe(false);
    expect(await judge.supports({ id: 'E', text: '' }, { text: '', factIds: ['day'] })).toBe(false);
  });

  it('joint support takes the union of the sources’ facts', async () => {
    const claim = { text: '', factIds: ['day', 'fee'] };
    expect(await judge.supportsJointly!([d1, d2], claim)).toBe(true);
    expect(await judge.supportsJointly!([d1], claim)).toBe(false);
    expect(await judge.supportsJointly!([], claim)).toBe(false);
  });

  it('factsCover', () => {
    expect(factsCover(['a', 'b'], ['b'])).toBe(true);
    expect(factsCover(['a'], undefined)).toBe(false);
  });
});
