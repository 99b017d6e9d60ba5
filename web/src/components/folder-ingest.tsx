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
import { ServerPathField } from './server-path-field.js';

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
      <ServerPathField
        id="folder-path"
        label="Path on the server"
        placeholder="/srv/notes"
        value={path}
        onInput={setPath}
        problem={problem}
        busy={busy}
        action="Ingest"
        help="An absolute path under the folders the server was set to allow (server.roots). Needs an admin token."
      />
      <JobProgress
        run={run}
        forbidden="The server refused: folder ingest needs an admin token and a path under its roots."
      />
    </form>
  );
}
