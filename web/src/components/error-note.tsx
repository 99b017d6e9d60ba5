/** An API error as a message: what the server said, and what to do about it. */
import { ApiError, adviceFor } from '../api.js';

export function ErrorNote({ error, onBadToken }: { error: unknown; onBadToken?: () => void }) {
  const e = error instanceof ApiError ? error : null;
  const message = e?.message ?? (error instanceof Error ? error.message : String(error));
  const advice = e === null ? '' : adviceFor(e);
  return (
    <div class="note error" role="alert">
      <p>
        <strong>
          {e === null ? 'Something went wrong' : `${e.status === 0 ? 'No reply' : e.status} ${e.code}`}
        </strong>
        {': '}
        {message}
      </p>
      {advice !== '' && <p>{advice}</p>}
      {e?.status === 401 && onBadToken !== undefined && (
        <button type="button" onClick={onBadToken}>
          Enter a token
        </button>
      )}
    </div>
  );
}
