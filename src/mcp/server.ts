import { McpServer } from '@modelcontextprotocol/server';
import { VERSION } from '../version.js';
import { registerPrompts } from './prompts.js';
import { READ_TOOLS } from './read-tools.js';
import { registerResources } from './resources.js';
import { registerTools, type McpDeps } from './tool.js';
import { writeTools } from './write-tools.js';

export type { McpDeps } from './tool.js';

/** What the server tells a client (and its model) about itself when it connects. */
const INSTRUCTIONS = `quiver is a local vault of documents cut into sections. Find passages with \`search\` (ranked hits) or \`context\` (numbered passages to answer from), read a section or a document outline with \`read\` or the quiver://section/<id> and quiver://document/<id> resources, and get an answer whose every claim cites sections with \`ask\`. Cite sections by the ids the tools return; never invent ids.`;

/**
 * The MCP face of a vault: one server for one session (stdio: the process; HTTP: a request),
 * with the tools its role allows (`read`: search, context, ask, read, noise_suggest; `write`: also
 * add, rate, noise_mark; `admin`: also undo and server paths), the section and document
 * resources, and the two prompts. A thin shell over the public API and the wire format.
 */
export function createMcpServer(deps: McpDeps): McpServer {
  const server = new McpServer({ name: 'quiver', version: VERSION }, { instructions: INSTRUCTIONS });
  registerTools(server, deps, [...READ_TOOLS, ...writeTools(deps.role)]);
  registerResources(server, deps);
  registerPrompts(server, deps);
  return server;
}
