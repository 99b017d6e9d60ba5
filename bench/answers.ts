// Answers on HotpotQA (50 questions, all their paragraphs in one vault): answer recall (the gold
// answer string appears in the answer, as RGB and the Dartboard paper score it), share of answers
// whose citations include both gold paragraphs, invalid-citation rate, and latency per stage, for
// the extractive generator with top-k, MMR and Dartboard selection.
import { parseJsonlSource } from '../src/ingest/jsonl-id.js';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Vault, type SelectMethod } from '../src/index.js';
import { answerRecall } from '../src/evaluate/runner.js';
import { hotpotAsCorpus } from './datasets/hotpotqa.js';
import { DATA_DIR, mdTable, mean, median, OUT_DIR, percentile, writeSection } from './lib.js';

/**
 * The gold answer appears in the answer: case- and accent-folded containment on whole words (the
 * way RGB and the Dartboard paper score it, without matching "no" inside "north"); the same
 * definition `quiver eval` uses for `answer_recall` (src/evaluate/runner.ts).
 */
export function answerContains(answer: string, gold: string): boolean {
  return answerRecall(answer, gold).value === 1;
}

export async function benchAnswers(fresh = false): Promise<void> {
  const data = hotpotAsCorpus(DATA_DIR, OUT_DIR);
  if (data === null) {
    writeSection('answers', '## Answers (HotpotQA)\n\nSkipped: HotpotQA data not found.');
    return;
  }
  const path = join(OUT_DIR, 'hotpot.db');
  if (fresh) for (const s of ['', '-wal', '-shm']) rmSync(path + s, { force: true });
  if (!existsSync(path)) {
    const v = await Vault.open({ overrides: { vault: path } });
    await v.add([data.corpus]);
    await v.close();
  }
  const vault = await Vault.open({ overrides: { vault: path } });
  const rows: (string | number)[][] = [];
  const stages: (string | number)[][] = [];
  for (const method of ['topk', 'mmr', 'dartboard'] as SelectMethod[]) {
    let recall = 0;
    let bothGold = 0;
    let invalid = 0;
    let citations = 0;
    const total: number[] = [];
    const ctx: number[] = [];
    const gen: number[] = [];
    const words: number[] = [];
    for (const q of data.questions) {
      const r = await vault.ask(q.question, { generator: 'extractive', select: { method } });
      if (answerContains(r.answer, q.answer)) recall++;
      // A JSON Lines record's source is `<corpus file>#<id>`; the gold names the id (the title).
      const citedSources = new Set(r.cited.map((c) => String(parseJsonlSource(c.source)?.id ?? c.source)));
      if (q.gold.every((g) => citedSources.has(g))) bothGold++;
      invalid += r.invalidCitations.length;
      citations += r.claims.reduce((n, c) => n + c.citations.length, 0);
      total.push(r.timings.totalMs ?? 0);
      ctx.push(r.timings.contextMs ?? 0);
      gen.push(r.timings.generateMs ?? 0);
      words.push(r.answer.split(/\s+/).filter(Boolean).length);
    }
    const n = data.questions.length;
    rows.push([
      method,
      recall / n,
      bothGold / n,
      citations === 0 ? 0 : invalid / citations,
      mean(words).toFixed(1),
    ]);
    stages.push([
      method,
      median(ctx).toFixed(1),
      median(gen).toFixed(1),
      median(total).toFixed(1),
      percentile(total, 95).toFixed(1),
    ]);
    process.stderr.write(`answers ${method}: recall ${(recall / n).toFixed(3)}\n`);
  }
  await vault.close();
  const md =
    `## Answers (HotpotQA, extractive generator)\n\n${data.questions.length} questions; one vault of all their paragraphs (each paragraph a document); \`vault.ask(q, {generator: 'extractive', select: {method}})\` with the default budget (at most 3 sentences, 80 words). Answer recall: the gold answer string appears in the answer (case- and accent-folded containment on whole words, as RGB and the Dartboard paper score it but without counting a gold "no" inside "north"; the same definition as answer_recall in quiver eval).\n\n` +
    mdTable(
      ['selection', 'answer recall', 'cites both gold paragraphs', 'invalid citation rate', 'mean words'],
      rows,
    ) +
    `\n\nLatency per stage, milliseconds (p50 unless marked):\n\n` +
    mdTable(['selection', 'context', 'generate', 'ask total', 'ask total p95'], stages) +
    '\n';
  writeSection('answers', md);
}

if (import.meta.url === `file://${process.argv[1]}`) await benchAnswers(process.argv.includes('--fresh'));
