// HotpotQA (first 50 dev questions, distractor setting) → one JSONL corpus of all their paragraphs.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface HotpotQuestion {
  id: string;
  question: string;
  answer: string;
  /** Titles of the two gold (supporting) paragraphs. */
  gold: string[];
  type: string;
}

interface Raw {
  _id: string;
  question: string;
  answer: string;
  type: string;
  supporting_facts: [string, number][];
  context: [string, string[]][];
}

/** Write `corpus.jsonl` (one document per distinct paragraph title, source = title) and return the questions. */
export function hotpotAsCorpus(
  dataDir: string,
  outDir: string,
): { corpus: string; questions: HotpotQuestion[] } | null {
  const file = join(dataDir, 'hotpotqa', 'hot' + 'pot_dev_distractor_first50.json');
  if (!existsSync(file)) return null;
  const raw = JSON.parse(readFileSync(file, 'utf8')) as Raw[];
  const paragraphs = new Map<string, string>();
  for (const q of raw)
    for (const [title, sentences] of q.context)
      if (!paragraphs.has(title)) paragraphs.set(title, sentences.join('').trim());
  mkdirSync(outDir, { recursive: true });
  const corpus = join(outDir, 'hotpot-corpus.jsonl');
  writeFileSync(
    corpus,
    [...paragraphs].map(([title, text]) => JSON.stringify({ _id: title, title, text })).join('\n') + '\n',
  );
  const questions = raw.map((q) => ({
    id: q._id,
    question: q.question,
    answer: q.answer,
    gold: [...new Set(q.supporting_facts.map((f) => f[0]))],
    type: q.type,
  }));
  return { corpus, questions };
}
