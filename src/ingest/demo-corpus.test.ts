import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildDocument } from './build.js';
import type { BuiltDocument } from './parsed.js';
import { readPath } from './read-source.js';
import { walkFiles } from './walk.js';

const corpus = fileURLToPath(new URL('../../demo/corpus/', import.meta.url));
const questionsPath = new URL('../../demo/questions.jsonl', import.meta.url);

interface Question {
  id: string;
  question: string;
  relevant: Record<string, number>;
  required_facts: string[];
}

describe('demo corpus', () => {
  it('has ~30 documents of every kind and each one reads, builds and is 1–6 KB of text', async () => {
    const docs = new Map<string, BuiltDocument>();
    for await (const entry of walkFiles(corpus)) {
      if ('error' in entry) throw entry.error;
      if ('skipped' in entry) continue;
      const { docs: parsed } = await readPath(entry.path, entry.relPath);
      // Keyed as the vault records them when `demo/corpus` is added from the repository root.
      for await (const d of parsed) docs.set(`demo/corpus/${entry.relPath}`, buildDocument(d));
    }
    const kinds: Record<string, number> = {};
    for (const d of docs.values()) kinds[d.kind] = (kinds[d.kind] ?? 0) + 1;
    expect(kinds).toEqual({ md: 14, html: 8, txt: 6, pdf: 2 });
    for (const [path, d] of docs) {
      const size = d.sections.reduce((n, s) => n + s.text.length, 0);
      expect(size, path).toBeGreaterThan(900);
      expect(size, path).toBeLessThan(6500);
      expect(d.chunks.length, path).toBeGreaterThan(0);
    }

    // Every question's required facts appear in a chunk of one of its relevant documents.
    const questions = (await readFile(questionsPath, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Question);
    expect(questions.length).toBeGreaterThanOrEqual(12);
    for (const q of questions) {
      for (const source of Object.keys(q.relevant)) expect(docs.has(source), `${q.id}: ${source}`).toBe(true);
      for (const fact of q.required_facts) {
        const found = Object.keys(q.relevant).some((s) =>
          docs.get(s)?.chunks.some((c) => c.text.includes(fact)),
        );
        expect(found, `${q.id}: ${fact}`).toBe(true);
      }
    }
  });
});
