/**
 * Folder ingest (admin): a folder or file on the server's own disk, read by an ingest job. Only
 * paths under the server's configured roots (`server.roots`, QUIVER_ROOTS) are allowed; the
 * server's refusal (not absolute, outside the roots, not there) is shown as it said it.
 */
import { useState } from 'preact/hooks';
import { getJson } from '../api.js';
import { useJobRun } from '../use-job-run.js';
import type { AcceptedJson } from '../wire.js';
import { JobProgress } from './job-progress.js';

export function FolderIngest({ token, onChanged }: { token: string; onChanged: () => void }) {
  const { run, start } = useJobRun(token, onChanged);
  const [path, setPath] = useState('');
  const [problem, setProblem] = useState('');
  const busy = run.phase === 'sending' || run.phase === 'running';
  const submit = (e: Event): void => {
    e.preventDefault();
    const p = path.trim();
    if (p === '') {
      setProblem('Enter the path of a folder or file on the server.');
      return;
    }
    setProblem('');
    start(`Ingest of ${p}`, () => getJson<AcceptedJson>('/v1/documents', token, { body: { paths: [p] } }));
  };
  return (
    <form class="add-part" onSubmit={submit} noValidate>
      <h3>A folder on the server</h3>
      <label for="folder-path">Path on the server</label>
      <div class="row">
        <input
          id="folder-path"
          type="text"
          autoComplete="off"
          spellcheck={false}
          placeholder="/srv/notes"
          value={path}
          aria-describedby={problem === '' ? 'folder-help' : 'folder-help folder-problem'}
          aria-invalid={problem !== ''}
          onInput={(e) => setPath(e.currentTarget.value)}
        />
        <button type="submit" disabled={busy}>
          Ingest
        </button>
      </div>
      {problem !== '' && (
        <p id="folder-problem" class="field-error small">
          {problem}
        </p>
      )}
      <p id="folder-help" class="muted small">
        An absolute path under the folders the server was set to allow (server.roots). Needs an admin token.
      </p>
      <JobProgress
        run={run}
        forbidden="The server refused: folder ingest needs an admin token and a path under its roots."
      />
    </form>
  );
}
