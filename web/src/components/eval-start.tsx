/**
 * The two ways to start an evaluation, each followed by its progress bar: upload a JSONL question
 * set (write; run against this vault), or name a BEIR folder on the server (admin; its corpus goes
 * into a throwaway vault). The server checks the set whole and says which line is wrong.
 */
import { useEffect } from 'preact/hooks';
import { getJson } from '../api.js';
import { useJobRun, type JobRun } from '../use-job-run.js';
import type { AcceptedJson, JobJson } from '../wire.js';
import { EvalProgress } from './eval-progress.js';
import { ServerPathForm } from './server-path-form.js';
import type { EvalChoice } from './eval-settings.js';

/** `onEnded` is told the finished job (done or dead), to reload the runs and show its report. */
interface StartProps {
  token: string;
  choice: EvalChoice;
  onEnded: (job: JobJson) => void;
}

export function EvalUpload({ token, choice, onEnded }: StartProps) {
  const { run, start } = useJobRun(token, () => undefined);
  useEnded(run, onEnded);
  const busy = run.phase === 'sending' || run.phase === 'running';
  const send = (list: FileList | null): void => {
    const file = list?.[0];
    if (file === undefined || busy) return;
    const form = new FormData();
    form.append('file', file, file.name);
    for (const m of choice.select) form.append('select', m);
    form.append('judge', choice.judge);
    start(`Evaluation of ${file.name}`, () => getJson<AcceptedJson>('/v1/evals', token, { body: form }));
  };
  return (
    <div class="add-part">
      <h3>Upload a question set</h3>
      <div class="drop">
        <label for="eval-file">Choose a question set (JSONL)</label>
        <input
          id="eval-file"
          type="file"
          accept=".jsonl,.ndjson,.json,.txt"
          disabled={busy}
          aria-describedby="eval-file-help"
          onChange={(e) => {
            send(e.currentTarget.files);
            e.currentTarget.value = '';
          }}
        />
      </div>
      <p id="eval-file-help" class="muted small">
        One JSON object per line with a <code>question</code>, and optionally <code>relevant</code>,{' '}
        <code>required_facts</code> and <code>reference</code>. It runs against this vault. Needs a write
        token.
      </p>
      <EvalProgress run={run} forbidden="Running an evaluation needs a write or admin token." />
    </div>
  );
}

export function EvalBeir({ token, choice, onEnded }: StartProps) {
  const { run, start } = useJobRun(token, () => undefined);
  useEnded(run, onEnded);
  return (
    <ServerPathForm
      id="eval-beir"
      title="A BEIR folder on the server"
      label="Path of the BEIR folder"
      placeholder="/srv/beir/scifact"
      empty="Enter the path of a BEIR folder on the server."
      busy={run.phase === 'sending' || run.phase === 'running'}
      action="Run"
      help={
        <>
          An absolute path under the server’s roots holding <code>corpus.jsonl</code>,{' '}
          <code>queries.jsonl</code> and <code>qrels/</code>. Its corpus is ingested into a throwaway vault.
          Needs an admin token.
        </>
      }
      onPath={(p) =>
        start(`Evaluation of ${p}`, () =>
          getJson<AcceptedJson>('/v1/evals/beir', token, {
            body: {
              path: p,
              judge: choice.judge,
              ...(choice.select.length === 0 ? {} : { select: choice.select }),
            },
          }),
        )
      }
    >
      <EvalProgress
        run={run}
        forbidden="The server refused: a BEIR folder needs an admin token and a path under its roots."
      />
    </ServerPathForm>
  );
}

/** Tell the view once when the run's job has ended. */
function useEnded(run: JobRun, onEnded: (job: JobJson) => void): void {
  const ended = run.phase === 'ended' ? run.job : null;
  useEffect(() => {
    if (ended !== null) onEnded(ended);
    // Only when a job ends, not when the view's callback changes.
  }, [ended]);
}
