/**
 * The page's views, one per `#/name` address. Later views (documents, evaluation, the grounding
 * lab, …) are added here and in `app.tsx`'s switch.
 */
export const VIEWS = [{ id: 'ask', label: 'Ask' }] as const;

export type ViewId = (typeof VIEWS)[number]['id'];

/** The view a location hash names (`#/ask`), or the first view. */
export function viewOf(hash: string): ViewId {
  const id = hash.replace(/^#\/?/, '').split('/')[0] ?? '';
  return VIEWS.find((v) => v.id === id)?.id ?? VIEWS[0].id;
}
