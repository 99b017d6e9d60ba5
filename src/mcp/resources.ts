import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/server';
import { outlineJson } from '../wire/ingest.js';
import { documentUri, DOCUMENT_TEMPLATE, idOf, SECTION_TEMPLATE } from './links.js';
import type { McpDeps } from './tool.js';

/** How many documents `resources/list` names (the newest; a vault may hold millions). */
export const LISTED_DOCUMENTS = 100;

/**
 * The vault as resources: `quiver://section/{id}` is a section with its subtree's text (Markdown,
 * headed by its breadcrumb and source), `quiver://document/{id}` a document's outline (the JSON of
 * `GET /v1/documents/:id/outline`). Every `resource_link` a tool returns points at one of them.
 * Reads go to the read-only vault. A missing id fails the read with the library's message.
 */
export function registerResources(server: McpServer, deps: McpDeps): void {
  server.registerResource(
    'section',
    new ResourceTemplate(SECTION_TEMPLATE, { list: undefined }),
    {
      title: 'A section of a document',
      description: 'A section with the text of its subsections; ids come from search hits and citations.',
      mimeType: 'text/markdown',
    },
    async (uri, variables) => {
      const r = await deps.reader.read(idOf(variables.id));
      const pages =
        r.section.pageStart === null
          ? ''
          : `, p. ${r.section.pageStart}${r.section.pageEnd === r.section.pageStart ? '' : `–${r.section.pageEnd}`}`;
      return {
        contents: [
          {
            uri: uri.href,
            mimeType: 'text/markdown',
            text: `# ${r.section.breadcrumb}\n\n_${r.document.source}${pages}; section ${r.section.id}_\n\n${r.text.trim()}\n`,
          },
        ],
      };
    },
  );
  server.registerResource(
    'document',
    new ResourceTemplate(DOCUMENT_TEMPLATE, {
      list: async () => ({
        resources: (await deps.reader.docs({ limit: LISTED_DOCUMENTS })).map((d) => ({
          uri: documentUri(d.id),
          name: d.id,
          title: d.title,
          description: `outline of ${d.source}`,
          mimeType: 'application/json',
        })),
      }),
    }),
    {
      title: "A document's outline",
      description: 'The document record and its sections (ids, levels, titles, pages), in order.',
      mimeType: 'application/json',
    },
    async (uri, variables) => {
      const o = await deps.reader.outline(idOf(variables.id));
      return {
        contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(outlineJson(o)) }],
      };
    },
  );
}
