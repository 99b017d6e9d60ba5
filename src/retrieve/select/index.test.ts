import { describe, expect, it } from 'vitest';
import { isQuiverError } from '../../errors.js';
import { dartboard } from './dartboard.js';
import {
  DEFAULT_OVERSAMPLE,
  DEFAULT_SELECT,
  DEFAULT_SIGMA,
  select,
  SELECT_METHODS,
  type SelectMethod,
} from './index.js';
import { mmr } from './mmr.js';
import { topk } from './topk.js';

const query = [1, 0, 0];
const candidates = [
  [0.8, 0.6, 0],
  [0.8, 0.6, 0],
  [0.6, 0, 0.8],
  [0, 0.6, 0.8],
];

describe('select', () => {
  it('dispatches to each selector with the options it understands', () => {
    const input = { query, candidates, k: 3 };
    expect(select('topk', input, { lambda: 0.2, sigma: 0.3 })).toEqual(topk(input));
    expect(select('mmr', input, { lambda: 0.2, sigma: 0.3 })).toEqual(mmr(input, { lambda: 0.2 }));
    expect(select('dartboard', input, { lambda: 0.2, sigma: 0.3 })).toEqual(dartboard(input, { sigma: 0.3 }));
  });

  it('exports the defaults', () => {
    expect(DEFAULT_SELECT).toBe('dartboard');
    expect(DEFAULT_OVERSAMPLE).toBe(3);
    expect(DEFAULT_SIGMA).toBe(0.1);
    expect(SELECT_METHODS).toEqual(['topk', 'mmr', 'dartboard']);
  });

  it('rejects an unknown method with BAD_INPUT', () => {
    try {
      select('random' as SelectMethod, { query, candidates, k: 1 });
      expect.unreachable();
    } catch (e) {
      expect(isQuiverError(e, 'BAD_INPUT')).toBe(true);
    }
  });
});
