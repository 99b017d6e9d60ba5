/**
 * A list the page read from the API, shown as a table that scrolls sideways on a narrow screen:
 * a loading line while it comes, the error when it failed (with `forbidden` for a 403), an
 * empty-state line when it has no rows, else the table with `head` and one `row` per item.
 */
import type { ComponentChildren } from 'preact';
import type { Loaded } from '../use-json.js';
import { ErrorNote } from './error-note.js';

export function LoadedTable<T, R>(props: {
  loaded: Loaded<T>;
  /** The items of a reply. */
  items: (value: T) => readonly R[];
  /** What the table holds, for its scrolling region's name (`Batches`). */
  label: string;
  testId: string;
  loading: string;
  empty: string;
  forbidden?: string;
  head: ComponentChildren;
  row: (item: R) => ComponentChildren;
}) {
  const { loaded } = props;
  if (loaded.state === 'loading') return <p class="muted">{props.loading}</p>;
  if (loaded.state === 'failed')
    return props.forbidden === undefined ? (
      <ErrorNote error={loaded.error} />
    ) : (
      <ErrorNote error={loaded.error} forbidden={props.forbidden} />
    );
  const items = props.items(loaded.value);
  if (items.length === 0) return <p class="muted">{props.empty}</p>;
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label={`${props.label} (scrolls sideways)`}>
      <table class="grid" data-testid={props.testId}>
        <thead>{props.head}</thead>
        <tbody>{items.map(props.row)}</tbody>
      </table>
    </div>
  );
}
