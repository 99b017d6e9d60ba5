/**
 * The past evaluations (`GET /v1/evals`), newest first: what was run, its state, its headline
 * numbers (nDCG@10 and, when answers were measured, faithfulness, of each config), and a button
 * that shows its report.
 */
import type { JobJson } from '../wire.js';
import { useJson } from '../use-json.js';
import { LoadedTable } from './loaded-table.js';

/** An eval job: a job whose result, once done, is a summary of the run. */
export interface EvalJobJson extends JobJson {
  report: string | null;
}

/** The summary an eval job keeps as its result (src/jobs/eval-job.ts `evalSummary`). */
export interface EvalSummaryJson {
  dataset: string;
  questions: number;
  configs: { name: string; means: Record<string, number | null> }[];
}

const STATE_TAG: Record<JobJson['state'], string> = { queued: '', leased: '', done: 'ok', dead: 'bad' };

/** What a run was of: the dataset of its result, else what the job's label would be. */
export function evalTitle(j: EvalJobJson): string {
  const s = j.result as Partial<EvalSummaryJson> | null;
  return typeof s?.dataset === 'string' ? s.dataset : `eval ${j.id.slice(0, 12)}`;
}

const fmt = (x: number | null | undefined): string => (typeof x === 'number' ? x.toFixed(3) : '—');

function Headline({ job }: { job: EvalJobJson }) {
  const s = job.result as Partial<EvalSummaryJson> | null;
  if (!Array.isArray(s?.configs)) return <span class="muted">—</span>;
  return (
    <ul class="eval-means">
      {s.configs.map((c) => (
        <li key={c.name}>
          <span class="muted">{c.name}</span> nDCG@10 {fmt(c.means['ndcg@10'])}
          {c.means.faithfulness !== undefined && <> · faithfulness {fmt(c.means.faithfulness)}</>}
        </li>
      ))}
    </ul>
  );
}

export function EvalRuns(props: {
  token: string;
  version: number;
  current: string | null;
  onShow: (job: EvalJobJson) => void;
  onReload: () => void;
}) {
  const { token, version, current, onShow, onReload } = props;
  const loaded = useJson<{ evals: EvalJobJson[] }>('/v1/evals?limit=50', token, version);
  return (
    <section class="card" aria-labelledby="eval-runs-title">
      <div class="card-head">
        <h2 id="eval-runs-title">Past evaluations</h2>
        <button type="button" class="quiet" onClick={onReload}>
          Refresh
        </button>
      </div>
      <LoadedTable
        loaded={loaded}
        items={(v) => v.evals}
        label="Past evaluations"
        testId="eval-runs"
        loading="Loading the evaluations…"
        empty="No evaluations yet."
        head={
          <tr>
            <th scope="col">Run</th>
            <th scope="col">State</th>
            <th scope="col">Results</th>
            <th scope="col">Report</th>
          </tr>
        }
        row={(j) => (
          <tr key={j.id} class={j.id === current ? 'is-open' : ''}>
            <th scope="row">
              {evalTitle(j)}
              <span class="muted small">{new Date(j.createdAt).toLocaleString()}</span>
              {j.lastError !== null && <span class="small error-text">{j.lastError}</span>}
            </th>
            <td>
              <span class={`tag ${STATE_TAG[j.state]}`}>{j.state}</span>
            </td>
            <td>
              <Headline job={j} />
            </td>
            <td>
              {j.state === 'done' ? (
                <button
                  type="button"
                  class="quiet"
                  aria-label={`Show the report of ${evalTitle(j)}, ${new Date(j.createdAt).toLocaleString()}`}
                  aria-pressed={j.id === current}
                  onClick={() => onShow(j)}
                >
                  Show
                </button>
              ) : (
                <span class="muted">—</span>
              )}
            </td>
          </tr>
        )}
      />
    </section>
  );
}
