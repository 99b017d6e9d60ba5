import { describe, expect, it } from 'vitest';
import { BM25_B, BM25_K1, BM25_MIN_IDF, bm25Idf, bm25Term } from './bm25.js';

describe('bm25Idf', () => {
  it('is ln((N − n + 0.5)/(n + 0.5)) for a rare term', () => {
    expect(bm25Idf(100, 1)).toBeCloseTo(Math.log(99.5 / 1.5), 12);
  });
  it('clamps to the minimum when the term is in half the rows or more', () => {
    expect(bm25Idf(100, 50)).toBe(BM25_MIN_IDF);
    expect(bm25Idf(100, 100)).toBe(BM25_MIN_IDF);
  });
  it('clamps for an empty table', () => {
    expect(bm25Idf(0, 0)).toBe(BM25_MIN_IDF);
  });
  it('falls as the term gets commoner', () => {
    expect(bm25Idf(1000, 2)).toBeGreaterThan(bm25Idf(1000, 20));
  });
});

describe('bm25Term', () => {
  it('is 0 when the phrase is absent (f = 0)', () => {
    expect(bm25Term(2, 0, 10, 10)).toBe(0);
  });
  it('is idf at f = 1 in a row of average length', () => {
    expect(bm25Term(3, 1, 10, 10)).toBeCloseTo(3, 12);
  });
  it('saturates towards idf·(k1 + 1) as f grows', () => {
    expect(bm25Term(1, 1e9, 10, 10)).toBeCloseTo(BM25_K1 + 1, 6);
    expect(bm25Term(1, 2, 10, 10)).toBeGreaterThan(bm25Term(1, 1, 10, 10));
  });
  it('favours shorter rows, and stays finite for an empty row (D = 0)', () => {
    expect(bm25Term(1, 1, 5, 10)).toBeGreaterThan(bm25Term(1, 1, 20, 10));
    expect(bm25Term(1, 1, 0, 10)).toBeCloseTo((BM25_K1 + 1) / (1 + BM25_K1 * (1 - BM25_B)), 12);
  });
});
