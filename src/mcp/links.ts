import { QuiverError } from '../errors.js';

/**
 * The vault's MCP resource addresses: `quiver://section/<id>` (a section with its subtree's text)
 * and `quiver://document/<id>` (a document's outline). Ids are percent-encoded in the address
 * (a section id's `#` would otherwise start a fragment): `doc#3` → `quiver://section/doc%233`.
 */

export const SECTION_TEMPLATE = 'quiver://section/{id}';
export const DOCUMENT_TEMPLATE = 'quiver://document/{id}';

export const sectionUri = (id: string): string => `quiver://section/${encodeURIComponent(id)}`;
export const documentUri = (id: string): string => `quiver://document/${encodeURIComponent(id)}`;

/** The id a template variable holds (decoded); BAD_INPUT when it is not valid percent-encoding. */
export function idOf(variable: string | string[] | undefined): string {
  const raw = Array.isArray(variable) ? variable.join('/') : (variable ?? '');
  try {
    const id = decodeURIComponent(raw);
    if (id !== '') return id;
  } catch {
    // reported below
  }
  throw new QuiverError('BAD_INPUT', `quiver: not a resource id: ${JSON.stringify(raw)}`);
}

/** A `resource_link` content block: what a client follows with `resources/read`. */
export interface ResourceLink {
  [key: string]: unknown;
  type: 'resource_link';
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType: string;
}

const link = (
  uri: string,
  name: string,
  title: unknown,
  description: string,
  mimeType: string,
): ResourceLink => ({
  type: 'resource_link',
  uri,
  name,
  title: String(title),
  description,
  mimeType,
});

/** The link to a section (hits, context sections, citations), titled by its breadcrumb. */
export function sectionLink(s: Readonly<Record<string, unknown>>): ResourceLink {
  const id = String(s.section_id);
  return link(sectionUri(id), id, s.breadcrumb, `from ${String(s.source)}`, 'text/markdown');
}

/** The link to a document's outline. */
export function documentLink(d: Readonly<Record<string, unknown>>): ResourceLink {
  const id = String(d.doc_id);
  return link(documentUri(id), id, d.title, `outline of ${String(d.source)}`, 'application/json');
}
