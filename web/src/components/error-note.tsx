/** An API error as a message: what the server said, and what to do about it. */
import { ApiError, adviceFor } from '../api.js';

export function ErrorNote(props: {
  error: unknown;
  onBadToken?: () => void;
  /** What a 403 means here, said instead of the general advice (which role the action needs). */
  forbidden?: string;
}) {
  const { error, onBadToken, forbidden } = props;
  const e = error instanceof ApiError ? error : null;
  const message = e?.message ?? (error instanceof Error ? error.message : String(error));
  const advice = e === null ? '' : e.status === 403 && forbidden !== undefined ? forbidden : adviceFor(e);
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
