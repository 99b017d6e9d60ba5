/**
 * Folder ingest (admin): a folder or file on the server's own disk, read by an ingest job. Only
 * paths under the server's configured roots (`server.roots`, QUIVER_ROOTS) are allowed; the
 * server's refusal (not absolute, outside the roots, not there) is shown as it said it.
 */
import { getJson } from '../api.js';
import { useJobRun } from '../use-job-run.js';
import type { AcceptedJson } from '../wire.js';
import { JobProgress } from './job-progress.js';
import { ServerPathForm } from './server-path-form.js';

export function FolderIngest({ token, onChanged }: { token: string; onChanged: () => void }) {
  const { run, start } = useJobRun(token, onChanged);
  return (
    <ServerPathForm
      id="folder-path"
      title="A folder on the server"
      label="Path on the server"
      placeholder="/srv/notes"
      empty="Enter the path of a folder or file on the server."
      busy={run.phase === 'sending' || run.phase === 'running'}
      action="Ingest"
      help="An absolute path under the folders the server was set to allow (server.roots). Needs an admin token."
      onPath={(p) =>
        start(`Ingest of ${p}`, () => getJson<AcceptedJson>('/v1/documents', token, { body: { paths: [p] } }))
      }
    >
      <JobProgress
        run={run}
        forbidden="The server refused: folder ingest needs an admin token and a path under its roots."
      />
    </ServerPathForm>
  );
}
