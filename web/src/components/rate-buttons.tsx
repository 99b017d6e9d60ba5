/**
 * Up and down for one section of an answer: each press writes a rating; the pressed button shows
 * the rating written. A read token sees which role rating needs instead; a refusal from the server
 * shows under the buttons.
 */
import { useAllowed } from '../role.js';
import type { Ratings } from '../use-ratings.js';
import { ErrorNote } from './error-note.js';
import { NeedsRole } from './needs-role.js';

export function RateButtons({
  sectionId,
  label,
  ratings,
}: {
  sectionId: string;
  label: string;
  ratings: Ratings;
}) {
  const allowed = useAllowed('write');
  const given = ratings.given.get(sectionId);
  const busy = ratings.pending.has(sectionId);
  const error = ratings.errors.get(sectionId);
  if (!allowed) return <NeedsRole need="write" what="Rating" />;
  return (
    <div class="rate" data-testid="rate">
      <div class="rate-buttons" role="group" aria-label={`Rate ${label}`}>
        <button
          type="button"
          class="quiet rate-up"
          aria-pressed={given === 'up'}
          aria-label={`Rate ${label} up: it helps answer the question`}
          disabled={busy}
          onClick={() => ratings.rate(sectionId, 'up')}
        >
          <span aria-hidden="true">▲</span> Up
        </button>
        <button
          type="button"
          class="quiet rate-down"
          aria-pressed={given === 'down'}
          aria-label={`Rate ${label} down: it does not help`}
          disabled={busy}
          onClick={() => ratings.rate(sectionId, 'down')}
        >
          <span aria-hidden="true">▼</span> Down
        </button>
      </div>
      {error !== undefined && (
        <ErrorNote
          error={error}
          forbidden="Rating a section needs a write or admin token; this token can only read. Make one with quiver token create --role write."
        />
      )}
    </div>
  );
}
