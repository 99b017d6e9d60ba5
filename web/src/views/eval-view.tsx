/**
 * Evaluation: start a run (upload a JSONL question set, or a BEIR folder on the server) as a job
 * with a live progress bar, then read its HTML report, embedded; below, the past runs, any of
 * whose reports can be shown.
 */
import { useState } from 'preact/hooks';
import { EvalReport } from '../components/eval-report.js';
import { evalTitle, EvalRuns, type EvalJobJson } from '../components/eval-runs.js';
import { DEFAULT_EVAL_CHOICE, EvalSettings, type EvalChoice } from '../components/eval-settings.js';
import { EvalBeir, EvalUpload } from '../components/eval-start.js';
import { NeedsRole } from '../components/needs-role.js';
import { useAllowed } from '../role.js';
import type { JobJson } from '../wire.js';

export function EvalView({ token, onBadToken }: { token: string; onBadToken: () => void }) {
  const [version, setVersion] = useState(0);
  const [choice, setChoice] = useState<EvalChoice>(DEFAULT_EVAL_CHOICE);
  const [shown, setShown] = useState<{ id: string; title: string } | null>(null);
  const canRun = useAllowed('write');
  const canBeir = useAllowed('admin');
  const ended = (job: JobJson): void => {
    setVersion((v) => v + 1);
    if (job.state === 'done') setShown({ id: job.id, title: evalTitle(job as EvalJobJson) });
  };
  return (
    <div>
      <h1>Evaluation</h1>
      <section class="card" aria-labelledby="eval-start-title">
        <h2 id="eval-start-title">Run an evaluation</h2>
        {canRun ? (
          <>
            <EvalSettings value={choice} onChange={setChoice} />
            <div class="add-parts">
              <EvalUpload token={token} choice={choice} onEnded={ended} />
              {canBeir ? (
                <EvalBeir token={token} choice={choice} onEnded={ended} />
              ) : (
                <NeedsRole need="admin" what="Evaluating a BEIR folder on the server" />
              )}
            </div>
          </>
        ) : (
          <NeedsRole need="write" what="Running an evaluation" />
        )}
      </section>
      <section class="card" aria-labelledby="eval-report-title">
        <h2 id="eval-report-title">Report{shown === null ? '' : `: ${shown.title}`}</h2>
        {shown === null ? (
          <p class="muted">Run an evaluation, or show the report of a past one below.</p>
        ) : (
          <EvalReport token={token} job={shown.id} title={shown.title} onBadToken={onBadToken} />
        )}
      </section>
      <EvalRuns
        token={token}
        version={version}
        current={shown?.id ?? null}
        onShow={(j) => setShown({ id: j.id, title: evalTitle(j) })}
        onReload={() => setVersion((v) => v + 1)}
      />
    </div>
  );
}
