import { describe, expect, it } from 'vitest';
import { docIdOfSection } from './rows.js';

describe('docIdOfSection', () => {
  it('is everything before the last #', () => {
    expect(docIdOfSection('d41c56a9c333e9a0#12')).toBe('d41c56a9c333e9a0');
    expect(docIdOfSection('a#b#0')).toBe('a#b');
  });
});
