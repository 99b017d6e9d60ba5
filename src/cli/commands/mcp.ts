import type { Role } from '../../server/tokens.js';
import { str, type Command } from '../command.js';
import { EXIT } from '../exit-codes.js';

export const mcpCommand: Command = {
  name: 'mcp',
  usage: 'quiver mcp [--role read|write|admin]',
  options: {
    role: {
      type: 'enum',
      choices: ['read', 'write', 'admin'],
      help: 'what the agent may do: read (search, ask, read), write (also add, rate, noise marks; the default), admin (also undo and folders under server.roots)',
    },
  },
  maxArgs: 0,
  /**
   * The vault as an MCP server over stdio (one client, the process that started this one): JSON-RPC
   * on stdin and stdout, nothing else on stdout; diagnostics go to stderr. Ends when stdin closes
   * (the client quit) or on SIGINT/SIGTERM.
   */
  async run(ctx) {
    const { serveStdio, StdioServerTransport } = await import('@modelcontextprotocol/server/stdio');
    const { createMcpServer } = await import('../../mcp/server.js');
    const role = (str(ctx.values, 'role') ?? 'write') as Role;
    // A read session never opens the vault for writing (and a missing vault is then an error).
    const writer = role === 'read' ? null : await ctx.openVault();
    const reader = await ctx.openVault({ readonly: true });
    const roots = (writer ?? reader).config['server.roots'].split(':').filter((r) => r.trim() !== '');
    const log = (line: string): void => ctx.err(`${line}\n`);
    const wire = new StdioServerTransport(process.stdin, process.stdout);
    const handle = serveStdio(
      () => createMcpServer({ reader, writer: writer ?? reader, role, roots, account: 'mcp', log }),
      { transport: wire, onerror: (e) => log(`quiver mcp: ${e.message}`) },
    );
    if (!ctx.quiet) log(`quiver mcp: ${reader.store.location} over stdio (${role})`);
    await new Promise<void>((resolve) => {
      const closed = wire.onclose;
      wire.onclose = () => {
        closed?.();
        resolve();
      };
      if (ctx.signal.aborted) resolve();
      else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await handle.close();
    await reader.close();
    await writer?.close();
    return EXIT.OK;
  },
};
