/**
 * English stop-words: function words that carry no topic. Used by the lexical leg's `any` mode
 * (dropping them keeps OR queries fast and precise), the lexical judge and the extractive
 * generator. Lower-case, no punctuation.
 */
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below ' +
    'between both but by can could did do does doing down during each few for from further had has have ' +
    'having he her here hers herself him himself his how i if in into is it its itself just me more most ' +
    'my myself no nor not now of off on once only or other our ours ourselves out over own same she should ' +
    'so some such than that the their theirs them themselves then there these they this those through to ' +
    'too under until up very was we were what when where which while who whom why will with would you your ' +
    'yours yourself yourselves also may might must shall us upon via per within without whether across ' +
    'among amongst although though however yet thus hence therefore etc ie eg vs'
  ).split(' '),
);

/** Negation words: the lexical judge requires these to match between claim and source. */
export const NEGATIONS: ReadonlySet<string> = new Set([
  'no',
  'not',
  'never',
  'none',
  'nor',
  'neither',
  'without',
  'cannot',
  "n't",
]);
