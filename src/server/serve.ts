import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Vault } from '../vault.js';
import { createApp } from './app.js';
import { createToken, listTokens } from './tokens.js';

export interface Served {
  /** `http://host:port`. */
  url: string;
  port: number;
  /** The admin token created on a first start (shown once), else null. */
  firstToken: string | null;
  close(): Promise<void>;
}

/**
 * Serve a vault over HTTP on `host:port` (port 0: any free port): `writer` opened for writing,
 * `reader` the same vault opened read-only (all a `read` request reaches), the app of `app.ts` on
 * `@hono/node-server`. A vault without tokens gets an admin token, returned once as `firstToken`.
 * `close` stops listening and ends open connections; the caller closes the vaults.
 */
export async function startServer(
  vaults: { reader: Vault; writer: Vault },
  listen: { host: string; port: number },
  log?: (line: string) => void,
): Promise<Served> {
  const { reader, writer } = vaults;
  let firstToken: string | null = null;
  if ((await listTokens(writer.store)).length === 0)
    firstToken = (await createToken(writer.store, 'admin', 'first start')).token;
  const c = writer.config;
  const list = (v: string, sep: string): string[] =>
    v
      .split(sep)
      .map((x) => x.trim())
      .filter((x) => x !== '');
  const app = createApp({
    reader,
    writer,
    limits: {
      ratePerSecond: c['server.ratePerSecond'],
      burst: c['server.burst'],
      maxBodyBytes: c['server.maxBodyBytes'],
      maxUploadBytes: c['server.maxUploadBytes'],
    },
    roots: list(c['server.roots'], ':'),
    corsOrigins: list(c['server.corsOrigins'], ','),
    ...(log === undefined ? {} : { log }),
  });
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, hostname: listen.host, port: listen.port }, () => resolve(s));
    s.once('error', reject);
  });
  const port = (server.address() as AddressInfo).port;
  const host = listen.host.includes(':') ? `[${listen.host}]` : listen.host;
  return {
    url: `http://${host}:${port}`,
    port,
    firstToken,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        if ('closeAllConnections' in server)
          (server as { closeAllConnections(): void }).closeAllConnections();
      }),
  };
}
