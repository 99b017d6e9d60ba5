/**
 * Upload (write): files dropped on the zone or chosen with the picker (the keyboard's way) go to
 * `POST /v1/uploads` as one ingest job, whose progress shows until it ends; then the lists reload.
 * The server checks each name and its first bytes and refuses the whole upload if one is wrong.
 */
import { useState } from 'preact/hooks';
import { getJson } from '../api.js';
import { useJobRun } from '../use-job-run.js';
import type { AcceptedJson } from '../wire.js';
import { JobProgress } from './job-progress.js';

/** The extensions the server takes (src/server/upload-kind.ts `UPLOAD_EXTENSIONS`). */
const EXTENSIONS = [
  'md',
  'markdown',
  'mdx',
  'html',
  'htm',
  'xhtml',
  'pdf',
  'txt',
  'text',
  'rst',
  'log',
  'jsonl',
  'ndjson',
];

export function UploadFiles({ token, onChanged }: { token: string; onChanged: () => void }) {
  const { run, start } = useJobRun(token, onChanged);
  const [over, setOver] = useState(false);
  const busy = run.phase === 'sending' || run.phase === 'running';
  const send = (list: FileList | null): void => {
    const files = list === null ? [] : [...list];
    const first = files[0];
    if (first === undefined || busy) return;
    const form = new FormData();
    for (const f of files) form.append('file', f, f.name);
    const label = files.length === 1 ? `Upload of ${first.name}` : `Upload of ${files.length} files`;
    start(label, () => getJson<AcceptedJson>('/v1/uploads', token, { body: form }));
  };
  return (
    <div class="add-part">
      <h3 id="upload-title">Upload files</h3>
      <div
        class={`drop ${over ? 'over' : ''}`}
        data-testid="drop-zone"
        onDragEnter={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragOver={(e) => e.preventDefault()}
        onDragLeave={() => setOver(false)}
        onDrop={(e) => {
          e.preventDefault();
          setOver(false);
          send(e.dataTransfer?.files ?? null);
        }}
      >
        <p class="drop-hint" aria-hidden="true">
          Drop files here, or
        </p>
        <label for="upload-file">Choose files to upload</label>
        <input
          id="upload-file"
          type="file"
          multiple
          disabled={busy}
          accept={EXTENSIONS.map((x) => `.${x}`).join(',')}
          aria-describedby="upload-help"
          onChange={(e) => {
            send(e.currentTarget.files);
            e.currentTarget.value = '';
          }}
        />
      </div>
      <p id="upload-help" class="muted small">
        Markdown, HTML, PDF, plain text or JSON Lines. Each upload is one batch you can undo.
      </p>
      <JobProgress run={run} forbidden="Uploading needs a write or admin token; this token can only read." />
    </div>
  );
}
