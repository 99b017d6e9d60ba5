// English analysis shared by the MiniSearch adapter and the plain BM25 reference: Orama's English
// stop-word list (@orama/stopwords) and the Porter stemmer (`stemmer`).
import { stopwords } from '@orama/stopwords/english';
import { stemmer } from 'stemmer';

export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(stopwords);

/** A lower-cased term, dropped (null) when it is a stop word, else its Porter stem. */
export function porterTerm(term: string): string | null {
  const t = term.toLowerCase();
  return t === '' || ENGLISH_STOP_WORDS.has(t) ? null : stemmer(t);
}

/** Letters-and-digits tokens of `text`, stop words dropped, Porter-stemmed. */
export function analyzeEnglish(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split(/[^\p{L}\p{N}]+/u)) {
    const t = porterTerm(raw);
    if (t !== null) out.push(t);
  }
  return out;
}
