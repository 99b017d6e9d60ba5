/**
 * The three fields the lexical leg indexes for a section, in every backend: its own text (body),
 * its document's title, and its heading: the breadcrumb without the document-title root
 * (`Doc › A › B` → `A › B`; a root section's breadcrumb, with no ` › `, gives '').
 */
export function headingOf(breadcrumb: string): string {
  const i = breadcrumb.indexOf(' › ');
  return i < 0 ? '' : breadcrumb.slice(i + 3);
}
