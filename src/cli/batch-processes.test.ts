import { describe, expect, it } from 'vitest';
import { isQuiverError } from '../errors.js';
import { batchProcesses, childArgs } from './batch-processes.js';

describe('batchProcesses', () => {
  it('one per core up to 4, each with at least 100 queries', () => {
    expect(batchProcesses(50, undefined, 8)).toBe(1);
    expect(batchProcesses(250, undefined, 8)).toBe(2);
    expect(batchProcesses(809, undefined, 2)).toBe(2);
    expect(batchProcesses(10_000, undefined, 16)).toBe(4);
    expect(batchProcesses(0, undefined, 4)).toBe(1);
  });

  it('--jobs wins, never more processes than queries, and must be a positive integer', () => {
    expect(batchProcesses(50, '3', 1)).toBe(3);
    expect(batchProcesses(2, '8', 8)).toBe(2);
    for (const bad of ['0', '-1', '1.5', 'x'])
      expect(() => batchProcesses(10, bad)).toThrow(expect.objectContaining({ code: 'BAD_INPUT' }));
    let message = '';
    try {
      batchProcesses(10, '0');
    } catch (e) {
      message = isQuiverError(e) ? e.message : '';
    }
    expect(message).toContain('--jobs');
  });
});

describe('childArgs', () => {
  it('reads the queries from standard input and runs in one process', () => {
    expect(childArgs(['search', '--queries', 'q.jsonl', '--limit', '100', '--json'])).toEqual([
      'search',
      '--queries',
      '-',
      '--limit',
      '100',
      '--json',
      '--jobs',
      '1',
    ]);
    expect(childArgs(['search', '--queries=q.jsonl', '--jobs', '3', '--jobs=2'])).toEqual([
      'search',
      '--queries',
      '-',
      '--jobs',
      '1',
    ]);
  });
});
