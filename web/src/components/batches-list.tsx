/**
 * The ingest and removal batches, newest first, each with Undo (admin): the first press asks to
 * confirm and says what undoing does; the second undoes the batch exactly.
 */
import { useState } from 'preact/hooks';
import { getJson } from '../api.js';
import { focusOnMount } from '../focus-on-mount.js';
import { useAllowed } from '../role.js';
import { useJson } from '../use-json.js';
import type { BatchJson } from '../wire.js';
import { ErrorNote } from './error-note.js';
import { LoadedTable } from './loaded-table.js';
import { NeedsRole } from './needs-role.js';

const LIMIT = 20;

interface Undone {
  batchId: string;
  removed: number;
  restored: number;
}

export function BatchesList(props: { token: string; version: number; onChanged: () => void }) {
  const { token, version, onChanged } = props;
  const loaded = useJson<{ batches: BatchJson[] }>(`/v1/batches?limit=${LIMIT}`, token, version);
  const [asking, setAsking] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<Undone | null>(null);
  const canUndo = useAllowed('admin');
  const undo = (id: string): void => {
    setBusy(true);
    setError(null);
    getJson<Undone>('/v1/undo', token, { body: { batch: id } })
      .then((r) => {
        setDone(r);
        setAsking(null);
        onChanged();
      }, setError)
      .finally(() => setBusy(false));
  };
  return (
    <section class="card" aria-labelledby="batches-title">
      <h2 id="batches-title">Batches</h2>
      <p class="muted small">
        Every ingest and removal is one batch. Undo puts the vault back as it was before the batch: what it
        added goes, what it changed or removed comes back.
      </p>
      {!canUndo && <NeedsRole need="admin" what="Undoing a batch" />}
      {done !== null && (
        <p class="note" role="status">
          Batch <code>{done.batchId}</code> undone: {done.removed} removed, {done.restored} restored.
        </p>
      )}
      {error !== null && (
        <ErrorNote
          error={error}
          forbidden="Undoing a batch needs an admin token; this token’s role is lower."
        />
      )}
      <LoadedTable
        loaded={loaded}
        items={(v) => v.batches}
        label="Batches"
        testId="batches"
        loading="Loading the batches…"
        empty="No batches yet."
        head={
          <tr>
            <th scope="col">Batch</th>
            <th scope="col">Status</th>
            <th scope="col" class="num">
              Added
            </th>
            <th scope="col" class="num optional">
              Updated
            </th>
            <th scope="col" class="num">
              Removed
            </th>
            <th scope="col" class="num optional">
              Failed
            </th>
            {canUndo && <th scope="col">Undo</th>}
          </tr>
        }
        row={(b) => (
          <tr key={b.id}>
            <th scope="row">
              {b.label === '' ? <code>{b.id}</code> : b.label}
              <span class="muted small">{new Date(b.startedAt).toLocaleString()}</span>
            </th>
            <td>
              <span class={`tag ${b.status === 'done' ? 'ok' : b.status === 'interrupted' ? 'bad' : ''}`}>
                {b.status.replace('_', ' ')}
              </span>
            </td>
            <td class="num">{b.added}</td>
            <td class="num optional">{b.updated}</td>
            <td class="num">{b.removed}</td>
            <td class="num optional">{b.failed}</td>
            {canUndo && (
              <td>
                {b.status === 'rolled_back' || b.status === 'running' ? (
                  <span class="muted">—</span>
                ) : asking === b.id ? (
                  <div class="confirm" role="group" aria-label={`Confirm undoing batch ${b.id}`}>
                    <span class="small">Undo this batch?</span>
                    <button type="button" disabled={busy} onClick={() => undo(b.id)} ref={focusOnMount}>
                      Yes, undo
                    </button>
                    <button type="button" class="quiet" onClick={() => setAsking(null)}>
                      Cancel
                    </button>
                  </div>
                ) : (
                  <button
                    type="button"
                    class="quiet"
                    aria-label={`Undo batch ${b.label === '' ? b.id : b.label}`}
                    onClick={() => {
                      setDone(null);
                      setAsking(b.id);
                    }}
                  >
                    Undo
                  </button>
                )}
              </td>
            )}
          </tr>
        )}
      />
    </section>
  );
}
