import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { QuiverError } from '../../errors.js';

/** A BEIR-format data set: `corpus.jsonl`, `queries.jsonl`, `qrels/<split>.tsv`. */
export interface BeirSet {
  dir: string;
  corpusPath: string;
  queries: { id: string; text: string }[];
  /** query id → doc id → grade (> 0 relevant). Only queries with judgements are kept. */
  qrels: Map<string, Map<string, number>>;
  split: string;
}

/** True when `dir` looks like a BEIR folder. */
export function isBeirFolder(dir: string): boolean {
  return (
    existsSync(join(dir, 'corpus.jsonl')) &&
    existsSync(join(dir, 'queries.jsonl')) &&
    existsSync(join(dir, 'qrels'))
  );
}

/** Parse a qrels TSV (`query-id  corpus-id  score`, header optional). */
export function parseQrels(tsv: string): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  for (const line of tsv.split('\n')) {
    const [q, d, s] = line.trim().split(/\t|\s+/);
    if (q === undefined || d === undefined || s === undefined || q === 'query-id') continue;
    const grade = Number(s);
    if (!Number.isFinite(grade)) continue;
    let m = out.get(q);
    if (m === undefined) out.set(q, (m = new Map()));
    m.set(d, grade);
  }
  return out;
}

/**
 * Load a BEIR folder's queries and judgements for one split (default: `test` when present, else the
 * only/first split). Queries without a judgement in that split are dropped.
 */
export function loadBeir(dir: string, split?: string): BeirSet {
  if (!isBeirFolder(dir))
    throw new QuiverError(
      'BAD_INPUT',
      `quiver: ${dir} is not a BEIR folder (corpus.jsonl, queries.jsonl, qrels/)`,
    );
  const splits = readdirSync(join(dir, 'qrels'))
    .filter((f) => f.endsWith('.tsv'))
    .map((f) => f.slice(0, -4))
    .sort();
  const chosen = split ?? (splits.includes('test') ? 'test' : splits[0]);
  if (chosen === undefined || !splits.includes(chosen)) {
    throw new QuiverError(
      'BAD_INPUT',
      `quiver: split ${JSON.stringify(split)} not in ${dir}/qrels (have ${splits.join(', ')})`,
    );
  }
  const qrels = parseQrels(readFileSync(join(dir, 'qrels', `${chosen}.tsv`), 'utf8'));
  const queries: { id: string; text: string }[] = [];
  for (const line of readFileSync(join(dir, 'queries.jsonl'), 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const o = JSON.parse(line) as { _id?: unknown; id?: unknown; text?: unknown };
    const id = String(o._id ?? o.id);
    if (typeof o.text === 'string' && qrels.has(id)) queries.push({ id, text: o.text });
  }
  return { dir, corpusPath: join(dir, 'corpus.jsonl'), queries, qrels, split: chosen };
}
