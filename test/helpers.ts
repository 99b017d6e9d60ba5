// Shared helpers for the end-to-end suites: a temp folder, and the CLI run in-process with captured IO.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import type { CliIO } from '../src/cli/io.js';

export function tempDir(prefix = 'quiver-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  json: <T = unknown>() => T;
}

/** Run `quiver <args>` in-process, with the given stdin text and environment. */
export async function runCli(
  args: string[],
  options: { stdin?: string; env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const io: CliIO = {
    stdout: {
      write: (s: string | Uint8Array) => (stdout += typeof s === 'string' ? s : new TextDecoder().decode(s)),
    },
    stderr: { write: (s: string) => (stderr += s) },
    readStdin: async () => options.stdin ?? '',
    env: { ...options.env },
    cwd: options.cwd ?? process.cwd(),
  };
  const code = await main(args, io);
  return { code, stdout, stderr, json: <T>() => JSON.parse(stdout) as T };
}
