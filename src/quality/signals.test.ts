import { describe, it, expect } from 'vitest';
import { SIGNALS, SIGNAL_NAMES, feedbackRowsForAsk, signalOf } from './signals.js';
import { isQuiverError } from '../errors.js';

const sections = [1, 2, 3, 4].map((n) => ({ n, sectionId: `d${n}#1`, docId: `d${n}`, score: n / 10 }));

describe('SIGNALS', () => {
  it('holds the reference labels and weights', () => {
    expect(SIGNALS.up).toEqual({ label: 1, weight: 3 });
    expect(SIGNALS.good).toEqual({ label: 1, weight: 3 });
    expect(SIGNALS.down).toEqual({ label: 0, weight: 3 });
    expect(SIGNALS.bad).toEqual({ label: 0, weight: 3 });
    expect(SIGNALS.read).toEqual({ label: 1, weight: 1.5 });
    expect(SIGNALS.cited).toEqual({ label: 1, weight: 1 });
    expect(SIGNALS.shown).toEqual({ label: 0, weight: 0.35 });
    expect(SIGNAL_NAMES).toEqual(['bad', 'cited', 'down', 'good', 'read', 'shown', 'up']);
  });

  it('signalOf rejects unknown names with BAD_INPUT listing the valid ones', () => {
    expect(signalOf('read')).toEqual({ label: 1, weight: 1.5 });
    try {
      signalOf('meh');
      expect.unreachable();
    } catch (e) {
      expect(isQuiverError(e, 'BAD_INPUT')).toBe(true);
      expect((e as Error).message).toContain('bad, cited, down, good, read, shown, up');
      expect((e as Error).message).toContain('"meh"');
    }
    expect(() => signalOf('toString')).toThrow(/signal must be one of/);
  });
});

describe('feedbackRowsForAsk', () => {
  it('writes cited as positives and the rest as weak negatives', () => {
    const rows = feedbackRowsForAsk({ question: 'q', sections, cited: [2] });
    expect(rows.map((r) => r.signal)).toEqual(['shown', 'cited', 'shown', 'shown']);
    expect(rows[1]).toEqual({
      question: 'q',
      sectionId: 'd2#1',
      docId: 'd2',
      signal: 'cited',
      label: 1,
      weight: 1,
      rank: 2,
      score: 0.2,
    });
  });

  it('applies precedence up > down > cited > shown', () => {
    const rows = feedbackRowsForAsk({ question: 'q', sections, cited: [1, 2, 3], up: [1], down: [1, 2] });
    expect(rows.map((r) => r.signal)).toEqual(['up', 'down', 'cited', 'shown']);
  });

  it('writes nothing when nothing was cited or rated', () => {
    expect(feedbackRowsForAsk({ question: 'q', sections, cited: [] })).toEqual([]);
    expect(feedbackRowsForAsk({ question: 'q', sections, cited: [], up: [], down: [] })).toEqual([]);
  });

  it('writes rows when only up or down is given', () => {
    const rows = feedbackRowsForAsk({ question: 'q', sections, cited: [], down: [3] });
    expect(rows.map((r) => r.signal)).toEqual(['shown', 'shown', 'down', 'shown']);
  });

  it('skips uncited sections when weak is false', () => {
    const rows = feedbackRowsForAsk({ question: 'q', sections, cited: [4], weak: false });
    expect(rows.map((r) => [r.signal, r.rank])).toEqual([['cited', 4]]);
  });

  it('ignores numbers beyond the list', () => {
    const rows = feedbackRowsForAsk({ question: 'q', sections, cited: [9], weak: false });
    expect(rows).toEqual([]);
    const rows2 = feedbackRowsForAsk({ question: 'q', sections, cited: [9] });
    expect(rows2.every((r) => r.signal === 'shown')).toBe(true);
  });

  it('logs a non-finite score as 0', () => {
    const rows = feedbackRowsForAsk({
      question: 'q',
      sections: [{ n: 1, sectionId: 'x#1', docId: 'x', score: Number.NaN }],
      cited: [1],
    });
    expect(rows[0]?.score).toBe(0);
  });
});
