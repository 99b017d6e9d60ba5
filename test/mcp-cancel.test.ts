// Cancelling a long MCP `add` stops its ingest job: over stdio (a real `quiver mcp` child) and over
// Streamable HTTP (a real server, a client on protocol revision 2026-07-28, where a cancelled call
// ends its HTTP exchange). A 2025-revision HTTP client's cancel arrives as a request of its own
// that cannot reach the running call: that add runs to its end (README, "Agents (MCP)").
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, describe, expect, it } from 'vitest';
import { Vault } from '../src/index.js';
import { startServer } from '../src/server/serve.js';
import { tempDir } from './helpers.js';

const tmp = tempDir('quiver-mcp-cancel-');
const BIN = join(process.cwd(), 'bin/quiver.js');
const N = 300;
afterAll(() => tmp.cleanup());

/**
 * A folder of N notes under a root (an admin's add of server paths): reading files lets a cancel
 * in between documents, where literal texts are written in one go, too fast to catch.
 */
function folder(root: string): string {
  const dir = join(root, 'bulk');
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < N; i++)
    writeFileSync(
      join(dir, `note-${i}.md`),
      `# Note ${i}\n\n${Array.from({ length: 60 }, (_, j) => `Line ${j} of note ${i} is about item ${(i * 7919 + j * 104729) % 100_003}.`).join(' ')}\n`,
    );
  return dir;
}

/** An admin client on a fresh vault whose roots hold the folder, and how to stop what it started. */
async function session(
  transport: 'stdio' | 'http',
  path: string,
  root: string,
): Promise<{ client: Client; close: () => Promise<void> }> {
  if (transport === 'stdio') {
    const client = new Client({ name: 'quiver-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'mcp', '--vault', path, '--role', 'admin', '--quiet'],
        env: { ...getDefaultEnvironment(), QUIVER_ROOTS: root },
        stderr: 'ignore',
      }),
    );
    return { client, close: () => client.close() };
  }
  const writer = await Vault.open({ overrides: { vault: path, 'server.roots': root }, env: {} });
  const reader = await Vault.open({ overrides: { vault: path }, readonly: true, env: {} });
  const served = await startServer({ reader, writer }, { host: '127.0.0.1', port: 0 });
  const client = new Client(
    { name: 'quiver-test', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${served.firstToken}` } },
    }),
  );
  return {
    client,
    close: async () => {
      await client.close();
      await served.close();
      await reader.close();
      await writer.close();
    },
  };
}

describe.each(['stdio', 'http'] as const)('quiver MCP over %s', (transport) => {
  it('cancelling a long add stops its job: dead, "cancelled", the rest never added', async () => {
    const root = join(tmp.dir, transport);
    const path = join(root, 'vault.db');
    const dir = folder(root);
    await (await Vault.open({ overrides: { vault: path }, env: {} })).close();
    const { client, close } = await session(transport, path, root);
    const v = await Vault.open({ overrides: { vault: path }, readonly: true, env: {} });
    try {
      const stop = new AbortController();
      let progressed = 0;
      const outcome = await client
        .callTool(
          { name: 'add', arguments: { paths: [dir] } },
          {
            signal: stop.signal,
            timeout: 120_000,
            onprogress: () => {
              progressed += 1;
              if (progressed === 1) stop.abort();
            },
          },
        )
        .then(
          () => 'finished',
          (e: Error) => e.name,
        );
      expect(outcome).not.toBe('finished');
      const jobOf = async () => (await v.store.listJobs({ kind: 'ingest', limit: 10 }))[0];
      let job = await jobOf();
      for (let i = 0; i < 100 && job?.state !== 'dead'; i++) {
        await sleep(100);
        job = await jobOf();
      }
      expect(job?.state).toBe('dead');
      expect(job?.lastError).toContain('cancelled');
      // The job is recorded dead at once; the add finishes the document in hand, then ends its
      // batch as interrupted (undoable).
      for (let i = 0; i < 100 && (await v.batches(1))[0]?.status === 'running'; i++) await sleep(100);
      expect((await v.batches(1))[0]?.status).toBe('interrupted');
      const count = async () => (await v.docs({ limit: 1000 })).length;
      const added = await count();
      expect(added).toBeLessThan(N);
      await sleep(1500);
      expect(await count()).toBe(added);
    } finally {
      await v.close();
      await close();
    }
  });
});
