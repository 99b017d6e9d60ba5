import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { segmentWords } from './segment.js';
import { words } from './tokens.js';

describe('segmentWords', () => {
  it('splits Chinese, Japanese and Thai runs into words', () => {
    expect(words('意式浓缩咖啡的萃取时间')).toEqual(expect.arrayContaining(['咖啡', '萃取', '时间']));
    expect(words('サワードウの発酵は室温で')).toEqual(expect.arrayContaining(['発酵', '室温']));
    expect(words('ภาษาไทยง่าย')).toEqual(expect.arrayContaining(['ภาษา', 'ไทย']));
  });

  it('edge cases: text without such scripts is returned as is; punctuation and Latin inside stay', () => {
    const s = 'Espresso: 25–30 s, très bien — бджоли';
    expect(segmentWords(s)).toBe(s);
    expect(segmentWords('')).toBe('');
    expect(words('咖啡 (coffee) 时间!')).toEqual(['咖啡', 'coffee', '时间']);
  });

  it('property: text without CJK or Thai characters is untouched', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        fc.pre(!/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u.test(s));
        expect(segmentWords(s)).toBe(s);
      }),
    );
  });

  it('property: segmenting keeps every character of a run, only adds spaces', () => {
    const cjk = fc.stringMatching(/^[一-龥ぁ-んァ-ン]{1,20}$/);
    fc.assert(
      fc.property(cjk, (s) => {
        expect(segmentWords(s).replace(/ /g, '')).toBe(s);
      }),
    );
  });
});
