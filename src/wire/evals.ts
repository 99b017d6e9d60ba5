/**
 * The wire format of evaluations (`/v1/evals`): the settings a run takes, as a JSON body (a BEIR
 * folder on the server) or as form fields beside an uploaded question set, and an eval job as the
 * lists show it.
 */
import { z } from 'zod';
import { JUDGE_NAMES } from '../evaluate/eval-config.js';
import { EVAL_SELECTS } from '../jobs/eval-job.js';
import type { JobRecord } from '../store/store.js';
import { jobJson } from './jobs.js';

/** What a run measures besides its input: kept to a few settings. */
export const EvalSettingsRequest = z
  .object({
    /** One config per selection method, each compared with the first. */
    select: z.array(z.enum(EVAL_SELECTS)).min(1).max(EVAL_SELECTS.length).optional(),
    limit: z.number().int().min(1).max(1000).optional(),
    judge: z.enum(JUDGE_NAMES).optional(),
    answer: z.boolean().optional(),
  })
  .strict();
export type EvalSettingsRequest = z.infer<typeof EvalSettingsRequest>;

/** `POST /v1/evals/beir`: a BEIR folder on the server, under its roots. */
export const BeirEvalRequest = EvalSettingsRequest.extend({
  path: z.string().min(1).max(4096),
  split: z.string().min(1).max(100).optional(),
}).strict();

/** An eval job as the API shows it: the job, and where its report and result are. */
export function evalJobJson(j: JobRecord): Record<string, unknown> {
  return {
    ...jobJson(j),
    report: j.state === 'done' ? `/v1/evals/${j.id}/report` : null,
  };
}
