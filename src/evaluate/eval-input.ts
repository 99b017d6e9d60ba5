/**
 * What `quiver eval` reads: a JSONL question set (run against an existing vault), or a BEIR folder
 * (`corpus.jsonl`, `queries.jsonl`, `qrels/<split>.tsv`) whose corpus is ingested into a throwaway
 * vault in a temp folder unless a vault is given (then it is assumed to hold the corpus already).
 * After a JSONL ingest each corpus record's source is `<corpus file>#<id>`; the runner matches a hit
 * to a qrels corpus id through that id (`relevanceKey`), so the qrels are relevance keys as they are.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QuiverError } from '../errors.js';
import type { AddProgress } from '../ingest/ingest.js';
import { Vault } from '../vault.js';
import { isBeirFolder, loadBeir } from './datasets/beir.js';
import type { BeirSet } from './datasets/beir.js';
import { readQuestionSet } from './question-set.js';
import type { EvalQuestion } from './question-set.js';

/** The questions of a BEIR split: query text, and the qrels as the `relevant` map (corpus ids). */
export function beirQuestions(set: BeirSet): EvalQuestion[] {
  return set.queries.map((q) => ({
    id: q.id,
    question: q.text,
    relevant: Object.fromEntries(set.qrels.get(q.id) ?? []),
    requiredFacts: [],
    sources: [],
  }));
}

/** A loaded eval input: questions, an open vault, and how to let go of both. */
export interface EvalInput {
  questions: EvalQuestion[];
  vault: Vault;
  /** `questions.jsonl` or `scifact (BEIR, split train)`. */
  dataset: string;
  /** Ingest of a throwaway vault: time and document counts; null when an existing vault is used. */
  ingest: { ms: number; added: number; failed: number } | null;
  /** Closes the vault and removes a throwaway vault's folder. */
  close(): Promise<void>;
}

export interface LoadEvalInputOptions {
  /** BEIR split (default: `test`, or the only split). */
  split?: string;
  /** Opens the vault to evaluate against (the CLI's configured vault). Required for question sets; for BEIR it means "already ingested". */
  openVault?: () => Promise<Vault>;
  env?: NodeJS.ProcessEnv;
  onIngestProgress?: (p: AddProgress) => void;
}

/**
 * Load `path` as a BEIR folder or a question set. A throwaway vault for BEIR lives in a fresh temp
 * folder and is deleted by `close()`.
 */
export async function loadEvalInput(path: string, options: LoadEvalInputOptions = {}): Promise<EvalInput> {
  if (isBeirFolder(path)) {
    const set = loadBeir(path, options.split);
    const questions = beirQuestions(set);
    const dataset = `${path} (BEIR, split ${set.split})`;
    if (options.openVault !== undefined) {
      const vault = await options.openVault();
      return { questions, vault, dataset, ingest: null, close: () => vault.close() };
    }
    const dir = mkdtempSync(join(tmpdir(), 'quiver-eval-'));
    const drop = (): void => rmSync(dir, { recursive: true, force: true });
    let vault: Vault | undefined;
    try {
      vault = await Vault.open({
        overrides: { vault: join(dir, 'vault.db') },
        ...(options.env === undefined ? {} : { env: options.env }),
      });
      const t0 = performance.now();
      const report = await vault.add(
        [set.corpusPath],
        options.onIngestProgress === undefined ? {} : { onProgress: options.onIngestProgress },
      );
      const b = report.batch;
      const ingest = {
        ms: performance.now() - t0,
        added: b.added + b.updated + b.unchanged,
        failed: b.failed,
      };
      return {
        questions,
        vault,
        dataset,
        ingest,
        close: async () => {
          await vault?.close();
          drop();
        },
      };
    } catch (e) {
      await vault?.close();
      drop();
      throw e;
    }
  }
  const questions = readQuestionSet(path);
  if (options.openVault === undefined)
    throw new QuiverError('BAD_INPUT', `quiver: ${path} is a question set and needs a vault`);
  const vault = await options.openVault();
  return { questions, vault, dataset: path, ingest: null, close: () => vault.close() };
}
