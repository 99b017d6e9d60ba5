// Finding the sentence a claim rests on (web/src/highlight.ts) and cutting an answer into text and
// citation markers (web/src/answer-parts.ts): the page's two pure text helpers.
import { describe, expect, it } from 'vitest';
import { answerParts, claimFor, markerNumbers } from '../web/src/answer-parts.js';
import { claimSentence, reflow, sentenceSpans } from '../web/src/highlight.js';

const at = (text: string, s: { start: number; end: number } | null): string | null =>
  s === null ? null : text.slice(s.start, s.end);

describe('sentences and the claim sentence', () => {
  it('splits at sentence ends and line breaks, trimmed', () => {
    const t = 'Boil it. Then cool!\n# Next\nDone? yes';
    expect(sentenceSpans(t).map((s) => t.slice(s.start, s.end))).toEqual([
      'Boil it.',
      'Then cool!',
      '# Next',
      'Done?',
      'yes',
    ]);
    expect(sentenceSpans('')).toEqual([]);
  });

  it('reflows soft line breaks without changing offsets, keeping blocks', () => {
    const t = 'A wrapped\nsentence.\n\n- item one\n- item two\n# Head\nbody';
    const r = reflow(t);
    expect(r.length).toBe(t.length);
    expect(r).toBe('A wrapped sentence.\n\n- item one\n- item two\n# Head\nbody');
  });

  it('finds the sentence holding most of the claim, across a wrapped line, ignoring a Title: label', () => {
    const text = 'Heat is the danger. Yeast dies around\n**50 °C**, and is killed at 60 °C. Cold is safer.';
    const span = claimSentence(text, 'Starter care: Yeast dies around **50 °C**, and is killed at 60 °C.');
    expect(at(reflow(text), span)).toBe('Yeast dies around **50 °C**, and is killed at 60 °C.');
  });

  it('gives null when no sentence holds half the claim, or the claim has no words', () => {
    expect(claimSentence('Bread needs flour.', 'Bikes need air in the tyres.')).toBeNull();
    expect(claimSentence('Bread needs flour.', '…')).toBeNull();
    expect(claimSentence('', 'anything')).toBeNull();
  });
});

describe('answer parts', () => {
  it('cuts text and markers, each marker with the claim it ends', () => {
    expect(answerParts('Boil it [1]. Cool it [2][3].')).toEqual([
      { kind: 'text', text: 'Boil it ' },
      { kind: 'cite', numbers: [1], claim: 'Boil it' },
      { kind: 'text', text: '. Cool it ' },
      { kind: 'cite', numbers: [2], claim: 'Cool it' },
      { kind: 'cite', numbers: [3], claim: 'Cool it' },
      { kind: 'text', text: '.' },
    ]);
  });

  it('reads lists and ranges as the server does, and leaves Markdown links alone', () => {
    expect(markerNumbers('1, 2')).toEqual([1, 2]);
    expect(markerNumbers('2-4')).toEqual([2, 3, 4]);
    expect(markerNumbers('1-99')).toEqual([1, 99]);
    expect(answerParts('See [1](http://x) here.')).toEqual([
      { kind: 'text', text: 'See [1](http://x) here.' },
    ]);
    expect(answerParts('')).toEqual([]);
  });

  it('matches a marker to the claim citing that number with the most shared words', () => {
    const claims = [
      { text: 'Boil the eggs for ten minutes.', citations: [1] },
      { text: 'Cool them in ice water.', citations: [1, 2] },
    ];
    expect(claimFor('Cool them in ice water', 1, claims)).toBe('Cool them in ice water.');
    expect(claimFor('Nothing cites this', 9, claims)).toBe('Nothing cites this');
  });
});
