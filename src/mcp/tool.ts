import type { McpServer, ServerContext, ToolAnnotations } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import { QuiverError } from '../errors.js';
import { allows, type Role } from '../server/tokens.js';
import type { Vault } from '../vault.js';
import type { ResourceLink } from './links.js';
import { toolError } from './tool-error.js';

/** What an MCP session is given: the two vaults (as `server/route.ts` `AppDeps`), its role, its roots. */
export interface McpDeps {
  /** The vault opened read-only: all that a `read` session reaches. */
  reader: Vault;
  /** The vault opened for writing; a `read` session is given the reader here too. */
  writer: Vault;
  /** What the session may do: `read` tools only, `write` also changes the vault, `admin` also undo and server paths. */
  role: Role;
  /** Folders under which an admin may ingest server-side paths (none: no path ingest). */
  roots?: readonly string[];
  /** Whose token budget an `ask` spends (a server token's id). */
  account?: string;
  /** Where failures nobody else sees go (stderr; never stdout, which stdio needs clean). */
  log?: (line: string) => void;
}

/** What a tool's run is given besides its checked arguments. */
export interface ToolCall {
  deps: McpDeps;
  /** Aborted when the client cancels the call (or goes away). */
  signal: AbortSignal;
  /** Tell the client how far the call is (a progress notification, when it asked for them). */
  progress: (done: number, total: number | undefined, message: string) => Promise<void>;
}

/** A tool's reply: the wire JSON (its `structuredContent`), a text for the model, and links to follow. */
export interface ToolReply {
  structured: Record<string, unknown>;
  text: string;
  links?: ResourceLink[];
}

/**
 * One tool, declared as data: its name, the least role it needs, what it does (written for a
 * model), its input and output schemas, its hints, and what it does.
 */
export interface ToolSpec<I extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  description: string;
  role: Role;
  input: I;
  output: z.ZodType;
  annotations: ToolAnnotations;
  run: (args: z.infer<I>, call: ToolCall) => Promise<ToolReply>;
}

/** A tool with its argument type checked at the definition, stored type-erased in a list. */
export function tool<I extends z.ZodType>(spec: ToolSpec<I>): ToolSpec {
  return spec as unknown as ToolSpec;
}

function progressOf(ctx: ServerContext): ToolCall['progress'] {
  const token = ctx.mcpReq._meta?.progressToken;
  return async (done, total, message) => {
    if (token === undefined) return;
    await ctx.mcpReq.notify({
      method: 'notifications/progress',
      params: { progressToken: token, progress: done, ...(total === undefined ? {} : { total }), message },
    });
  };
}

/**
 * Register the tools this session's role allows (a `read` session is not even shown the write
 * tools) and answer each call with `structuredContent`, the text and the links, or a tool error
 * carrying the library's error code. A tool above the role is refused again when called.
 */
export function registerTools(server: McpServer, deps: McpDeps, tools: readonly ToolSpec[]): void {
  for (const t of tools) {
    if (!allows(deps.role, t.role)) continue;
    server.registerTool(
      t.name,
      {
        title: t.title,
        description: t.description,
        inputSchema: t.input,
        outputSchema: t.output,
        annotations: { title: t.title, ...t.annotations },
      },
      async (args: unknown, ctx: ServerContext) => {
        try {
          if (!allows(deps.role, t.role))
            throw new QuiverError(
              'FORBIDDEN',
              `quiver: ${t.name} needs a ${t.role} session, this one is ${deps.role}`,
            );
          const r = await t.run(args, { deps, signal: ctx.mcpReq.signal, progress: progressOf(ctx) });
          return {
            content: [{ type: 'text' as const, text: r.text }, ...(r.links ?? [])],
            structuredContent: r.structured,
          };
        } catch (e) {
          return toolError(e, deps.log);
        }
      },
    );
  }
}
