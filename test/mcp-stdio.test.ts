// `quiver mcp` over stdio as a desktop client runs it: a child process speaking JSON-RPC on stdin
// and stdout. Nothing but protocol messages may reach stdout (a log line there breaks the client),
// and the process ends when its stdin closes.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Vault } from '../src/index.js';
import { tempDir } from './helpers.js';

const tmp = tempDir('quiver-mcp-stdio-');
const path = join(tmp.dir, 'notes.db');
const BIN = join(process.cwd(), 'bin/quiver.js');

beforeAll(async () => {
  const v = await Vault.open({ overrides: { vault: path }, env: {} });
  await v.add([
    { text: '# Kettle\n\nDescale the kettle monthly with citric acid.', source: 'note:kettle' },
    { text: '# Bread\n\nA sourdough starter dies above 50 °C.', source: 'note:bread' },
  ]);
  await v.close();
}, 60_000);
afterAll(() => tmp.cleanup());

/** Run `quiver mcp` with `lines` written to its stdin, then stdin closed; what it wrote and its exit code. */
function runMcp(lines: object[]): Promise<{ stdout: string; stderr: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'mcp', '--vault', path, '--role', 'admin'], {
      env: { ...getDefaultEnvironment(), QUIVER_DEBUG: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ stdout, stderr, code }));
    const timer = setTimeout(() => child.kill('SIGKILL'), 50_000);
    child.on('close', () => clearTimeout(timer));
    // One message at a time, each after the previous reply, as a client does.
    let sent = 0;
    const next = (): void => {
      const m = lines[sent++];
      if (m === undefined) child.stdin.end();
      else child.stdin.write(`${JSON.stringify(m)}\n`);
      if (m !== undefined && !('id' in m)) next();
    };
    child.stdout.on('data', (d: string) => {
      if (d.includes('"result"') || d.includes('"error"')) next();
    });
    next();
  });
}

describe('quiver mcp over stdio', () => {
  it('writes nothing but JSON-RPC messages on stdout, logs on stderr, and ends when stdin closes', async () => {
    const call = (id: number, name: string, args: object, meta?: object): object => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name, arguments: args, ...(meta === undefined ? {} : { _meta: meta }) },
    });
    const r = await runMcp([
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      call(3, 'search', { query: 'kettle' }),
      call(4, 'read', { id: 'nope#1' }),
      call(5, 'ask', { question: 'What kills a sourdough starter?' }, { progressToken: 'p5' }),
      call(
        6,
        'add',
        { text: '# Tea\n\nSteep green tea at 80 °C.', source: 'note:tea' },
        { progressToken: 'p6' },
      ),
      { jsonrpc: '2.0', id: 7, method: 'resources/read', params: { uri: 'quiver://section/missing%230' } },
    ]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n').filter((l) => l !== '');
    // Every line is a JSON-RPC message: a log line here would fail to parse.
    const messages = lines.map((l) => {
      const m = JSON.parse(l) as { jsonrpc?: string; id?: number; method?: string; error?: unknown };
      expect(m.jsonrpc, l).toBe('2.0');
      return m;
    });
    expect(messages.filter((m) => m.id !== undefined).map((m) => m.id)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(messages.some((m) => m.method === 'notifications/progress')).toBe(true);
    expect(messages.find((m) => m.id === 7)?.error).toBeDefined();
    // The diagnostics went to stderr.
    expect(r.stderr).toContain('over stdio');
    expect(r.stdout).not.toContain('over stdio');
  });
});
