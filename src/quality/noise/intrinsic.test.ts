import { describe, it, expect } from 'vitest';
import { hitsBoilerLexicon, intrinsicFeatures, isLinkLikeLine, isSentenceLine } from './intrinsic.js';

const prose =
  'The committee raised interest rates because inflation had stayed above its target for a year.\n' +
  'Most of the members argued that waiting any longer would make the eventual correction larger.';
const nav =
  'Home | News | Sport\nRead more\nSign in\nMarch 3, 2021\nTop Stories Of The Week\n© 2024 Example Media. All rights reserved.';

describe('line classifiers', () => {
  it('full sentences need terminal punctuation and five words', () => {
    expect(isSentenceLine('This is a full sentence here.')).toBe(true);
    expect(isSentenceLine('“This is a quoted full sentence.”')).toBe(true);
    expect(isSentenceLine('Too short.')).toBe(false);
    expect(isSentenceLine('This line has many words but no ending')).toBe(false);
  });
  it('navigation and teaser lines are link-like; prose is not', () => {
    for (const l of [
      'Home | News | Sport',
      'Read more',
      'Sign in',
      'March 3, 2021',
      'Top Stories Of The Week',
      'News » World',
      '5 min read',
    ])
      expect(isLinkLikeLine(l)).toBe(true);
    expect(isLinkLikeLine(prose.split('\n')[0]!)).toBe(false);
    expect(isLinkLikeLine('The Bank of England said on Monday that it would hold rates.')).toBe(false);
  });
  it('the lexicon matches boilerplate phrases on word boundaries', () => {
    expect(hitsBoilerLexicon('We use cookies to improve your experience')).toBe(true);
    expect(hitsBoilerLexicon('© 2024 Example')).toBe(true);
    expect(hitsBoilerLexicon('Subscribe to our newsletter')).toBe(true);
    expect(hitsBoilerLexicon('The enzyme binds the receptor.')).toBe(false);
    expect(hitsBoilerLexicon('a bilogin tool')).toBe(false);
  });
});

describe('intrinsicFeatures', () => {
  it('scores navigation text noisier than prose on every feature', () => {
    const p = intrinsicFeatures(prose);
    const b = intrinsicFeatures(nav);
    p.forEach((v, j) => expect(b[j]!).toBeGreaterThan(v));
  });
  it('prose values: all lines are sentences, no link-like or lexicon lines', () => {
    const [stop, sent, len, link, lex] = intrinsicFeatures(prose);
    expect(stop).toBeGreaterThan(0.3);
    expect(stop).toBeLessThan(0.8);
    expect(sent).toBe(0);
    expect(len).toBe(-15); // 15 words in each sentence
    expect(link).toBe(0);
    expect(lex).toBe(0);
  });
  it('empty text: noisiest on density/share, neutral elsewhere', () => {
    expect(intrinsicFeatures('')).toEqual([1, 1, 0, 0, 0]);
    expect(intrinsicFeatures('  \n\n ')).toEqual([1, 1, 0, 0, 0]);
  });
});
