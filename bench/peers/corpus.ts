// A BEIR corpus.jsonl as documents for the in-memory libraries.
import { readFileSync } from 'node:fs';
import type { Doc } from './types.js';

export function loadCorpus(corpusPath: string): Doc[] {
  return readFileSync(corpusPath, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const o = JSON.parse(l) as { _id: string | number; title?: string; text?: string };
      return { id: String(o._id), title: o.title ?? '', text: o.text ?? '' };
    });
}
