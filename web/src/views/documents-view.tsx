/**
 * Documents: adding documents (upload, or a folder on the server), each with a live progress bar;
 * the vault's documents, filtered by a text; opening one shows its outline in the side panel, and
 * a section of the outline opens its text. Below, the batches (with Undo) and the jobs (with Retry
 * for dead ones).
 */
import { useRef, useState } from 'preact/hooks';
import { BatchesList } from '../components/batches-list.js';
import { ErrorNote } from '../components/error-note.js';
import { FolderIngest } from '../components/folder-ingest.js';
import { JobsList } from '../components/jobs-list.js';
import { NeedsRole } from '../components/needs-role.js';
import { SectionPanel, type PanelTarget } from '../components/section-panel.js';
import { UploadFiles } from '../components/upload-files.js';
import { useAllowed } from '../role.js';
import { useJson } from '../use-json.js';
import type { DocumentJson } from '../wire.js';

/** The most documents listed (the API's ceiling for one call). */
const LIMIT = 10_000;

export function DocumentsView({ token, onBadToken }: { token: string; onBadToken: () => void }) {
  const [version, setVersion] = useState(0);
  const [filter, setFilter] = useState('');
  const [panel, setPanel] = useState<PanelTarget | null>(null);
  const opener = useRef<HTMLElement | null>(null);
  const loaded = useJson<{ documents: DocumentJson[] }>(`/v1/documents?limit=${LIMIT}`, token, version);
  const open = (docId: string, from: HTMLElement): void => {
    opener.current = from;
    setPanel({ kind: 'outline', docId });
  };
  const close = (): void => {
    setPanel(null);
    opener.current?.focus();
  };
  const changed = (): void => setVersion((v) => v + 1);
  const canUpload = useAllowed('write');
  const canIngest = useAllowed('admin');
  return (
    <div class={`split ${panel === null ? '' : 'with-panel'}`}>
      <div class="split-main">
        <h1>Documents</h1>
        <section class="card" aria-labelledby="add-title">
          <h2 id="add-title">Add documents</h2>
          <div class="add-parts">
            {canUpload ? (
              <UploadFiles token={token} onChanged={changed} />
            ) : (
              <NeedsRole need="write" what="Uploading files" />
            )}
            {canIngest ? (
              <FolderIngest token={token} onChanged={changed} />
            ) : (
              <NeedsRole need="admin" what="Ingesting a folder on the server" />
            )}
          </div>
        </section>
        <section class="card" aria-labelledby="docs-title">
          <h2 id="docs-title">In the vault</h2>
          <label for="doc-filter">Filter by title or source</label>
          <input
            id="doc-filter"
            type="text"
            autoComplete="off"
            placeholder="for example sourdough"
            value={filter}
            onInput={(e) => setFilter(e.currentTarget.value)}
          />
          {loaded.state === 'loading' && <p class="muted">Loading the documents…</p>}
          {loaded.state === 'failed' && <ErrorNote error={loaded.error} onBadToken={onBadToken} />}
          {loaded.state === 'ok' && (
            <DocumentTable documents={loaded.value.documents} filter={filter} current={panel} onOpen={open} />
          )}
        </section>
        <BatchesList token={token} version={version} onChanged={changed} />
        <JobsList token={token} version={version} onChanged={changed} />
      </div>
      {panel !== null && <SectionPanel target={panel} token={token} onClose={close} onOpen={setPanel} />}
    </div>
  );
}

function DocumentTable(props: {
  documents: readonly DocumentJson[];
  filter: string;
  current: PanelTarget | null;
  onOpen: (docId: string, from: HTMLElement) => void;
}) {
  const { documents, filter, current, onOpen } = props;
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  const shown = documents.filter((d) => {
    const hay = `${d.title} ${d.source}`.toLowerCase();
    return words.every((w) => hay.includes(w));
  });
  const openId = current?.kind === 'outline' ? current.docId : null;
  return (
    <>
      <p class="muted small" role="status" aria-live="polite">
        {words.length === 0
          ? `${documents.length} documents, newest first.`
          : `${shown.length} of ${documents.length} documents match.`}
      </p>
      {shown.length > 0 && (
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Documents (scrolls sideways)">
          <table class="grid" data-testid="documents">
            <thead>
              <tr>
                <th scope="col">Title</th>
                <th scope="col" class="optional">
                  Kind
                </th>
                <th scope="col" class="optional">
                  Added
                </th>
              </tr>
            </thead>
            <tbody>
              {shown.map((d) => (
                <tr key={d.id} class={d.id === openId ? 'is-open' : ''}>
                  <th scope="row">
                    <button
                      type="button"
                      class="link"
                      aria-label={`Open ${d.title === '' ? d.source : d.title}: its outline`}
                      onClick={(e) => onOpen(d.id, e.currentTarget)}
                    >
                      {d.title === '' ? '(untitled)' : d.title}
                    </button>
                    <span class="muted small">{d.source}</span>
                  </th>
                  <td class="optional">{d.kind}</td>
                  <td class="nowrap optional">{new Date(d.added_at).toLocaleDateString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
