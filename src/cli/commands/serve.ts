import { storeLocation } from '../../config.js';
import type { Command } from '../command.js';
import { EXIT } from '../exit-codes.js';

export const serveCommand: Command = {
  name: 'serve',
  usage: 'quiver serve [--host H] [--port P]',
  options: {
    host: { type: 'string', value: 'H', help: 'address to listen on (default 127.0.0.1: this machine only)' },
    port: { type: 'integer', min: 0, help: 'port to listen on (default 7700; 0: any free port)' },
  },
  maxArgs: 0,
  async run(ctx) {
    const { startServer } = await import('../../server/serve.js');
    const { startWorkerProcess } = await import('../../server/worker-process.js');
    const writer = await ctx.openVault();
    const reader = await ctx.openVault({ readonly: true });
    const host = typeof ctx.values.host === 'string' ? ctx.values.host : writer.config['server.host'];
    const port = typeof ctx.values.port === 'number' ? ctx.values.port : writer.config['server.port'];
    const served = await startServer(
      { reader, writer },
      { host, port },
      ctx.quiet ? undefined : (l) => ctx.err(`${l}\n`),
    );
    const log = ctx.quiet ? undefined : (l: string): void => ctx.err(`${l}\n`);
    // Queued jobs (uploads, folder ingests, maintenance) run in a child process of their own.
    const worker =
      writer.config['server.worker'] === 'process'
        ? startWorkerProcess({
            // The same data as this server (a file by its absolute path; a URL with its password).
            vault: writer.store.kind === 'sqlite' ? writer.store.location : storeLocation(writer.loaded),
            env: ctx.io.env,
            ...(typeof ctx.values.config === 'string' ? { configFile: ctx.values.config } : {}),
            ...(log === undefined ? {} : { log }),
          })
        : null;
    if (ctx.json)
      ctx.out(
        `${JSON.stringify({ url: served.url, port: served.port, token: served.firstToken, worker_pid: worker?.pid() ?? null })}\n`,
      );
    else {
      ctx.out(`quiver serve: ${writer.store.location} on ${served.url} (Ctrl-C stops)\n`);
      if (served.firstToken !== null)
        ctx.out(
          `An admin token was created; it is shown once:\n  ${served.firstToken}\nOpen the page with it (the page keeps it for this tab only and takes it out of the address):\n  ${served.url}/?token=${served.firstToken}\nOr use it as "Authorization: Bearer <token>", e.g.\n  curl -H "Authorization: Bearer ${served.firstToken}" ${served.url}/readyz\n`,
        );
    }
    await new Promise<void>((resolve) => {
      if (ctx.signal.aborted) resolve();
      else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await served.close();
    await worker?.stop();
    await reader.close();
    await writer.close();
    return EXIT.OK;
  },
};
