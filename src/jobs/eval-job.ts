/**
 * The `eval` job: a question set (an uploaded JSONL kept as a store blob) run against the vault,
 * or a BEIR folder on the server (its corpus ingested into a throwaway vault), through `runEval`
 * with one config per selection method asked for. Progress is reported as the ingest jobs report
 * it (`{done, total}`, plus the stage and config), and the whole `EvalResult` is kept as a store
 * blob named by the job id (`evalResultBlob`), since it is too big to list with the jobs; the
 * job's own result is a short summary (dataset, question count, each config's means).
 */
import { realpathSync } from 'node:fs';
import { QuiverError } from '../errors.js';
import { JUDGE_NAMES, parseVariant } from '../evaluate/eval-config.js';
import type { EvalConfig, JudgeName } from '../evaluate/eval-config.js';
import { loadEvalInput } from '../evaluate/eval-input.js';
import { parseEvalResult } from '../evaluate/eval-result.js';
import type { EvalResult } from '../evaluate/eval-result.js';
import { parseQuestionSet } from '../evaluate/question-set.js';
import type { EvalQuestion } from '../evaluate/question-set.js';
import { runEval } from '../evaluate/runner.js';
import { isUnder } from '../ingest/path-under.js';
import type { Store } from '../store/store.js';
import type { Vault } from '../vault.js';
import type { JobContext } from './run-job.js';
import type { JobRecord } from '../store/store.js';
import { sha256Hex } from './job-kinds.js';

/** The selection methods an eval job compares (one config each, the first is the baseline). */
export const EVAL_SELECTS = ['topk', 'mmr', 'dartboard'] as const;
export type EvalSelect = (typeof EVAL_SELECTS)[number];

/** What an eval job runs: the input, and a few settings kept simple. */
export interface EvalPayload {
  input:
    | {
        kind: 'upload';
        /** Blob name (`eval-set:<sha256>`). */
        blob: string;
        name: string;
        sha256: string;
        bytes: number;
      }
    | {
        kind: 'beir';
        /** A real path, already checked against `roots`; checked again when the job runs. */
        path: string;
        roots: string[];
        split?: string;
      };
  /** One config per method, compared with the first; default: the vault's own selection. */
  select?: EvalSelect[];
  /** Results retrieved per question (recall@100 needs 100). */
  limit?: number;
  judge?: JudgeName;
  /** Answer and measure grounding even when the set has no facts or references. */
  answer?: boolean;
}

/** The blob an uploaded question set is kept in: content-addressed, apart from ingest uploads. */
export function evalSetBlobName(sha256: string): string {
  return `eval-set:${sha256}`;
}

/** The blob an eval job's `EvalResult` JSON is kept in. */
export function evalResultBlob(jobId: string): string {
  return `eval-result:${jobId}`;
}

/** Keep an uploaded question set (already parsed by the caller) for its job. */
export async function keepQuestionSet(
  store: Store,
  name: string,
  bytes: Uint8Array,
): Promise<EvalPayload['input']> {
  const sha256 = sha256Hex(bytes);
  const blob = evalSetBlobName(sha256);
  await store.putBlob(blob, bytes);
  return { kind: 'upload', blob, name, sha256, bytes: bytes.length };
}

/** The configs of a payload's `select` (none: one config with the vault's settings). */
export function evalConfigs(p: Pick<EvalPayload, 'select' | 'limit' | 'judge'>): EvalConfig[] {
  const base = {
    ...(p.limit === undefined ? {} : { limit: p.limit }),
    ...(p.judge === undefined ? {} : { judge: p.judge }),
  };
  const methods = p.select ?? [];
  if (methods.length === 0) return [{ name: 'default', settings: base }];
  return methods.map((m) => {
    const c = parseVariant(`select=${m}`);
    return { name: c.name, settings: { ...c.settings, ...base } };
  });
}

const bad = (why: string): QuiverError => new QuiverError('BAD_INPUT', `quiver: eval job: ${why}`);

/** An eval payload read back from the store, checked field by field. */
export function evalPayload(raw: Record<string, unknown>): EvalPayload {
  const input = raw.input as Record<string, unknown> | undefined;
  let out: EvalPayload;
  if (input?.kind === 'upload') {
    if (typeof input.blob !== 'string' || typeof input.name !== 'string' || typeof input.sha256 !== 'string')
      throw bad('an uploaded question set needs blob, name and sha256');
    out = {
      input: {
        kind: 'upload',
        blob: input.blob,
        name: input.name,
        sha256: input.sha256,
        bytes: Number(input.bytes) || 0,
      },
    };
  } else if (input?.kind === 'beir') {
    const roots = input.roots;
    if (typeof input.path !== 'string' || !Array.isArray(roots) || !roots.every((r) => typeof r === 'string'))
      throw bad('a BEIR folder needs path and roots');
    out = {
      input: {
        kind: 'beir',
        path: input.path,
        roots: roots as string[],
        ...(typeof input.split === 'string' ? { split: input.split } : {}),
      },
    };
  } else throw bad('"input" must be an uploaded question set or a BEIR folder');
  if (raw.select !== undefined) {
    if (!Array.isArray(raw.select) || !raw.select.every((m) => EVAL_SELECTS.includes(m as EvalSelect)))
      throw bad(`"select" must list methods of ${EVAL_SELECTS.join(', ')}`);
    out.select = raw.select as EvalSelect[];
  }
  if (raw.limit !== undefined) {
    if (!Number.isInteger(raw.limit) || (raw.limit as number) < 1 || (raw.limit as number) > 1000)
      throw bad(`"limit" must be an integer from 1 to 1000, got ${JSON.stringify(raw.limit)}`);
    out.limit = raw.limit as number;
  }
  if (raw.judge !== undefined) {
    if (!JUDGE_NAMES.includes(raw.judge as JudgeName))
      throw bad(`"judge" must be one of ${JUDGE_NAMES.join(', ')}`);
    out.judge = raw.judge as JudgeName;
  }
  if (raw.answer !== undefined) out.answer = raw.answer === true;
  return out;
}

/** A short account of a result, kept as the job's own result (the lists show it). */
export function evalSummary(jobId: string, r: EvalResult, questions: number): Record<string, unknown> {
  return {
    report: evalResultBlob(jobId),
    dataset: r.meta.dataset,
    questions,
    durationMs: r.meta.durationMs,
    configs: r.configs.map((c) => ({
      name: c.name,
      means: Object.fromEntries(Object.entries(c.summary).map(([m, s]) => [m, s.mean])),
    })),
  };
}

/** The `EvalResult` an eval job stored, or NOT_FOUND when the job has none (yet). */
export async function storedEvalResult(store: Store, job: JobRecord): Promise<EvalResult> {
  if (job.kind !== 'eval') throw new QuiverError('NOT_FOUND', `quiver: job ${job.id} is not an eval`);
  const bytes = job.state === 'done' ? await store.getBlob(evalResultBlob(job.id)) : null;
  if (bytes === null)
    throw new QuiverError(
      'NOT_FOUND',
      `quiver: eval ${job.id} has no report${job.state === 'done' ? '' : ` yet (it is ${job.state})`}`,
    );
  return parseEvalResult(JSON.parse(new TextDecoder().decode(bytes)));
}

/**
 * Run an eval job against `vault` (the vault a question set is measured on). Safe to run again:
 * the result blob is written whole at the end, replacing any earlier one.
 */
export async function runEvalJob(
  vault: Vault,
  job: JobRecord,
  ctx: JobContext,
): Promise<Record<string, unknown>> {
  const p = evalPayload(job.payload);
  const configs = evalConfigs(p);
  let questions: EvalQuestion[];
  let evalVault = vault;
  let dataset: string;
  let close = async (): Promise<void> => undefined;
  const notes: string[] = [];
  if (p.input.kind === 'upload') {
    const bytes = await vault.store.getBlob(p.input.blob);
    if (bytes === null)
      throw new QuiverError('NOT_FOUND', `quiver: the question set ${p.input.name} is gone from the vault`);
    questions = parseQuestionSet(new TextDecoder().decode(bytes), p.input.name);
    dataset = p.input.name;
  } else {
    checkStillUnder(p.input.path, p.input.roots);
    // No vault given: the corpus goes into a throwaway vault, deleted when the run ends.
    const data = await loadEvalInput(p.input.path, {
      ...(p.input.split === undefined ? {} : { split: p.input.split }),
      onIngestProgress: (x) =>
        ctx.progress({ stage: 'ingest', done: x.done, total: x.total, source: x.source }),
    });
    ({ questions, dataset } = data);
    evalVault = data.vault;
    close = () => data.close();
    if (data.ingest !== null)
      notes.push(
        `corpus ingested into a throwaway vault: ${data.ingest.added} documents (${data.ingest.failed} failed) in ${(data.ingest.ms / 1000).toFixed(1)} s`,
      );
  }
  let result: EvalResult;
  try {
    const total = questions.length * configs.length;
    ctx.progress({ stage: 'eval', done: 0, total });
    let finished = 0;
    result = await runEval({
      vault: evalVault,
      questions,
      configs,
      dataset,
      notes,
      signal: ctx.signal,
      ...(p.answer === true ? { answer: true } : {}),
      ...(p.judge === undefined ? {} : { judge: p.judge }),
      onProgress: (x) => {
        if (x.done === questions.length) finished++;
        const done =
          x.done === questions.length ? finished * questions.length : finished * questions.length + x.done;
        ctx.progress({ stage: 'eval', done, total, config: x.config });
      },
    });
  } finally {
    await close();
  }
  await vault.store.putBlob(evalResultBlob(job.id), new TextEncoder().encode(JSON.stringify(result)));
  return evalSummary(job.id, result, questions.length);
}

/** A BEIR folder still really under one of `roots` when the job runs (FORBIDDEN, dead at once). */
function checkStillUnder(path: string, roots: readonly string[]): void {
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    throw new QuiverError('NOT_FOUND', `quiver: no BEIR folder ${path}`);
  }
  if (!roots.some((r) => isUnder(real, r)))
    throw new QuiverError('FORBIDDEN', `quiver: ${path} now leads outside the server's roots`);
}
