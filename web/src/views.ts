/**
 * The page's views, one per `#/name` address, in the order of the header's links. A new view is
 * added here and in `app.tsx`.
 */
export const VIEWS = [
  { id: 'ask', label: 'Ask' },
  { id: 'documents', label: 'Documents' },
  { id: 'feedback', label: 'Feedback' },
  { id: 'noise', label: 'Noise' },
  { id: 'eval', label: 'Evaluation' },
  { id: 'lab', label: 'Lab' },
] as const;

export type ViewId = (typeof VIEWS)[number]['id'];

/** The view a location hash names (`#/ask`), or the first view. */
export function viewOf(hash: string): ViewId {
  const id = hash.replace(/^#\/?/, '').split('/')[0] ?? '';
  return VIEWS.find((v) => v.id === id)?.id ?? VIEWS[0].id;
}
