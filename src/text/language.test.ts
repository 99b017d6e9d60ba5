import { describe, expect, it } from 'vitest';
import { indexText, queryVariants } from './analyze.js';
import { detectLanguage, isLanguage } from './language.js';
import { stemIn } from './stemmers.js';

describe('detectLanguage', () => {
  it('is und for text too short, without letters, or in a space-less script', () => {
    expect(detectLanguage('')).toBe('und');
    expect(detectLanguage('42 — 17, 3.5%; 99 / 100 = 0.99 ± 0.01')).toBe('und');
    expect(detectLanguage('коротко')).toBe('und');
    expect(detectLanguage('意式浓缩咖啡的萃取时间通常为二十五到三十秒。研磨度太细会导致萃取过度。')).toBe(
      'und',
    );
  });

  it('reads running English by its stop-words, and other languages by trigrams', () => {
    expect(
      detectLanguage('The grind size of the coffee is the first thing to change when a shot runs fast.'),
    ).toBe('en');
    expect(detectLanguage('Бджоли збирають нектар з квітів липи, а пасічник оглядає вулики щотижня.')).toBe(
      'uk',
    );
    expect(
      detectLanguage('Пчёлы собирают нектар с цветов липы, а пасечник осматривает ульи каждую неделю.'),
    ).toBe('ru');
    expect(detectLanguage('Die Tomaten brauchen viel Sonne und regelmäßiges Gießen im Sommer.')).toBe('de');
    expect(detectLanguage('Les tomates ont besoin de beaucoup de soleil et d’un arrosage régulier.')).toBe(
      'fr',
    );
  });

  it('knows its own codes', () => {
    expect(isLanguage('uk')).toBe(true);
    expect(isLanguage('und')).toBe(true);
    expect(isLanguage('xx')).toBe(false);
    expect(isLanguage(null)).toBe(false);
  });
});

describe('indexText', () => {
  it('leaves English and undetermined text to FTS5 (only space-less runs are split)', () => {
    expect(indexText('Grinders and grinding', 'en')).toBe('Grinders and grinding');
    expect(indexText('Grinders and grinding', 'und')).toBe('Grinders and grinding');
    expect(indexText('咖啡时间', 'und').trim().split(/\s+/)).toEqual(['咖啡', '时间']);
  });

  it('stems the words of the language’s script and leaves the others', () => {
    expect(indexText('Бджоли збирають нектар, iPhone 15', 'uk')).toBe(
      `${stemIn('uk', 'бджоли')} ${stemIn('uk', 'збирають')} ${stemIn('uk', 'нектар')}, iPhone 15`,
    );
    expect(indexText('Blätter', 'de')).toBe('blatt');
  });

  it('reads Russian ё as е, so зёрна and зерном share a stem', () => {
    expect(stemIn('ru', 'зёрна')).toBe(stemIn('ru', 'зерном'));
    expect(stemIn('en', 'running')).toBe('running');
  });
});

describe('queryVariants', () => {
  it('adds each word’s stem in the vault’s languages of its script, once', () => {
    expect(queryVariants('бджолами медом бджолами', ['uk'])).toEqual(['бджол', 'мед']);
    expect(queryVariants('Blätter Blätter', ['de', 'en'])).toEqual(['blatt']);
  });

  it('gives nothing for an English vault, digits, other scripts or empty text', () => {
    expect(queryVariants('бджолами', ['en', 'und'])).toEqual([]);
    expect(queryVariants('бджолами', [])).toEqual([]);
    expect(queryVariants('2024 42', ['uk', 'de'])).toEqual([]);
    expect(queryVariants('tomatoes', ['uk'])).toEqual([]);
    expect(queryVariants('', ['uk'])).toEqual([]);
  });

  it('skips English stop-words', () => {
    expect(queryVariants('the and of', ['de'])).toEqual([]);
  });
});
